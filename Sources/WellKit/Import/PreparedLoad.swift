import Foundation

/// A load with everything decided but the write: the file read and mapped once, the records
/// located, validated and transformed, duplicates and suspects settled, the rejects collected, and
/// the summary so far.
///
/// This is where the engine-independent import ends. ``WellStore/prepareLoad(csvAt:options:)``
/// makes it; a storage engine writes it in one call (``SQLiteBulkWrite/write(_:to:path:)`` for
/// SQLite and SpatiaLite), assigns the load its id, and returns the finished ``LoadSummary``.
/// An engine reads:
/// - `scan.records` (in file order) and `scan.makeBuilder()`, which builds each record's row as
///   cells in ``DetailColumn`` order, preceded by the pin's name, lat and lon (``RowBatch/Column``);
/// - `scan.identifier(of:)`, to match records with wells already stored;
/// - `scan.rejects`, sorted by line, and `scan.summary` (mapping, suspects, counts) for the
///   load's provenance record;
/// - `options.progress`, to report the writing and indexing phases.
package struct PreparedLoad {
    /// The file read and located; its mapping stays open until the write is done.
    package var scan: ScannedFile
    package let options: LoadOptions
    /// When the load began, as recorded in `loads.started_at`.
    package let startedAt: Date
    /// When the load began, for `LoadSummary.seconds` and the phases.
    package let clock: ContinuousClock.Instant
    /// For a write of wells (``WellStore/apply(_:)-68xod``): what each identifier must find stored, and
    /// the wells to delete, which the engine checks and deletes inside the write's transaction.
    package var edit: EditPlan?
}
