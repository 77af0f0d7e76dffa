import Foundation
import Glibc

/// What kind of file a load was given, and the spool that turns a stream into a file to map.
///
/// The rules: a regular file (or a symlink to one) is mapped in place; standard input (`-`), a
/// pipe, a FIFO or a socket is copied to a temporary file first, piece by piece, and the copy is
/// removed afterwards; a directory or a device is refused with a message, never read. Messages
/// about a spooled input name it as the user did (`stdin`, or the path), never the spool.
enum InputFile {
    enum Kind: Equatable {
        case regular
        case stream
    }

    /// Classifies `path` (following symlinks).
    ///
    /// - Throws: ``ImportError`` `cannotOpen` for a missing file, a directory or a device.
    static func kind(of path: String) throws -> Kind {
        if path == "-" { return .stream }
        var info = stat()
        guard stat(path, &info) == 0 else {
            let reason = String(cString: strerror(errno))
            throw ImportError(.cannotOpen, "cannot open file: \(reason)", file: path)
        }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return .regular
        case S_IFIFO, S_IFSOCK: return .stream
        case S_IFDIR:
            throw ImportError(.cannotOpen, "is a directory, not a well list; give the CSV or TSV file inside it", file: path)
        default:
            throw ImportError(.cannotOpen, "is a device, not a well list; give a CSV or TSV file, or - for standard input", file: path)
        }
    }

    /// Copies the stream at `path` (standard input for `-`) to a temporary file and calls `body`
    /// with its path; errors that name the temporary file are given `label` instead.
    ///
    /// An endless stream (`yes |`, a FIFO nobody closes) would fill the temporary folder for every
    /// program on the machine: the copy stops at `limit` bytes, or at 90% of the folder's free
    /// space when that is less (read once, before the copy), and the load with
    /// ``ImportError/Code/tooLarge``; the copy is removed.
    static func withSpool<R>(of path: String, label: String, limit: Int? = nil,
                             describe: @escaping @Sendable (LoadRemedy) -> String = { $0.apiText }, _ body: (String) throws -> R) throws -> R {
        let input: FileHandle
        if path == "-" {
            input = FileHandle.standardInput
        } else {
            guard let handle = FileHandle(forReadingAtPath: path) else {
                throw ImportError(.cannotOpen, "cannot open file: \(String(cString: strerror(errno)))", file: label)
            }
            input = handle
        }
        defer { if path != "-" { try? input.close() } }
        return try withSpool(reading: input, label: label, limit: limit, describe: describe, body)
    }

    /// Copies what `input` holds from its current offset to its end into a temporary file, and calls
    /// `body` with its path, as ``withSpool(of:label:limit:describe:_:)`` does.
    static func withSpool<R>(reading input: FileHandle, label: String, limit: Int? = nil,
                             describe: @escaping @Sendable (LoadRemedy) -> String = { $0.apiText }, _ body: (String) throws -> R) throws -> R {
        try withTemporaryFile(label: label) { spool in
            var writer = try Spool(path: spool, label: label, limit: limit, describe: describe)
            do {
                while let chunk = try input.read(upToCount: 1 << 20), !chunk.isEmpty { try writer.append(chunk) }
            } catch let error as ImportError {
                throw error
            } catch {
                throw ImportError(.cannotOpen, "cannot read the input into a temporary copy: \(error.localizedDescription)", file: label)
            }
            writer.close()
            return try body(spool)
        }
    }

    /// A temporary copy being written, which stops at its budget: `limit` bytes, or 90% of the
    /// temporary folder's free space when that is less (read once, when the copy starts).
    struct Spool: ~Copyable {
        private let output: FileHandle
        private let label: String
        private let budget: Int
        private let free: Int
        private let describe: @Sendable (LoadRemedy) -> String
        private(set) var written = 0

        init(path: String, label: String, limit: Int?, describe: @escaping @Sendable (LoadRemedy) -> String) throws {
            guard FileManager.default.createFile(atPath: path, contents: nil), let output = FileHandle(forWritingAtPath: path) else {
                throw ImportError(.cannotOpen, "cannot create a temporary copy in \(FileManager.default.temporaryDirectory.path)", file: label)
            }
            self.output = output
            self.label = label
            self.describe = describe
            free = CSVSpool.freeBytes(atDirectoryOf: path)
            budget = min(free, limit ?? .max)
        }

        deinit { try? output.close() }

        /// Appends `bytes`, or throws ``ImportError/Code/tooLarge`` when the copy would pass its budget.
        mutating func append(_ bytes: some DataProtocol) throws {
            written += bytes.count
            guard written <= budget else {
                let megabytes = { (bytes: Int) in "\(bytes / 1_048_576) MiB" }
                let bound = budget == free
                    ? "\(megabytes(budget)), 90% of the free space in \(FileManager.default.temporaryDirectory.path)"
                      + "; set TMPDIR to a folder with more room, or save the input to a file and load that"
                    : "its limit of \(megabytes(budget)); raise it (\(describe(.spoolLimit))), or save the input to a file and load that"
                throw ImportError(.tooLarge, "the input is copied to a temporary file to be read, and the copy reached \(bound); "
                                  + "nothing was loaded", file: label)
            }
            do {
                try output.write(contentsOf: bytes)
            } catch {
                throw ImportError(.cannotOpen, "cannot write the input's temporary copy in \(FileManager.default.temporaryDirectory.path): "
                                  + "\(error.localizedDescription); set TMPDIR to a folder with more room", file: label)
            }
        }

        /// Ends the copy and closes its file (each append was written through, so nothing is buffered).
        consuming func close() {}
    }

    /// Calls `body` with the path of a new temporary file, removed afterwards; an ``ImportError``
    /// that names that file is given `label` instead.
    static func withTemporaryFile<R>(label: String, _ body: (String) throws -> R) throws -> R {
        let spool = newTemporaryFile()
        defer { removeTemporaryFile(spool) }
        do {
            return try body(spool)
        } catch var error as ImportError where error.file == spool {
            error.file = label
            throw error
        }
    }

    /// ``withTemporaryFile(label:_:)`` for an asynchronous `body`.
    static func withTemporaryFile<R>(label: String, _ body: (String) async throws -> R) async throws -> R {
        let spool = newTemporaryFile()
        defer { removeTemporaryFile(spool) }
        do {
            return try await body(spool)
        } catch var error as ImportError where error.file == spool {
            error.file = label
            throw error
        }
    }

    /// The path of a new temporary file, tracked so that SIGINT removes it (``TemporaryFiles``).
    private static func newTemporaryFile() -> String {
        let spool = FileManager.default.temporaryDirectory.appendingPathComponent("wells-\(UUID().uuidString).csv").path
        TemporaryFiles.track(spool)
        return spool
    }

    private static func removeTemporaryFile(_ spool: String) {
        try? FileManager.default.removeItem(atPath: spool)
        TemporaryFiles.untrack(spool)
    }
}
