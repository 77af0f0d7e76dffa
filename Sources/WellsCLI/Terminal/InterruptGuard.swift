import Foundation
import Glibc
import Synchronization
import WellKit

/// SIGINT and SIGTERM during any command but `wells serve` (which shuts down gracefully): the
/// temporary files the command made removed (``TemporaryFiles``: a spool of standard input, a
/// rejects file or an output written beside its target, so the old file stays), a one-line
/// message, and exit 130 or 143.
///
/// A store needs nothing: a transaction that did not commit is rolled back by SQLite at the next
/// open, and an output is renamed into place only once whole. A load that created its store (and
/// that holds no committed load, its own or another process's) removes it, as a failed first
/// load's is (``armLoad(store:existedBefore:)``).
enum InterruptGuard {
    /// The pipe's end the signal handler writes the signal's number to.
    nonisolated(unsafe) private static var signalled: Int32 = -1
    /// Set once the load has committed: the store it made is then the user's.
    static let committed = Atomic<Bool>(false)
    /// The store a load is writing, and whether it existed before the load.
    private static let load = Mutex<(store: String, existedBefore: Bool)?>(nil)

    /// Handles SIGINT and SIGTERM for the rest of the process; ``Wells/run(_:root:)`` calls it
    /// before running any command but `serve`.
    ///
    /// The handler is installed before this returns (`signal(2)`), and only writes the signal's
    /// number to a pipe, which a thread of its own reads and acts on. (A dispatch signal source,
    /// used before, is registered later on libdispatch's manager thread, and a signal that came
    /// meanwhile was ignored: on a busy machine, a load signalled while it created its store
    /// went on and finished.)
    static func arm() {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        let readEnd = ends[0]
        signalled = ends[1]
        let names = [SIGINT: "SIGINT", SIGTERM: "SIGTERM"]
        Thread.detachNewThread {
            var number: UInt8 = 0
            while read(readEnd, &number, 1) != 1 {}
            let signal = Int32(number)
            // Not while this process is creating a store (its temporary file, the store being
            // opened): wait until that is done, then end holding the gate, so it cannot go on.
            // A creation that hangs (a dead network file system) holds the signal back 5 s at most.
            let deadline = ContinuousClock.now + .seconds(5)
            while ContinuousClock.now < deadline {
                WellStore.creationGate.withLockIfAvailable { _ in stop(names[signal] ?? "signal \(signal)", signal) }
                Thread.sleep(forTimeInterval: 0.002)
            }
            stop(names[signal] ?? "signal \(signal)", signal)
        }
        for number in [SIGINT, SIGTERM] {
            _ = signal(number) { number in
                var byte = UInt8(truncatingIfNeeded: number)
                _ = write(InterruptGuard.signalled, &byte, 1)
            }
        }
        // The command runs on this thread, and a process inherits its parent's blocked signals: a
        // parent that spawned `wells` from a thread blocking them (a test runner's, a dispatch
        // worker's) would leave both pending until the command ended.
        var handled = sigset_t()
        sigemptyset(&handled)
        for number in [SIGINT, SIGTERM] { sigaddset(&handled, number) }
        pthread_sigmask(SIG_UNBLOCK, &handled, nil)
    }

    /// Removes what the command leaves, says so, and exits `128 + number`.
    private static func stop(_ name: String, _ number: Int32) -> Never {
        TemporaryFiles.removeAll()
        Terminal.error("wells: interrupted by \(name): " + outcome())
        _exit(128 + number)
    }

    /// Tells the handler which store a load writes, so that a store the load created goes with it.
    static func armLoad(store: String, existedBefore: Bool) {
        load.withLock { $0 = (store, existedBefore) }
    }

    /// What the interrupted command leaves: for a load, the store's fate; else that nothing changed.
    private static func outcome() -> String {
        guard let (store, existedBefore) = load.withLock({ $0 }) else {
            return "stopped; nothing was changed and no partial output was left"
        }
        if committed.load(ordering: .acquiring) { return "the load had committed; the store holds its wells" }
        var removed = false
        if !existedBefore {
            OutputPaths.removeIfCreatedEmpty(store, existedBefore: false)
            removed = !FileManager.default.fileExists(atPath: store)
        }
        return "nothing was committed; " + (removed ? "the store the load created was removed" : "the store is as it was")
    }
}
