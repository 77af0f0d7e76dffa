import ArgumentParser
import Foundation
import Glibc
import Synchronization
import WellKit

/// Standard error, progress bars and the mapping of errors to exit codes.
package enum Terminal {
    package static var stderrIsTerminal: Bool { isatty(2) == 1 }

    /// Writes a message line to standard error, with control characters shown escaped.
    package static func error(_ text: String) {
        errorRaw(printable(text) + "\n")
    }

    /// `text` safe to print on a terminal (``SafeText/escaped(_:keepingLineBreaks:)``): a value from a
    /// file or an argument cannot move the cursor, retitle the window or hide text.
    package static func printable(_ text: String) -> String { SafeText.escaped(text) }

    /// Writes `text` to standard error as it is, without a line break.
    /// (A standard error that cannot be written loses the text, with nowhere to say so; Foundation's
    /// `FileHandle.write` would trap.)
    package static func errorRaw(_ text: String) {
        var bytes = Array(text.utf8)
        _ = bytes.withUnsafeMutableBytes { writeAll(UnsafeRawBufferPointer($0), to: 2) }
    }

    /// Writes all of `bytes` to file descriptor `fd`, again after a signal interrupts; the `errno`
    /// of a write that fails, or nil.
    private static func writeAll(_ bytes: UnsafeRawBufferPointer, to fd: Int32) -> Int32? {
        var offset = 0
        while offset < bytes.count {
            let written = Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return written < 0 ? errno : EIO }
            offset += written
        }
        return nil
    }

    /// Writes `bytes` to standard output, all of them. A write that fails (a full disk, `/dev/full`)
    /// ends the command with exit 74 and the system's reason, never a silent loss or a trap, as
    /// Foundation's `FileHandle.write` traps. A closed pipe (`| head`) ends the process by SIGPIPE,
    /// exit 141, as it does `cat`.
    package static func writeStandardOutput(_ bytes: UnsafeRawBufferPointer) {
        if let failure = writeAll(bytes, to: 1) { failedStandardOutput(failure) }
    }

    /// Writes `text` to standard output, all of it (see ``writeStandardOutput(_:)-(UnsafeRawBufferPointer)``).
    package static func writeStandardOutput(_ text: String) {
        var bytes = Array(text.utf8)
        bytes.withUnsafeMutableBytes { writeStandardOutput(UnsafeRawBufferPointer($0)) }
    }

    /// Flushes what `print` buffered (every C stream: Swift 6 does not let this name `stdout`); a
    /// failure is ``failedStandardOutput(_:)``. Called before every exit.
    package static func flushStandardOutput() {
        if fflush(nil) != 0 { failedStandardOutput(errno) }
    }

    private static func failedStandardOutput(_ code: Int32) -> Never {
        error("wells: error: cannot write standard output: \(String(cString: strerror(code))); what was written is incomplete")
        Foundation.exit(74)
    }

    /// Exit codes, after BSD's sysexits: 64 bad arguments, 65 bad input data, 66 missing input,
    /// 69 a PostgreSQL server that cannot be reached, lost, or lacks PostGIS, 70 internal error, 71 too little memory for a load,
    /// 73 a store that cannot be created or written, 74 a disk full, an I/O error or a damaged store, 75 a store locked by another process
    /// (try again), 77 a PostgreSQL server that refused the user or password.
    package static func exitCode(for error: any Error) -> ExitCode {
        switch error {
        case let error as ImportError:
            switch error.code {
            case .cannotOpen: ExitCode(66)
            case .invalidOption: ExitCode(64)
            case .tooLarge: ExitCode(74)
            default: ExitCode(65)
            }
        case let error as StoreError:
            switch error.code {
            case .notFound: ExitCode(66)
            case .invalidArgument: ExitCode(64)
            case .readOnly: ExitCode(73)
            case .diskFull, .ioError, .damaged: ExitCode(74)
            case .busy: ExitCode(75)
            case .missingLibrary: ExitCode(70)
            case .outOfMemory: ExitCode(71)
            case .connectionFailed, .connectionLost, .missingExtension, .serverError: ExitCode(69)
            case .authenticationFailed: ExitCode(77)
            case .unsupported: ExitCode(64)
            default: ExitCode(65)
            }
        case is CRSError, is QueryError: ExitCode(64)
        case let error as ReleaseError:
            switch error.code {
            case .mostGone: ExitCode(65)
            case .unknownSource, .unknownRelease: ExitCode(66)
            case .unsupported: ExitCode(64)
            }
        case let error as AreaInputError: ExitCode(error.exitCode)
        default: ExitCode(70)
        }
    }

    /// Prints `error` as `wells: error: …` and returns the exit code to throw.
    package static func fail(_ error: any Error) -> ExitCode {
        Self.error("wells: error: \(describe(error))")
        return exitCode(for: error)
    }
}


/// A one-line progress bar on standard error, redrawn at most ten times a second and whenever its label changes.
package final class ProgressBar: Sendable {
    /// The label last drawn and when, so that redraws are rate-limited.
    private let drawn = Mutex((label: "", time: ContinuousClock.now - .seconds(1)))

    /// Shows `done` of `total`, each written by `unit`, such as "25.0 MB" or "110,000 wells".
    package func update(label: String, done: Int, total: Int, unit: (Int) -> String) {
        let now = ContinuousClock.now
        drawn.withLock { drawn in
            guard now - drawn.time > .milliseconds(100) || label != drawn.label else { return }
            drawn = (label, now)
            let fraction = total > 0 ? min(1, Double(done) / Double(total)) : 0
            let filled = Int(fraction * 30)
            let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: 30 - filled)
            Terminal.errorRaw("\r\u{1B}[2K\(label) \(bar) \(Int(fraction * 100))% \(unit(done)) of \(unit(total))")
        }
    }

    package func finish() {
        Terminal.errorRaw("\r\u{1B}[2K")
    }
}
