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

#if canImport(Glibc)
import Glibc
import Synchronization

extension Subprocess {
    /// One run of a program measured from outside: its wall time and its peak resident set.
    struct Measured {
        var status: Int32
        var stdout: Data
        var stderr: String
        /// Wall-clock seconds from `posix_spawn` to `wait4`, process start-up included.
        var seconds: Double
        /// `ru_maxrss` of the child as `wait4` reports it, in bytes (Linux counts it in KiB).
        var peakResidentBytes: Int

        /// Standard output as text.
        var text: String { String(decoding: stdout, as: UTF8.self) }
    }

    /// Runs `program` with `posix_spawn` and measures it with `wait4`: wall time and peak resident set.
    ///
    /// Standard input is `/dev/null`, standard output a pipe read to its end before `wait4`, standard
    /// error an unlinked temporary file (so neither can fill up and stall the child).
    ///
    /// Linux counts the resident set of the spawning process at `exec` into the child's `ru_maxrss`,
    /// so a child's peak is never reported below this process's own resident size. Before each spawn
    /// this process's high-water mark is reset to its current resident size (`/proc/self/clear_refs`),
    /// which keeps that floor as low as it can be; ``spawnFloor()`` measures it.
    ///
    /// - Throws: a ``StoreError`` when the program cannot start or exits non-zero.
    @discardableResult
    static func measure(_ program: String, _ arguments: [String]) throws -> Measured {
        try spawn(program, arguments, interruptible: true)
    }

    /// Runs a tool to its end, as ``measure(_:_:)`` does but also after an interruption (stopping a
    /// throwaway server is then what must run). Not ``run(_:_:stdin:)``: Foundation's `Process` was
    /// seen to miss the exit of a script whose server outlives it, and `waitUntilExit` waited forever.
    ///
    /// - Throws: a ``StoreError`` when the program cannot start or exits non-zero.
    @discardableResult
    static func capture(_ program: String, _ arguments: [String]) throws -> Measured {
        try spawn(program, arguments, interruptible: false)
    }

    /// `posix_spawn` and `wait4`; an `interruptible` child is the one ``killRunning()`` kills.
    private static func spawn(_ program: String, _ arguments: [String], interruptible: Bool) throws -> Measured {
        guard let path = which(program) else {
            throw StoreError(.notFound, "\(program) is not installed or not on PATH")
        }
        var output: [Int32] = [-1, -1]
        guard pipe(&output) == 0 else { throw StoreError(.ioError, "cannot create a pipe: \(String(cString: strerror(errno)))") }
        var template = Array((FileManager.default.temporaryDirectory.path + "/wells-bench-stderr-XXXXXX").utf8CString)
        let errorFile = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard errorFile >= 0 else {
            close(output[0]); close(output[1])
            throw StoreError(.ioError, "cannot create a temporary file: \(String(cString: strerror(errno)))")
        }
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        defer { close(errorFile) }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, output[1], 1)
        posix_spawn_file_actions_adddup2(&actions, errorFile, 2)
        posix_spawn_file_actions_addclose(&actions, output[0])
        posix_spawn_file_actions_addclose(&actions, output[1])
        posix_spawn_file_actions_addclose(&actions, errorFile)

        // The child starts with no signal blocked and every signal at its default: a thread of Swift's
        // pool blocks signals, and an interrupted run ignores SIGINT and SIGTERM; inherited, `pgbench -T`
        // (SIGALRM) would never stop.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t(), all = sigset_t()
        sigemptyset(&none)
        sigfillset(&all)
        sigdelset(&all, SIGKILL)
        sigdelset(&all, SIGSTOP)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }

        resetResidentHighWaterMark()
        var pid: pid_t = 0
        let start = ContinuousClock.now
        let spawned = running.withLock { running in
            if running < 0 && interruptible { return ECANCELED }
            let spawned = argv.withUnsafeBufferPointer { posix_spawn(&pid, path, &actions, &attributes, $0.baseAddress!, environ) }
            if spawned == 0 && interruptible { running = pid }
            return spawned
        }
        close(output[1])
        guard spawned == 0 else {
            close(output[0])
            if spawned == ECANCELED { while true { pause() } }   // interrupted: the signal handler ends the process
            throw StoreError(.notFound, "cannot start \(path): \(String(cString: strerror(spawned)))")
        }
        var stdout = Data()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(output[0], $0.baseAddress, $0.count) }
            if count > 0 { stdout.append(buffer, count: count) } else if count == 0 || errno != EINTR { break }
        }
        close(output[0])
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
        let elapsed = ContinuousClock.now - start
        if interruptible, running.withLock({ running in
            defer { if running > 0 { running = 0 } }
            return running < 0
        }) {
            while true { pause() }   // interrupted: the signal handler ends the process
        }

        var stderr = Data()
        lseek(errorFile, 0, SEEK_SET)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(errorFile, $0.baseAddress, $0.count) }
            if count > 0 { stderr.append(buffer, count: count) } else if count == 0 || errno != EINTR { break }
        }
        // WIFEXITED and WEXITSTATUS are macros Swift does not import: the low 7 bits are the signal, if any.
        let signal = status & 0x7f
        let result = Measured(status: signal == 0 ? (status >> 8) & 0xff : 128 + signal, stdout: stdout,
                              stderr: String(decoding: stderr, as: UTF8.self), seconds: elapsed.seconds,
                              peakResidentBytes: Int(usage.ru_maxrss) * 1024)
        guard result.status == 0 else {
            let how = signal == 0 ? "exited \(result.status)" : "was killed by signal \(signal)"
            throw StoreError(.invalidArgument, "\(program) \(arguments.joined(separator: " ")) \(how): \(result.stderr.suffix(500))")
        }
        return result
    }

    /// The child ``measure(_:_:)`` is waiting for, 0 when none, or -1 once ``killRunning()`` has run.
    private static let running = Mutex<pid_t>(0)

    /// Kills the child ``measure(_:_:)`` is waiting for, if any, when the benchmark is interrupted; no
    /// child starts after it, and ``measure(_:_:)`` waits for the caller to end the process rather than report the kill.
    static func killRunning() {
        running.withLock { pid in
            if pid > 0 { kill(pid, SIGKILL) }
            pid = -1
        }
    }

    /// The least peak resident set ``measure(_:_:)`` reports: that of `true`, spawned the same way.
    static func spawnFloor() throws -> Int {
        try measure("true", []).peakResidentBytes
    }

    /// Resets this process's peak resident set to its current one, when the kernel allows it (Linux 4.0 and later).
    private static func resetResidentHighWaterMark() {
        let file = open("/proc/self/clear_refs", O_WRONLY)
        guard file >= 0 else { return }
        _ = write(file, "5", 1)
        close(file)
    }

    /// The executable named `name` in the folder of this one (`/proc/self/exe`), such as the `wells` built beside `wells-bench`.
    static func sibling(_ name: String) -> String {
        URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent().appendingPathComponent(name).path
    }
}
#endif
