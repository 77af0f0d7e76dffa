import Foundation
import WellKit

/// Runs another program and captures its output, for the benchmarks' reference tools.
enum Subprocess {
    struct Output {
        var status: Int32
        var stdout: String
        var stderr: String
        var seconds: Double
    }

    /// Runs `program` (a path, or a name looked up on PATH) and waits for it.
    ///
    /// - Throws: a ``StoreError`` when the program cannot start or exits non-zero.
    @discardableResult
    static func run(_ program: String, _ arguments: [String], stdin: String? = nil) throws -> Output {
        guard let path = which(program) else {
            throw StoreError(.notFound, "\(program) is not installed or not on PATH")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let out = Pipe(), err = Pipe(), input = Pipe()
        process.standardOutput = out
        process.standardError = err
        if stdin != nil { process.standardInput = input }
        let start = ContinuousClock.now
        try process.run()
        if let stdin {
            input.fileHandleForWriting.write(Data(stdin.utf8))
            try input.fileHandleForWriting.close()
        }
        let stdoutData = out.fileHandleForReading.readDataToEndOfFile()
        let stderrData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let elapsed = ContinuousClock.now - start
        let result = Output(status: process.terminationStatus, stdout: String(decoding: stdoutData, as: UTF8.self),
                            stderr: String(decoding: stderrData, as: UTF8.self),
                            seconds: elapsed.seconds)
        guard result.status == 0 else {
            throw StoreError(.invalidArgument, "\(program) \(arguments.joined(separator: " ")) failed (\(result.status)): \(result.stderr.prefix(500))")
        }
        return result
    }

    /// The full path of `program`, searching PATH when it has no slash.
    static func which(_ program: String) -> String? {
        if program.contains("/") { return FileManager.default.isExecutableFile(atPath: program) ? program : nil }
        for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            let candidate = "\(directory)/\(program)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }
}
