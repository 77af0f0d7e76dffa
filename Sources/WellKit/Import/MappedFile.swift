import Glibc

/// A file mapped read-only into memory, for the loader's passes over it.
///
/// A load opens and maps its input once (``WellStore/scan(csvAt:options:name:)``); the streaming
/// reader takes the header and sample from the mapping too (``MappedSource``).
///
/// The loader reads a file three times: it splits it into records on two cores, it builds each
/// kept record's row in spatial order while the rows are written, and it fetches rejected
/// records' raw text. Mapping the file lets all three read its bytes in place: fields are bound to
/// SQLite straight from the mapping, with no `String` per field. The mapping lives until the load
/// ends, so the pages stay shared with the page cache rather than copied into the heap. (If another
/// program truncates the file during a load, reading the lost pages kills the process; the load's
/// transaction then rolls back like any other interrupted load.)
// @unchecked Sendable: immutable after init, a read-only mapping (`bytes`) that threads only read.
final class MappedFile: @unchecked Sendable {
    let path: String
    let bytes: UnsafeBufferPointer<UInt8>

    /// Maps the file at `path`.
    ///
    /// - Throws: ``ImportError`` if the file cannot be opened or mapped.
    init(path: String) throws {
        self.path = path
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else {
            throw ImportError(.cannotOpen, "cannot open file: \(String(cString: strerror(errno)))", file: path)
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            throw ImportError(.cannotOpen, "cannot read file: \(String(cString: strerror(errno)))", file: path)
        }
        let size = Int(info.st_size)
        guard size > 0 else {
            bytes = UnsafeBufferPointer(start: nil, count: 0)
            return
        }
        // Pages are read in up front for files that fit comfortably in memory: the two halves and
        // the row builder then never stop on a page fault. A bigger file is paged in as it is read.
        let populate = size < 1 << 30 ? MAP_POPULATE : 0
        guard let address = mmap(nil, size, PROT_READ, MAP_PRIVATE | populate, fd, 0), address != MAP_FAILED else {
            throw ImportError(.cannotOpen, "cannot map file: \(String(cString: strerror(errno)))", file: path)
        }
        bytes = UnsafeBufferPointer(start: address.assumingMemoryBound(to: UInt8.self), count: size)
    }

    /// The bytes at `range`, decoded as ``CSVReader`` decodes fields.
    func text(at range: Range<Int>) -> String {
        decode(UnsafeBufferPointer(rebasing: bytes[range]))
    }

    deinit {
        if let base = bytes.baseAddress { munmap(UnsafeMutableRawPointer(mutating: base), bytes.count) }
    }
}

/// Reads a mapped file as a stream, for ``CSVReader``: the header and the sample are read from the
/// same mapping as the records, so a load opens its input once.
final class MappedSource: ByteSource {
    private let file: MappedFile
    private var offset: Int
    private let start: Int
    var size: Int? { file.bytes.count - start }

    /// Reads `file` from byte `start` on.
    init(_ file: MappedFile, from start: Int = 0) {
        self.file = file
        self.start = min(max(0, start), file.bytes.count)
        offset = self.start
    }

    func read(into buffer: UnsafeMutableBufferPointer<UInt8>) throws -> Int {
        let n = min(buffer.count, file.bytes.count - offset)
        if n > 0 { UnsafeMutableRawPointer(buffer.baseAddress!).copyMemory(from: file.bytes.baseAddress! + offset, byteCount: n) }
        offset += n
        return n
    }
}
