import CZlib  // the system zlib, through the module map ZIPFoundation brings on Linux
import Foundation

/// A gzip file (`1f 8b`), decompressed with the system's zlib (`gzread`, which also reads
/// several concatenated members) to a temporary file, a megabyte at a time.
enum Gzip {
    /// Decompresses `path` to `output`, bounded by the free space of its folder.
    ///
    /// - Throws: ``ImportError`` when the data is damaged or cut short (a truncated download), or
    ///   would fill the temporary folder.
    static func decompress(_ path: String, to output: String, label: String) throws {
        guard let input = gzopen(path, "rb") else {
            throw ImportError(.cannotOpen, "cannot open file: \(String(cString: strerror(errno)))", file: label)
        }
        defer { gzclose(input) }
        gzbuffer(input, 1 << 17)
        guard FileManager.default.createFile(atPath: output, contents: nil), let handle = FileHandle(forWritingAtPath: output) else {
            throw ImportError(.cannotOpen, "cannot create a temporary copy in \(FileManager.default.temporaryDirectory.path)", file: label)
        }
        defer { try? handle.close() }
        let budget = CSVSpool.freeBytes(atDirectoryOf: output)
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var written = 0
        while true {
            let n = buffer.withUnsafeMutableBytes { gzread(input, $0.baseAddress, UInt32($0.count)) }
            // A stream cut short ends as if it were whole, with Z_BUF_ERROR ("unexpected end of file") left in gzerror.
            var code: Int32 = Z_OK
            let message = gzerror(input, &code).map { String(cString: $0) } ?? "unknown error"
            if n < 0 || code != Z_OK {
                throw ImportError(.notText, "the gzip data is damaged or cut short after \(written) bytes (\(message)); "
                    + "download it again, or check it with gzip -t", file: label)
            }
            if n == 0 { break }
            written += Int(n)
            guard written <= budget else {
                throw ImportError(.notText, "it decompresses to more than the \(budget / (1 << 20)) MiB free in "
                    + "\(FileManager.default.temporaryDirectory.path); free space there, or set TMPDIR to a larger folder", file: label)
            }
            try buffer.withUnsafeBytes { try handle.write(contentsOf: UnsafeRawBufferPointer(rebasing: $0[0..<Int(n)])) }
        }
    }
}
