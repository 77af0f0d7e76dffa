import Foundation
import GRDB
import Glibc

extension Reject {
    /// Writes `rejects` to a CSV file with the columns `line,column,reason,raw`, the raw text
    /// without its line break; `wells load --rejects` writes this file.
    ///
    /// The text goes out through one reused buffer, so writing costs no memory per reject. The file
    /// appears whole or not at all: it is written beside `path` under a temporary name and renamed
    /// over it, with mode 0666 less the umask, as Foundation's atomic write made it.
    ///
    /// - Throws: ``ImportError`` `cannotOpen` when the file cannot be written.
    public static func writeCSV(_ rejects: some Sequence<Reject>, toCSVAt path: String) throws {
        try TemporaryFiles.beside(path) { temporary in try writeCSV(rejects, to: temporary, thenRenameTo: path) }
    }

    private static func writeCSV(_ rejects: some Sequence<Reject>, to temporary: String, thenRenameTo path: String) throws {
        func failure(_ doing: String) -> ImportError {
            ImportError(.cannotOpen, "cannot \(doing): \(String(cString: strerror(errno)))", file: path)
        }
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
        guard fd >= 0 else { throw failure("create the file") }
        var buffer: [UInt8] = []
        buffer.reserveCapacity(1 << 16)
        func flush() throws {
            var done = 0
            while done < buffer.count {
                let n = buffer.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + done, $0.count - done) }
                if n < 0 {
                    if errno == EINTR { continue }
                    throw failure("write the file")
                }
                done += n
            }
            buffer.removeAll(keepingCapacity: true)
        }
        do {
            buffer.append(contentsOf: (CSVWriter.line(["line", "column", "reason", "raw"]) + "\n").utf8)
            for reject in rejects {
                let raw = reject.raw.trimmingCharacters(in: .newlines)
                buffer.append(contentsOf: (CSVWriter.line([String(reject.line), reject.column ?? "", reject.reason, raw]) + "\n").utf8)
                if buffer.count >= 1 << 16 { try flush() }
            }
            try flush()
        } catch {
            close(fd)
            throw error
        }
        guard close(fd) == 0 else { throw failure("write the file") }
        guard rename(temporary, path) == 0 else { throw failure("write the file") }
    }
}
