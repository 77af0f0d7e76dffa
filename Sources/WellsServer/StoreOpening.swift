import Foundation
import WellKit

// What ``StoreReaders`` reads through and tags answers with: the connections of one opening of the
// store, the identity of its file, and the version an answer is made from.

/// The connections to the store as opened once: at the start, and again each time another file
/// takes the store's path. Work holds the opening it started with until it ends, then the old
/// connections close.
final class Opening: Sendable {
    /// Counts the openings of this run, from 0.
    let number: Int
    /// The file the connections read; nil for a PostgreSQL store.
    let identity: FileIdentity?
    /// Connection `k` serves lane `k`.
    let stores: [WellStore]
    /// The connection the change token is read through (PostgreSQL's token is a query): not a
    /// lane's, so that the watchdog's interrupt of an overdue token read stops no lane's query.
    /// Nil when it cannot be opened: responses then carry no ETag.
    let tokenStore: WellStore?

    /// - Throws: ``StoreError`` when `path` is missing or holds no WellKit store.
    init(number: Int, path: String, count: Int, timeout: Duration, identity: FileIdentity?) throws {
        self.number = number
        self.identity = identity
        // The watchdog's interrupt stops a PostgreSQL query by closing its connection; the
        // server's statement_timeout stops the statement there too, which the closed connection's
        // backend would otherwise run to its end.
        func open() throws -> WellStore {
            let store = try WellStore(path: path, mode: .readOnly)
            try store.stopStatements(after: timeout)
            return store
        }
        stores = try (0..<count).map { _ in try open() }
        tokenStore = try? open()
    }
}

/// A file as `stat` identifies it, whatever its name: its device and inode. A store replaced by
/// `mv` has another inode at the same path.
struct FileIdentity: Hashable, Sendable {
    let device: UInt64
    let inode: UInt64

    /// The identity of the file at `path` (following links), or nil when there is none (`errno` says why).
    init?(path: String) {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        device = UInt64(status.st_dev)
        inode = UInt64(status.st_ino)
    }

    /// `device.inode` in base 36, as ETags carry it.
    var text: String { String(device, radix: 36) + "." + String(inode, radix: 36) }
}

/// What a response is made from: one opening of the store (its file, for a file store) and the
/// change token read from it. ETags and the ``ResponseCache`` are made of all three, because a
/// token alone (SQLite's `data_version`) may repeat on the file that replaced the store.
struct StoreVersion: Hashable, Sendable {
    /// ``Opening/number``.
    let opening: Int
    /// ``FileIdentity/text``, or empty for a PostgreSQL store.
    let file: String
    let token: Int64

    /// `opening.device.inode-token` (`opening-token` for PostgreSQL), for ETags.
    var tag: String { file.isEmpty ? "\(opening)-\(token)" : "\(opening).\(file)-\(token)" }
}
