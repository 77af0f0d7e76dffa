import Foundation

/// Releases of a well list: a load of the complete current list of a source
/// (``LoadOptions/release``), and what changed from one release to another.
///
/// For example:
///
/// ```swift
/// var options = LoadOptions()
/// options.release = ReleaseOptions(source: "co-orphans")
/// let may = try store.load(csvAt: "co-orphans-2026-05.csv", options: options)
/// let june = try store.load(csvAt: "co-orphans-2026-06.csv", options: options)
/// print(june.release!.summary.gone, "gone since release", may.release!.number)
/// for change in try store.changes(ChangeQuery(source: "co-orphans")).changes where change.kind == .changed {
///     print(change.identifier, change.field!, change.old ?? "", "→", change.new ?? "")
/// }
/// ```
///
/// A release's wells absent from the next are gone: they leave the live tables, so queries no
/// longer find them, and their last values stay with the change (`history(of:)`). A well that
/// comes back is `back`. Releases are kept by SQLite stores; a PostgreSQL store refuses
/// ``LoadOptions/release`` with ``ReleaseError/Code/unsupported``.
extension WellStore {
    /// The releases of `source`, or of every source, in source and release order.
    public func releases(of source: String? = nil) throws -> [WellRelease] {
        try engine.releases(source: source)
    }

    /// The changes of a source between two of its releases (by default its last two), one well's
    /// changes over several releases taken together (a field's first old value against its last
    /// new one), in identifier order.
    ///
    /// - Throws: ``ReleaseError`` for a source or release the store does not have.
    public func changes(_ query: ChangeQuery = ChangeQuery()) throws -> ReleaseChanges {
        try engine.changes(query)
    }

    /// The changes of a source since `date`: from its last release loaded before then.
    public func changes(since date: Date, source: String? = nil) throws -> ReleaseChanges {
        var query = ChangeQuery(source: source)
        query.since = date
        return try engine.changes(query)
    }

    /// Each release's values of the well `identifier` (gone wells too, and under the identifiers
    /// it had before a re-spelling), in release order; empty when no release listed it.
    public func history(of identifier: String) throws -> [WellHistoryEntry] {
        try engine.history(of: identifier)
    }

    public func releases(of source: String? = nil) async throws -> [WellRelease] {
        let engine = engine
        return try await Self.offThePool { try engine.releases(source: source) }
    }

    public func changes(_ query: ChangeQuery = ChangeQuery()) async throws -> ReleaseChanges {
        let engine = engine
        return try await Self.offThePool { try engine.changes(query) }
    }

    public func history(of identifier: String) async throws -> [WellHistoryEntry] {
        let engine = engine
        return try await Self.offThePool { try engine.history(of: identifier) }
    }
}
