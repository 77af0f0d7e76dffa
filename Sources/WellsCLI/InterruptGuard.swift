import Dispatch
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
    nonisolated(unsafe) private static var sources: [DispatchSourceSignal] = []
    /// Set once the load has committed: the store it made is then the user's.
    static let committed = Atomic<Bool>(false)
    /// The store a load is writing, and whether it existed before the load.
    private static let load = Mutex<(store: String, existedBefore: Bool)?>(nil)

    /// Handles SIGINT and SIGTERM for the rest of the process; ``Wells/run(_:root:)`` calls it
    /// before running any command but `serve`.
    static func arm() {
        for (number, name) in [(SIGINT, "SIGINT"), (SIGTERM, "SIGTERM")] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                TemporaryFiles.removeAll()
                Terminal.error("wells: interrupted by \(name): " + outcome())
                _exit(128 + number)
            }
            source.resume()
            sources.append(source)
        }
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
