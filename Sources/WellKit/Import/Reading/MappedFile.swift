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
/// ends, so the pages stay shared with the page cache rather than copied into the heap. A file of
/// ``releaseThreshold`` bytes or more gives its pages back as it is read, and its rows read their
/// records with `pread`, so that a national file does not stay resident beside the load. (If another
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
        // Without its access time: a big file's rows are read record by record (``read(_:into:)``),
        // and every `pread` would ask whether the file's atime needs an update, a share of a national
        // load's rows phase. Only the file's owner may ask; anyone else opens it as usual.
        var fd = open(path, O_RDONLY | Self.noAccessTime)
        if fd < 0 && errno == EPERM { fd = open(path, O_RDONLY) }
        guard fd >= 0 else {
            throw ImportError(.cannotOpen, "cannot open file: \(String(cString: strerror(errno)))", file: path)
        }
        var keep = false
        defer { if !keep { close(fd) } }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            throw ImportError(.cannotOpen, "cannot read file: \(String(cString: strerror(errno)))", file: path)
        }
        let size = Int(info.st_size)
        releases = size >= Self.releaseThreshold
        guard size > 0 else {
            bytes = UnsafeBufferPointer(start: nil, count: 0)
            descriptor = -1
            return
        }
        // Pages are read in up front for files that fit comfortably in memory: the two halves and
        // the row builder then never stop on a page fault. A bigger file is paged in as it is read,
        // and its readers give its pages back as they go (``releases``).
        let populate = releases ? 0 : MAP_POPULATE
        guard let address = mmap(nil, size, PROT_READ, MAP_PRIVATE | populate, fd, 0), address != MAP_FAILED else {
            throw ImportError(.cannotOpen, "cannot map file: \(String(cString: strerror(errno)))", file: path)
        }
        bytes = UnsafeBufferPointer(start: address.assumingMemoryBound(to: UInt8.self), count: size)
        keep = releases
        descriptor = keep ? fd : -1
    }

    /// Linux's `O_NOATIME` (`fcntl.h`, 01000000 on every architecture but Alpha and PA-RISC), which
    /// Glibc's Swift module leaves out, as it does everything under `_GNU_SOURCE`.
    private static let noAccessTime: Int32 = 0o1000000

    /// The open file, kept for ``read(_:into:)`` when the file gives back its pages; else -1.
    private let descriptor: Int32

    /// Files of at least this many bytes are not read in up front, their sequential readers
    /// give back the pages they have read (``ReleaseBehind``), and the rows, built in spatial
    /// order, read their records with `pread` (``read(_:into:)``) rather than through the mapping.
    ///
    /// A mapped page the process has touched counts in its resident memory, though the kernel can
    /// drop it: a national load's peak was mostly its file. Given back, the pages stay in the page
    /// cache, and a later read maps them again without going to the disk. Below the threshold the
    /// file stays mapped and read in up front, as reading rows through the mapping is faster than
    /// `pread` (Benchmarks/README.md's "Scaling"). Tests lower it to run the big files' path on small ones.
    @TaskLocal package static var releaseThreshold = 1 << 30

    /// Whether readers give back the pages they have read (a file of at least ``releaseThreshold`` bytes).
    let releases: Bool

    /// Gives back the pages wholly inside `range` (`madvise(MADV_DONTNEED)`): they leave the
    /// process's resident memory, and a later read maps them again from the page cache, with the
    /// same bytes (the mapping is private and read-only, so there is nothing to lose).
    func release(_ range: Range<Int>) {
        guard let base = bytes.baseAddress else { return }
        let page = Self.pageSize
        let from = (range.lowerBound + page - 1) / page * page, to = min(range.upperBound, bytes.count) / page * page
        guard from < to else { return }
        _ = madvise(UnsafeMutableRawPointer(mutating: base + from), to - from, MADV_DONTNEED)
    }

    private static let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))

    /// Copies the bytes at `range` into `destination` with `pread`, for a file that gives back its
    /// pages: a read in spatial order jumps about the file, and each page it touched through the
    /// mapping would stay resident (the kernel maps the neighbours of a faulted page too, and with
    /// large folios, many of them: a national file would stay mostly resident).
    /// Falls back to the mapping when the file is not kept open or a read falls short.
    func read(_ range: Range<Int>, into destination: UnsafeMutableRawPointer) {
        var done = 0
        if descriptor >= 0 {
            while done < range.count {
                let n = pread(descriptor, destination + done, range.count - done, off_t(range.lowerBound + done))
                if n > 0 { done += n } else if n < 0 && errno == EINTR { continue } else { break }
            }
        }
        if done < range.count, let base = bytes.baseAddress {
            (destination + done).copyMemory(from: base + range.lowerBound + done, byteCount: range.count - done)
        }
    }

    /// Gives back a file's pages behind a reader that goes through it in order, in large steps,
    /// when the file is big enough to (``releases``).
    struct ReleaseBehind {
        private let file: MappedFile?
        private var released: Int

        /// A reader of `file` that starts at `offset`.
        init(_ file: MappedFile, from offset: Int) {
            self.file = file.releases ? file : nil
            released = offset
        }

        /// The reader is done with every byte before `offset`.
        @inline(__always) mutating func done(before offset: Int) {
            guard let file, offset - released >= 32 << 20 else { return }
            file.release(released..<offset)
            released = offset
        }
    }

    /// The bytes at `range`, decoded as ``CSVReader`` decodes fields.
    func text(at range: Range<Int>) -> String {
        decode(UnsafeBufferPointer(rebasing: bytes[range]))
    }

    deinit {
        if let base = bytes.baseAddress { munmap(UnsafeMutableRawPointer(mutating: base), bytes.count) }
        if descriptor >= 0 { close(descriptor) }
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
