import ArgumentParser
import Foundation
import Glibc
import WellKit

/// Standard error, progress bars and the mapping of errors to exit codes.
enum Terminal {
    static var stderrIsTerminal: Bool { isatty(2) == 1 }

    static func error(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    /// Writes `text` to standard error as it is, without a line break.
    static func errorRaw(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }

    /// Exit codes, after BSD's sysexits: 64 bad arguments, 65 bad input data, 66 missing input, 70 internal error.
    static func exitCode(for error: any Error) -> ExitCode {
        switch error {
        case let error as ImportError: error.code == .cannotOpen ? ExitCode(66) : ExitCode(65)
        case let error as StoreError:
            switch error.code {
            case .notFound: ExitCode(66)
            case .invalidArgument: ExitCode(64)
            default: ExitCode(65)
            }
        case is CRSError: ExitCode(64)
        default: ExitCode(70)
        }
    }

    /// Prints `error` as `wells: error: …` and returns the exit code to throw.
    static func fail(_ error: any Error) -> ExitCode {
        Self.error("wells: error: \(error)")
        return exitCode(for: error)
    }
}

/// `244292` as `244,292`, for the summaries and page footers.
func grouped(_ number: Int) -> String {
    let digits = String(number.magnitude)
    var out = ""
    for (k, digit) in digits.enumerated() {
        if k > 0 && (digits.count - k) % 3 == 0 { out += "," }
        out.append(digit)
    }
    return (number < 0 ? "-" : "") + out
}

/// A one-line progress bar on standard error, redrawn at most ten times a second.
final class ProgressBar: @unchecked Sendable {
    private let label: String
    private var lastDraw = ContinuousClock.now - .seconds(1)
    private let lock = NSLock()

    init(label: String) { self.label = label }

    func update(done: Int, total: Int?) {
        lock.lock()
        defer { lock.unlock() }
        let now = ContinuousClock.now
        guard now - lastDraw > .milliseconds(100) else { return }
        lastDraw = now
        let megabytes = String(format: "%.1f", Double(done) / 1_048_576)
        if let total, total > 0 {
            let fraction = min(1, Double(done) / Double(total))
            let filled = Int(fraction * 30)
            let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: 30 - filled)
            Terminal.errorRaw("\r\u{1B}[2K\(label) \(bar) \(Int(fraction * 100))% \(megabytes)/\(String(format: "%.1f", Double(total) / 1_048_576)) MB")
        } else {
            Terminal.errorRaw("\r\u{1B}[2K\(label) \(megabytes) MB")
        }
    }

    func finish() {
        Terminal.errorRaw("\r\u{1B}[2K")
    }
}
