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
    /// Set once the load's transaction may be committing (``LoadProgress/Phase/indexing`` from step 2).
    static let committing = Atomic<Bool>(false)
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
            if signal == SIGBUS { shrank() }
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
            _ = signal(number) { InterruptGuard.handOver($0) }
        }
        // The command runs on this thread, and a process inherits its parent's blocked signals: a
        // parent that spawned `wells` from a thread blocking them (a test runner's, a dispatch
        // worker's) would leave both pending until the command ended.
        var handled = sigset_t()
        sigemptyset(&handled)
        for number in [SIGINT, SIGTERM] { sigaddset(&handled, number) }
        pthread_sigmask(SIG_UNBLOCK, &handled, nil)
    }

    /// Hands signal `number` to the handler's thread, all a signal handler does; whether it could
    /// (not before ``arm()``).
    @discardableResult
    static func handOver(_ number: Int32) -> Bool {
        var byte = UInt8(truncatingIfNeeded: number)
        return signalled >= 0 && write(signalled, &byte, 1) == 1
    }

    /// A load's mapped input lost pages (``BusErrorGuard``): removes what the load leaves, says so
    /// with the file's name, and exits 65.
    private static func shrank() -> Never {
        TemporaryFiles.removeAll()
        Terminal.error("wells: error: \(BusErrorGuard.file): the file shrank while it was being read (another program truncated or rewrote it); "
                       + "the load stopped: \(outcome()); load the file again once it is complete")
        _exit(65)
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

    /// Whether this process is writing the first load into `store` through a rollback journal
    /// (``SQLiteBulkWrite``), and has not begun to commit it: the journal exists, and no other
    /// process holds any of SQLite's locks on the file, so the exclusive lock the load holds from
    /// its start to its end is this process's own. What the store holds for any other connection
    /// is then the empty store the command made (SQLite writes the file only after the journal),
    /// which goes with the load; a connection of this process could not say so, since it would
    /// wait for that lock.
    ///
    /// Locks are read with `F_GETLK`, which reports only another process's: SQLite's lock bytes
    /// are the pending, reserved and 510 shared bytes from offset 2^30.
    private static func holdsFirstLoad(_ store: String) -> Bool {
        guard !committing.load(ordering: .acquiring), access(store + "-journal", F_OK) == 0 else { return false }
        let file = open(store, O_RDONLY | O_CLOEXEC)
        guard file >= 0 else { return false }
        defer { close(file) }
        var lock = flock()
        lock.l_type = Int16(F_WRLCK)
        lock.l_whence = Int16(SEEK_SET)
        lock.l_start = 0x4000_0000
        lock.l_len = 512
        return fcntl(file, F_GETLK, &lock) == 0 && lock.l_type == Int16(F_UNLCK)
    }

    /// What the interrupted command leaves: for a load, the store's fate; else that nothing changed.
    private static func outcome() -> String {
        guard let (store, existedBefore) = load.withLock({ $0 }) else {
            return "stopped; nothing was changed and no partial output was left"
        }
        if committed.load(ordering: .acquiring) { return "the load had committed; the store holds its wells" }
        var removed = false
        if !existedBefore {
            if holdsFirstLoad(store) {
                for file in OutputPaths.storeFiles(store) { unlink(file) }
            } else {
                OutputPaths.removeIfCreatedEmpty(store, existedBefore: false)
            }
            removed = !FileManager.default.fileExists(atPath: store)
        }
        return "nothing was committed; " + (removed ? "the store the load created was removed" : "the store is as it was")
    }
}
