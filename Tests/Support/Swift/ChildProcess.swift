import Dispatch
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A child process that holds none of this process's file descriptors but the three it is given.
///
/// The tests start children from many threads at once, and a child inherits every descriptor
/// open in this process at that moment: the pipes and the socket Foundation's `Process` makes for
/// a command another test is starting included. A short-lived child keeps them a moment; a server
/// kept for a suite (``ServedWells``) kept them for good, so the other test never saw the end of
/// its command's output, nor its exit: CI hung with a `wells` zombie whose standard error a
/// `wells serve` started in the same instant still held open. Servers therefore start here, with
/// every other descriptor closed in the child (`posix_spawn_file_actions_addclosefrom_np`, glibc
/// 2.34), and with no signal blocked or ignored, as a shell would start them.
package final class ChildProcess: Sendable {
    package let processIdentifier: pid_t
    /// The child's wait status, once reaped.
    private final class Status: Sendable { let value = Mutex<Int32?>(nil) }
    private let status = Status()
    private let exited = DispatchSemaphore(value: 0)

    /// Starts `path` with `arguments` (without the program's name), its standard input, output and
    /// error the descriptors given, and nothing else open.
    package init(_ path: String, _ arguments: [String], stdin: Int32, stdout: Int32, stderr: Int32) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, stdin, 0)
        posix_spawn_file_actions_adddup2(&actions, stdout, 1)
        posix_spawn_file_actions_adddup2(&actions, stderr, 2)
        try Self.closeOtherDescriptors(&actions)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        Self.resetSignals(&attributes)
        let argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let spawned = argv.withUnsafeBufferPointer { posix_spawn(&pid, path, &actions, &attributes, $0.baseAddress!, environ) }
        guard spawned == 0 else {
            throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: "cannot start \(path): \(String(cString: strerror(spawned)))"])
        }
        processIdentifier = pid
        // Reaped on a thread of its own, so that the child's exit status waits for ``waitUntilExit()``.
        Thread.detachNewThread { [status, exited, pid] in
            var code: Int32 = 0
            while waitpid(pid, &code, 0) < 0 && errno == EINTR {}
            status.value.withLock { $0 = code }
            exited.signal()
        }
    }

    /// Waits for the child to exit.
    package func waitUntilExit() {
        exited.wait()
        exited.signal()
    }

    /// After ``waitUntilExit()``: whether the child exited (rather than died of a signal) with status 0.
    package var exitedWithZero: Bool {
        status.value.withLock { $0.map { $0 & 0x7f == 0 && ($0 >> 8) & 0xff == 0 } ?? false }
    }

    /// A pipe whose two ends close on exec: no child inherits them unless given one as its standard
    /// input, output or error (where `dup2` clears the flag). Set right after `pipe`: glibc's
    /// `pipe2` is not in its Swift module either.
    package static func pipe() throws -> (read: Int32, write: Int32) {
        var ends: [Int32] = [0, 0]
        guard Glibc.pipe(&ends) == 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "pipe: \(String(cString: strerror(errno)))"])
        }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        return (ends[0], ends[1])
    }

    /// Closes every descriptor from 3 up in the child: `posix_spawn_file_actions_addclosefrom_np`,
    /// which glibc has had since 2.34 but its Swift module does not declare.
    package static func closeOtherDescriptors(_ actions: inout posix_spawn_file_actions_t) throws {
        typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else {
            throw CocoaError(.featureUnsupported, userInfo: [NSLocalizedDescriptionKey: "glibc 2.34 or later is needed: no posix_spawn_file_actions_addclosefrom_np"])
        }
        _ = unsafeBitCast(symbol, to: CloseFrom.self)(&actions, 3)
    }

    /// The child starts with no signal blocked and every handler at its default: a thread of
    /// Swift's pool may block signals, and a child inherits the mask.
    package static func resetSignals(_ attributes: inout posix_spawnattr_t) {
        var none = sigset_t(), all = sigset_t()
        sigemptyset(&none)
        sigfillset(&all)
        sigdelset(&all, SIGKILL)
        sigdelset(&all, SIGSTOP)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
    }
}
