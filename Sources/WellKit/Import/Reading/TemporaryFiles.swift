import Foundation
import Synchronization

/// The temporary files a command has made and not yet removed or renamed into place: the spool of
/// a list read from standard input, a file transcoded from UTF-16, a rejects file or an output
/// written beside its target. A process stopped by SIGINT or SIGTERM removes them
/// (``removeAll()``) before it exits, so no litter stays in the temporary directory or beside
/// an output.
package enum TemporaryFiles {
    private static let paths = Mutex<Set<String>>([])

    /// Notes `path` as a temporary file to remove if the process is stopped.
    package static func track(_ path: String) {
        _ = paths.withLock { $0.insert(path) }
    }

    /// Forgets `path`: it has been removed, or renamed into place.
    package static func untrack(_ path: String) {
        _ = paths.withLock { $0.remove(path) }
    }

    /// Removes every tracked file; for a signal handler, just before the process exits.
    package static func removeAll() {
        for path in paths.withLock({ $0 }) { unlink(path) }
    }

    /// Calls `body` with a new path beside `target` (hidden, unique), tracked while `body` runs and
    /// removed afterwards unless `body` renamed it into place.
    package static func beside<R>(_ target: String, _ body: (String) throws -> R) rethrows -> R {
        let url = URL(fileURLWithPath: target)
        let temporary = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).tmp").path
        track(temporary)
        defer {
            unlink(temporary)
            untrack(temporary)
        }
        return try body(temporary)
    }
}
