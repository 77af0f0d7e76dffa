import Foundation
import ProcessRunner
import WellKit

/// The programs the benchmarks run, through ProcessRunner (the tests' runner too): the reference
/// tools, `wells` itself, servers. A program that is missing, cannot start or exits non-zero is a
/// ``StoreError``, which `wells-bench` reports as it reports its own.
enum Tools {
    /// The full path of `program`, searching PATH when it has no slash.
    static func which(_ program: String) -> String? {
        Command.which(program)
    }

    /// The executable named `name` in the folder of this one (`/proc/self/exe`), such as the `wells` built beside `wells-bench`.
    static func sibling(_ name: String) -> String {
        URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent().appendingPathComponent(name).path
    }

    /// Runs `program` (a path, or a name looked up on PATH) to its end, with `stdin` as its input.
    @discardableResult
    static func run(_ program: String, _ arguments: [String], stdin: String? = nil) async throws -> CommandResult {
        let command = try Self.command(program, arguments, stdin: stdin)
        return try checked(program, arguments, try await mapped { try await command.run() })
    }

    /// ``run(_:_:stdin:)`` for synchronous code off Swift's cooperative pool (``offThePool(_:)``, or a
    /// signal handler's queue).
    @discardableResult
    static func runWaiting(_ program: String, _ arguments: [String], stdin: String? = nil) throws -> CommandResult {
        let command = try Self.command(program, arguments, stdin: stdin)
        return try checked(program, arguments, try mapped { try command.runWaiting() })
    }

    /// Runs `program` measured from outside (``Measuring``): wall time and peak resident set, from
    /// the spawn to `wait4`; the child ``killRunning()`` kills.
    @discardableResult
    static func measure(_ program: String, _ arguments: [String]) throws -> Measuring.Run {
        guard let path = which(program) else { throw StoreError(.notFound, "\(program) is not installed or not on PATH") }
        let run = try mapped { try Measuring.run(path, arguments) }
        if run.status != 0 { throw failure(program, arguments, status: run.status, signal: run.signal, stderr: run.stderr) }
        return run
    }

    /// The least peak resident set ``measure(_:_:)`` reports (``Measuring/spawnFloor()``).
    static func spawnFloor() throws -> Int {
        try mapped { try Measuring.spawnFloor() }
    }

    /// Kills the child ``measure(_:_:)`` is waiting for, when the benchmark is interrupted (``Measuring/killRunning()``).
    static func killRunning() {
        Measuring.killRunning()
    }

    private static func command(_ program: String, _ arguments: [String], stdin: String?) throws -> Command {
        guard let path = which(program) else { throw StoreError(.notFound, "\(program) is not installed or not on PATH") }
        return Command(path, arguments, input: stdin.map { .data(Data($0.utf8)) } ?? .none)
    }

    private static func checked(_ program: String, _ arguments: [String], _ result: CommandResult) throws -> CommandResult {
        if result.status != 0 { throw failure(program, arguments, status: result.status, signal: result.signal, stderr: result.err) }
        return result
    }

    private static func failure(_ program: String, _ arguments: [String], status: Int32, signal: Int32?, stderr: String) -> StoreError {
        let how = signal.map { "was killed by signal \($0)" } ?? "exited \(status)"
        return StoreError(.invalidArgument, "\(program) \(arguments.joined(separator: " ")) \(how): \(stderr.suffix(500))")
    }

    /// `body`, its ``CommandError`` (a program that cannot start) as a ``StoreError``.
    private static func mapped<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch let error as CommandError { throw StoreError(.notFound, error.description) }
    }

    private static func mapped<T>(_ body: () async throws -> T) async throws -> T {
        do { return try await body() } catch let error as CommandError { throw StoreError(.notFound, error.description) }
    }
}
