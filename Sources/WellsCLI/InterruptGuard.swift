import Dispatch
import Foundation
import Glibc
import Synchronization

/// SIGINT and SIGTERM during `wells load`: a one-line message, and a store the load created (and
/// that holds no committed load, its own or another process's) removed, as a failed first load's
/// is; then exit 130 or 143. An existing store needs nothing: its transaction never committed, and
/// SQLite rolls the journal back at the next open.
enum InterruptGuard {
    nonisolated(unsafe) private static var sources: [DispatchSourceSignal] = []
    /// Set once the load has committed: the store it made is then the user's.
    static let committed = Atomic<Bool>(false)

    static func arm(store: String, existedBefore: Bool) {
        for (number, name) in [(SIGINT, "SIGINT"), (SIGTERM, "SIGTERM")] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                var removed = false
                if !existedBefore && !committed.load(ordering: .acquiring) {
                    OutputPaths.removeIfCreatedEmpty(store, existedBefore: false)
                    removed = !FileManager.default.fileExists(atPath: store)
                }
                Terminal.error("wells: interrupted by \(name): nothing was committed; "
                               + (removed ? "the store the load created was removed" : "the store is as it was"))
                _exit(128 + number)
            }
            source.resume()
            sources.append(source)
        }
    }
}
