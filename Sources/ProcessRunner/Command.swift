import Foundation
import Subprocess
#if canImport(System)
import System
#else
import SystemPackage
#endif
#if canImport(Glibc)
import Glibc
#endif

/// A program to run, for the tests and `wells-bench`: the one way they start a child process.
///
/// Every child starts through swift-subprocess, which on Linux closes every descriptor of this
/// process but the three it gives the child (`posix_spawn_file_actions_addclosefrom_np(3)` in
/// `Configuration.withSpawnAttributes`, or `close_range` in `_subprocess_fork_exec`), and starts
/// it with no signal blocked and every handler at its default (`_subprocess_spawnattr_reset_signals`).
/// Both matter here: the tests start children from many threads at once, and a server kept for a
/// suite that inherited the pipes of another test's command kept that command from ever ending;
/// a thread of Swift's pool blocks signals, and `pgbench -T` (SIGALRM) or `pg_ctl` would inherit that.
///
/// ``run()`` runs the command to its end, reading its standard output and error at once (a child
/// that fills one pipe while this process waits on the other never stalls); ``start()`` starts one
/// that the caller keeps (``RunningCommand``). The peak memory `wait4` reports, which
/// swift-subprocess does not give, is ``Measuring``'s, as is ``runAtExit()``.
package struct Command: Sendable {
    /// The child's standard input.
    package enum Input: Sendable {
        /// `/dev/null`.
        case none
        /// These bytes, then the end of the input.
        case data(Data)
        /// The file at this path, read from its start.
        case file(String)
        /// A pipe this process holds open until ``RunningCommand/closeInput()`` (``start()`` only).
        case keptOpen
    }

    /// Where the child's standard output goes.
    package enum Output: Sendable {
        /// Into ``CommandResult/stdout``.
        case capture
        /// `/dev/null`.
        case discard
        /// The file (or device) at this path, opened for writing, as the shell's `>` would without truncating.
        case file(String)
    }

    /// Where the child's standard error goes.
    package enum Errors: Sendable {
        /// Into ``CommandResult/stderr``.
        case capture
        /// `/dev/null`.
        case discard
        /// With standard output, interleaved as written (the shell's `2>&1`).
        case intoOutput
    }

    /// A path, or a name looked up on `PATH`.
    package var executable: String
    /// The arguments, without the program's name.
    package var arguments: [String]
    /// Variables set for the child, over this process's environment.
    package var environment: [String: String]
    /// The child's working directory; nil: this process's.
    package var workingDirectory: String?
    package var input: Input
    package var output: Output
    package var errors: Errors
    /// After this long, the child is sent SIGTERM (a command that hangs fails rather than hanging the run).
    package var timeout: Duration?

    package init(_ executable: String, _ arguments: [String] = [], environment: [String: String] = [:], workingDirectory: String? = nil,
                 input: Input = .none, output: Output = .capture, errors: Errors = .capture, timeout: Duration? = nil) {
        self.executable = executable
        self.arguments = arguments
        self.environment = environment
        self.workingDirectory = workingDirectory
        self.input = input
        self.output = output
        self.errors = errors
        self.timeout = timeout
    }

    /// The full path of `program`: itself when it holds a slash (if it is executable), else the first
    /// executable of that name in a folder of `PATH`.
    package static func which(_ program: String) -> String? {
        if program.contains("/") { return FileManager.default.isExecutableFile(atPath: program) ? program : nil }
        for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            let candidate = "\(directory)/\(program)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// Runs the command to its end and returns how it ended, with its output.
    ///
    /// - Throws: a ``CommandError`` when it cannot start (a non-zero exit is a result, not an error).
    package func run() async throws -> CommandResult {
        let start = ContinuousClock.now
        let capture = Captured()
        let timeout = timeout
        let status = try await launch { _, streams, send in
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await capture.read(streams) }
                if let timeout {
                    group.addTask {
                        try await Task.sleep(for: timeout)
                        send(SIGTERM)
                    }
                }
                // The output is read to its end, whether the child ended or not; the timer is then not needed.
                try await group.next()
                group.cancelAll()
                while (try? await group.next()) != nil {}
            }
        }
        return CommandResult(status, stdout: capture.output, stderr: capture.errors, seconds: (ContinuousClock.now - start).seconds)
    }

    /// ``run()`` for synchronous code: the calling thread waits while the command runs on a thread of
    /// its own (``waitFor(_:)``).
    package func runWaiting() throws -> CommandResult {
        try waitFor { try await self.run() }
    }

    /// Runs the command in swift-subprocess's `run`, with `body`: it gets the child's id, the streams
    /// the command captures or keeps open, and a way to signal the child; the child is reaped after it.
    func launch(_ body: @escaping @Sendable (pid_t, Streams, _ send: @escaping @Sendable (Int32) -> Void) async throws -> Void) async throws -> TerminationStatus {
        var update: [Environment.Key: String?] = [:]
        for (key, value) in environment { update[Environment.Key(rawValue: key)!] = value }
        let configuration = Configuration(
            executable: executable.contains("/") ? .path(FilePath(executable)) : .name(executable),
            arguments: Arguments(arguments),
            environment: .inherit.updating(update),
            workingDirectory: workingDirectory.map { FilePath($0) })
        let input: any InputProtocol
        switch self.input {
        case .none: input = .none
        case .data(let data):
            Self.ignoreBrokenPipes
            input = .data(data)
        case .file(let path): input = .fileDescriptor(try Self.open(path, .readOnly), closeAfterSpawningProcess: true)
        case .keptOpen:
            Self.ignoreBrokenPipes
            input = .inputWriter
        }
        let output: any OutputProtocol
        switch self.output {
        case .capture: output = .sequence
        case .discard: output = .discarded
        case .file(let path): output = .fileDescriptor(try Self.open(path, .writeOnly), closeAfterSpawningProcess: true)
        }
        let errors: any ErrorOutputProtocol
        switch self.errors {
        case .capture: errors = .sequence
        case .discard: errors = .discarded
        case .intoOutput: errors = .combinedWithOutput
        }
        do {
            return try await Self.launch(configuration, input: input, output: output, errors: errors, body)
        } catch let error as SubprocessError {
            throw CommandError("cannot run \(executable): \(error)")
        }
    }

    private static func launch<I: InputProtocol, O: OutputProtocol, E: ErrorOutputProtocol>(
        _ configuration: Configuration, input: I, output: O, errors: E,
        _ body: @Sendable (pid_t, Streams, _ send: @escaping @Sendable (Int32) -> Void) async throws -> Void
    ) async throws -> TerminationStatus {
        try await Subprocess.run(configuration, input: input, output: output, error: errors) { execution in
            let streams = Streams(output: (execution as? Execution<I, SequenceOutput, E>)?.standardOutput,
                                  errors: (execution as? Execution<I, O, SequenceOutput>)?.standardError,
                                  input: (execution as? Execution<CustomWriteInput, O, E>)?.standardInputWriter)
            try await body(execution.processIdentifier.value, streams) { signal in
                try? execution.send(signal: Signal(rawValue: signal))
            }
        }.terminationStatus
    }

    /// A descriptor for the child, closed on exec in this process (swift-subprocess gives it to the child as 0, 1 or 2).
    private static func open(_ path: String, _ mode: FileDescriptor.AccessMode) throws -> FileDescriptor {
        do {
            return try FileDescriptor.open(FilePath(path), mode, options: [.closeOnExec])
        } catch {
            throw CommandError("cannot open \(path): \(error)")
        }
    }

    /// A child that exits before reading all its input makes the write fail (EPIPE) rather than end this
    /// process with SIGPIPE. The child's own SIGPIPE is at its default, as every signal is.
    private static let ignoreBrokenPipes: Void = { _ = signal(SIGPIPE, SIG_IGN) }()
}

/// The child's streams that a body reads or writes: those the command captures or keeps open.
struct Streams: Sendable {
    var output: SubprocessOutputSequence?
    var errors: SubprocessOutputSequence?
    var input: StandardInputWriter?
}

/// How a command ended, and what it wrote.
package struct CommandResult: Sendable {
    /// The exit status, or 128 + the signal that ended the child (as a shell reports it).
    package var status: Int32
    /// The signal that ended the child, if one did.
    package var signal: Int32?
    /// Standard output, when captured (with standard error when that went ``Command/Errors/intoOutput``).
    package var stdout: Data
    /// Standard error, when captured.
    package var stderr: Data
    /// Wall-clock seconds from before the start to after the child was reaped.
    package var seconds: Double

    init(_ termination: TerminationStatus, stdout: Data, stderr: Data, seconds: Double) {
        switch termination {
        case .exited(let code): self.init(status: code, signal: nil, stdout: stdout, stderr: stderr, seconds: seconds)
        case .signaled(let number): self.init(status: 128 + number, signal: number, stdout: stdout, stderr: stderr, seconds: seconds)
        }
    }

    init(status: Int32, signal: Int32?, stdout: Data, stderr: Data, seconds: Double) {
        self.status = status
        self.signal = signal
        self.stdout = stdout
        self.stderr = stderr
        self.seconds = seconds
    }

    /// Standard output as text.
    package var out: String { String(decoding: stdout, as: UTF8.self) }
    /// Standard error as text.
    package var err: String { String(decoding: stderr, as: UTF8.self) }
    /// Whether the child exited (rather than died of a signal) with status 0.
    package var exitedWithZero: Bool { signal == nil && status == 0 }
}

/// A command that could not start: its program missing, a file of its input or output not there.
package struct CommandError: Error, CustomStringConvertible {
    package var description: String
    init(_ description: String) { self.description = description }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) * 1e-18 }
}
