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
                             describe: @Sendable (LoadRemedy) -> String = { $0.apiText }, _ body: (String) throws -> R) throws -> R {
        try withTemporaryFile(label: label) { spool in
            let input: FileHandle
            if path == "-" {
                input = FileHandle.standardInput
            } else {
                guard let handle = FileHandle(forReadingAtPath: path) else {
                    throw ImportError(.cannotOpen, "cannot open file: \(String(cString: strerror(errno)))", file: label)
                }
                input = handle
            }
            guard FileManager.default.createFile(atPath: spool, contents: nil), let output = FileHandle(forWritingAtPath: spool) else {
                throw ImportError(.cannotOpen, "cannot create a temporary copy in \(FileManager.default.temporaryDirectory.path)", file: label)
            }
            defer { try? output.close() }
            let free = CSVSpool.freeBytes(atDirectoryOf: spool)
            let budget = min(free, limit ?? .max)
            var written = 0
            do {
                while let chunk = try input.read(upToCount: 1 << 20), !chunk.isEmpty {
                    written += chunk.count
                    guard written <= budget else {
                        let megabytes = { (bytes: Int) in "\(bytes / 1_048_576) MiB" }
                        let bound = budget == free
                            ? "\(megabytes(budget)), 90% of the free space in \(FileManager.default.temporaryDirectory.path)"
                              + "; set TMPDIR to a folder with more room, or save the input to a file and load that"
                            : "its limit of \(megabytes(budget)); raise it (\(describe(.spoolLimit))), or save the input to a file and load that"
                        throw ImportError(.tooLarge, "the input is copied to a temporary file to be read, and the copy reached \(bound); "
                                          + "nothing was loaded", file: label)
                    }
                    try output.write(contentsOf: chunk)
                }
            } catch let error as ImportError {
                throw error
            } catch {
                throw ImportError(.cannotOpen, "cannot read the input into a temporary copy: \(error.localizedDescription)", file: label)
            }
            return try body(spool)
        }
    }

    /// Calls `body` with the path of a new temporary file, removed afterwards; an ``ImportError``
    /// that names that file is given `label` instead.
    static func withTemporaryFile<R>(label: String, _ body: (String) throws -> R) throws -> R {
        let spool = FileManager.default.temporaryDirectory.appendingPathComponent("wells-\(UUID().uuidString).csv").path
        TemporaryFiles.track(spool)
        defer {
            try? FileManager.default.removeItem(atPath: spool)
            TemporaryFiles.untrack(spool)
        }
        do {
            return try body(spool)
        } catch var error as ImportError where error.file == spool {
            error.file = label
            throw error
        }
    }
}
