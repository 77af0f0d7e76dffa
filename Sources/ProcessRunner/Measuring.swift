#if canImport(Glibc)
import Foundation
import Glibc
import Synchronization

/// A child's peak resident set as `wait4` reports it: what `wells-bench` measures of the programs it
/// races, and what swift-subprocess does not give (it reaps its children with `waitid`, which has no
/// `rusage`). The one place that spawns a child itself: `posix_spawn`, then `wait4`.
package enum Measuring {
    /// One run of a program measured from outside: its wall time and its peak resident set.
    package struct Run: Sendable {
        /// The exit status, or 128 + the signal that ended the child.
        package var status: Int32
        /// The signal that ended the child, if one did.
        package var signal: Int32?
        package var stdout: Data
        package var stderr: String
        /// Wall-clock seconds from `posix_spawn` to `wait4`, process start-up included.
        package var seconds: Double
        /// `ru_maxrss` of the child as `wait4` reports it, in bytes (Linux counts it in KiB).
        package var peakResidentBytes: Int

        /// Standard output as text.
        package var text: String { String(decoding: stdout, as: UTF8.self) }
    }

    /// Runs the program at `path` and measures it with `wait4`: wall time and peak resident set.
    ///
    /// Standard input is `/dev/null`, standard output a pipe read to its end before `wait4`, standard
    /// error an unlinked temporary file (so neither can fill up and stall the child). The child starts
    /// with no signal blocked and every signal at its default: a thread of Swift's pool blocks signals,
    /// and an interrupted benchmark ignores SIGINT and SIGTERM.
    ///
    /// Linux counts the resident set of the spawning process at `exec` into the child's `ru_maxrss`,
    /// so a child's peak is never reported below this process's own resident size. Before each spawn
    /// this process's high-water mark is reset to its current resident size (`/proc/self/clear_refs`),
    /// which keeps that floor as low as it can be; ``spawnFloor()`` measures it.
    ///
    /// After ``killRunning()``, no child starts, and a run that was waited for does not return: the
    /// caller's signal handler ends the process.
    ///
    /// - Throws: a ``CommandError`` when the program cannot start (a non-zero exit is a result).
    package static func run(_ path: String, _ arguments: [String]) throws -> Run {
        var output: [Int32] = [-1, -1]
        guard pipe(&output) == 0 else { throw CommandError("cannot create a pipe: \(String(cString: strerror(errno)))") }
        var template = Array((FileManager.default.temporaryDirectory.path + "/wells-bench-stderr-XXXXXX").utf8CString)
        let errorFile = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard errorFile >= 0 else {
            close(output[0]); close(output[1])
            throw CommandError("cannot create a temporary file: \(String(cString: strerror(errno)))")
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
            if running < 0 { return ECANCELED }
            let spawned = argv.withUnsafeBufferPointer { posix_spawn(&pid, path, &actions, &attributes, $0.baseAddress!, environ) }
            if spawned == 0 { running = pid }
            return spawned
        }
        close(output[1])
        guard spawned == 0 else {
            close(output[0])
            if spawned == ECANCELED { while true { pause() } }   // interrupted: the signal handler ends the process
            throw CommandError("cannot start \(path): \(String(cString: strerror(spawned)))")
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
        if running.withLock({ running in
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
        return Run(status: signal == 0 ? (status >> 8) & 0xff : 128 + signal, signal: signal == 0 ? nil : signal, stdout: stdout,
                   stderr: String(decoding: stderr, as: UTF8.self), seconds: elapsed.seconds,
                   peakResidentBytes: Int(usage.ru_maxrss) * 1024)
    }

    /// The child ``run(_:_:)`` is waiting for, 0 when none, or -1 once ``killRunning()`` has run.
    private static let running = Mutex<pid_t>(0)

    /// Kills the child ``run(_:_:)`` is waiting for, if any, when the benchmark is interrupted; no
    /// child starts after it, and ``run(_:_:)`` waits for the caller to end the process rather than report the kill.
    package static func killRunning() {
        running.withLock { pid in
            if pid > 0 { kill(pid, SIGKILL) }
            pid = -1
        }
    }

    /// The least peak resident set ``run(_:_:)`` reports: that of `true`, spawned the same way.
    package static func spawnFloor() throws -> Int {
        guard let path = Command.which("true") else { throw CommandError("true is not on PATH") }
        return try run(path, []).peakResidentBytes
    }

    /// Resets this process's peak resident set to its current one, when the kernel allows it (Linux 4.0 and later).
    private static func resetResidentHighWaterMark() {
        let file = open("/proc/self/clear_refs", O_WRONLY)
        guard file >= 0 else { return }
        _ = write(file, "5", 1)
        close(file)
    }
}

extension Command {
    /// Runs the command to its end as ``Measuring/run(_:_:)`` does, without swift-subprocess: for an
    /// `atexit` handler (a test cluster stopped when the tests end), which may run after
    /// swift-subprocess's own handlers have stopped the threads its runs need. Only
    /// ``executable`` and ``arguments`` count: the input is `/dev/null`, both outputs are captured.
    ///
    /// - Throws: a ``CommandError`` when the program cannot start.
    package func runAtExit() throws -> CommandResult {
        guard let path = Command.which(executable) else { throw CommandError("\(executable) is not installed or not on PATH") }
        let run = try Measuring.run(path, arguments)
        return CommandResult(status: run.status, signal: run.signal, stdout: run.stdout, stderr: Data(run.stderr.utf8), seconds: run.seconds)
    }
}
#endif
