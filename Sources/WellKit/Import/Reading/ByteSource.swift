import Glibc

/// Where a ``CSVReader`` reads bytes from.
protocol ByteSource: AnyObject {
    var size: Int? { get }
    func read(into buffer: UnsafeMutableBufferPointer<UInt8>) throws -> Int
}

/// Reads a file (or standard input for `-`) with POSIX `read`, and closes it in `deinit`.
final class FileSource: ByteSource {
    private let fd: Int32
    private let path: String
    let size: Int?

    init(path: String) throws {
        self.path = path
        if path == "-" {
            fd = 0
            size = nil
            return
        }
        fd = open(path, O_RDONLY)
        if fd < 0 {
            throw ImportError(.cannotOpen, "cannot open file: \(String(cString: strerror(errno)))", file: path)
        }
        var info = stat()
        size = fstat(fd, &info) == 0 ? Int(info.st_size) : nil
    }

    func read(into buffer: UnsafeMutableBufferPointer<UInt8>) throws -> Int {
        while true {
            let n = Glibc.read(fd, buffer.baseAddress, buffer.count)
            if n >= 0 { return n }
            if errno == EINTR { continue }
            throw ImportError(.cannotOpen, "cannot read file: \(String(cString: strerror(errno)))", file: path)
        }
    }

    deinit { if fd > 0 { close(fd) } }
}

/// Serves bytes from memory, at most the buffer's size at a time.
final class MemorySource: ByteSource {
    private let bytes: [UInt8]
    private var offset = 0
    var size: Int? { bytes.count }

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    func read(into buffer: UnsafeMutableBufferPointer<UInt8>) throws -> Int {
        let n = min(buffer.count, bytes.count - offset)
        for k in 0..<n { buffer[k] = bytes[offset + k] }
        offset += n
        return n
    }
}
