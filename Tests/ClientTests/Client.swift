// A client of WellKit's public API only: no `@testable`, and Foundation and GRDB imported beside it.
// Every public type of WellKit is written here unqualified; `PublicAPITests` checks that none is
// missing, so a new public type, or one whose name clashes with Foundation or GRDB, fails the build
// or the test.
import Foundation
import GRDB
import WellKit

/// A typed projection of the client's own, loaded a batch at a time.
struct Licence: BatchLoadable {
    static let batchFields: [WellField] = [.id, .identifier, .licence, .operator]
    var id: Int64, uwi: String, licence: String?, licensee: String?
    init(row: WellRow) {
        id = row[0]; uwi = row[1]; licence = Self.column(row, 2); licensee = row[3]
    }

    /// Any `WellRowValue` (numbers, text, `WellValue` and their optionals) reads a column.
    static func column<V: WellRowValue>(_ row: WellRow, _ index: Int) -> V { row[index] }
}

/// A delegate on the main actor, where the controller calls it.
@MainActor
final class Recorder: BatchedResultsDelegate {
    var changes: [(Int64, ChangeType)] = []
    func results<E>(_ results: BatchedResults<E>, didChange id: Int64, at indexPath: ResultsIndexPath?,
                    for type: ChangeType, newIndexPath: ResultsIndexPath?) {
        changes.append((id, type))
    }
}

/// What a client does: load, fetch by region and predicate, page with the batched controller,
/// fault, transform coordinates; with Foundation's and GRDB's own types in the same file.
struct Client {
    let store: WellStore

    /// A well edited as an app edits one: fetched, changed, written back; then a batch of edits.
    func edit(_ identifier: String) throws -> LoadSummary? {
        guard var well = try store.well(identifier: identifier) else { return nil }
        well.status = "Plugged"
        try store.update(well)
        let edits: [WellEdit] = [.update(well)]
        return try store.apply(edits)
    }

    /// A release of a list loaded, and what changed since the one before, as a client reads it.
    func release(_ path: String, source: String) throws -> [WellChange] {
        var options = LoadOptions()
        options.release = ReleaseOptions(source: source, confirmGone: false)
        let summary = try store.load(csvAt: path, options: options)
        let loaded: LoadedRelease? = summary.release
        let counts: ReleaseSummary? = loaded?.summary
        _ = counts?.transitions.first.map { (transition: ReleaseSummary.Transition) in transition.count }
        let releases: [WellRelease] = try store.releases(of: source)
        var query = ChangeQuery(source: source)
        query.kinds = [.changed, .moved]
        let changes: ReleaseChanges = try store.changes(query)
        let history: [WellHistoryEntry] = try changes.changes.first.map { try store.history(of: $0.identifier) } ?? []
        _ = (releases.count, history.count)
        return changes.changes
    }

    func load(_ path: String) throws -> LoadSummary {
        var options = LoadOptions()
        options.coordinates = CoordinateOptions()
        options.progress = { (progress: LoadProgress) in _ = progress.phase }
        options.describeRemedy = { (remedy: LoadRemedy) in "the setting " + remedy.apiText }
        // A date column's format named, as `--date-format` does.
        let dayFirst: DateFormat = try DateFormat("%d/%m/%Y")
        options.dateFormats = [:]
        _ = dayFirst
        var rejects = RejectList()
        let summary = try store.load(csvAt: path, options: options) { rejects = $0 }
        // The same list from what an app holds: a file URL and bytes in memory (a dry run each).
        var dry = options
        dry.dryRun = true
        _ = try store.load(contentsOf: URL(fileURLWithPath: path), options: dry)
        _ = try store.load(data: try Data(contentsOf: URL(fileURLWithPath: path)), named: "wells.csv", options: dry)
        let count: Int = rejects.count
        let first: Reject? = rejects.first { $0.line > 1 }
        _ = first
        let kinds: [RejectKind] = rejects.map(\.kind)
        _ = count
        let inferences: [Inference] = summary.inferences
        let suspects: [Suspect] = summary.suspects
        let transformations: [Transformation] = summary.transformations
        let report: IdentifierReport? = summary.identifierNotKey
        let landed: [Landing] = summary.landed
        // What each date column was read as, and what each sheet or member of a workbook or archive gave.
        let dates: [DateColumnReport] = summary.dateColumns
        let sources: [LoadSource] = summary.sources
        _ = (kinds, inferences, suspects, transformations, report, landed, dates.map(\.format), sources.map(\.wells))
        // A misplaced file stops with the fix as data.
        do { _ = try store.load(csvAt: path, options: options) } catch let error as ImportError {
            if case .relocate(let fix?)? = error.remedy { let _: PlacementFix = fix; _ = fix.apiText }
        }
        // A check of the store: findings by check, as data.
        let check: StoreCheck = try store.check(quick: true)
        _ = (check.isSound, check.findings.map { ($0.check, $0.problem) })
        return summary
    }

    /// Analysis: wells in an area, groups with measures, and the wells near the points of a file.
    func analyse(_ pointsPath: String) throws -> Int {
        let area: Area = try Area(wkt: "POLYGON((-90.1 35,-89.9 35,-89.9 35.2,-90.1 35))")
        let inside = try store.fetchCount(WellFetchRequest(within: area))
        let attribute: WellAttribute = try WellAttribute(keyPath: "extra.DRILLER")
        let grouping: WellGrouping = .fields([.status, attribute])
        let measure: WellMeasure = WellMeasure(.mean, .totalDepth)
        let groups: [WellGroup] = try store.groups(WellFetchRequest(), by: grouping, measures: [measure])
        let file: PointsFile = try PointsFile.read(atPath: pointsPath)
        let results: [ProximityResult] = try store.proximity(of: file.points.map(\.coordinate), radius: 1_000)
        let nearest: [ProximityMatch] = results.compactMap(\.nearest)
        return inside + groups.count + nearest.count
    }

    func query() throws -> (pins: [WellPin], wells: [Well], rows: [[String: WellValue]]) {
        let box: BoundingBox = try BoundingBox(parsing: "-90.1,35,-89.9,35.2")
        let predicate: WellPredicate = .compare(.status, .equal, "Abandoned")
        let value: PredicateValue = .text("Active")
        let sort = WellSortDescriptor(.spudDate, ascending: false)
        let region: Region = .box(box)
        let request = WellFetchRequest(predicate: .or([predicate, .compare(.status, .equal, value)]),
                                       sortDescriptors: [sort], region: region, limit: 50)
        let pins = try store.fetchPins(request)
        let wells = try store.fetchWells(request)
        let details: [WellDetail] = wells.map(\.detail)
        _ = details
        // Typed fields, and a well through JSON.
        let typed: [(String?, Date?, Double?)] = wells.map { ($0.status, $0.spudDate, $0.totalDepth) }
        _ = (typed, try JSONDecoder().decode([Well].self, from: try JSONEncoder().encode(wells)))
        let rows = try store.fetchDictionaries(request, properties: [.identifier, .status])
        let suspects: [SuspectWell] = try store.suspects()
        _ = suspects
        return (pins, wells, rows)
    }

    @MainActor
    func page() throws -> [Licence] {
        let request = WellFetchRequest(sortDescriptors: [WellSortDescriptor(.identifier)])
        let results = try BatchedResults<Licence>(store: store, request: request, batchSize: 10, sectionKey: nil)
        let recorder = Recorder()
        results.delegate = recorder
        try results.performFetch()
        let snapshot: ResultsSnapshot? = results.snapshot
        let sections: [ResultsSection] = results.sections
        let diff: ResultsDiff? = try results.refresh()
        _ = (snapshot, sections, diff)
        let summaries = try BatchedResults<WellSummary>(store: store, request: request)
        try summaries.performFetch()
        // WellKit's index path and Foundation's, side by side, both unqualified.
        let position = ResultsIndexPath(section: 0, item: 0)
        let foundationPath = IndexPath(indexes: [0, 0])
        _ = foundationPath
        let faults: WellFaults = try store.faults(request)
        if faults.count > 0 { _ = try faults.well(at: 0) }
        return results.fetchedCount > 0 ? [try results.object(at: position)] : []
    }

    /// The async reads, and the controller's changes as an `AsyncSequence`.
    func follow() async throws -> (pins: [WellPin], changes: [ResultsDiff]) {
        let request = WellFetchRequest(sortDescriptors: [WellSortDescriptor(.identifier)])
        let pins = try await store.pins(matching: request)
        _ = try await (store.wells(matching: request), store.ids(matching: request), store.count(matching: request))
        let results = try BatchedResults<WellPin>(store: store, request: request)
        try results.performFetch()
        let changes: BatchedResultsChanges<WellPin> = results.changes
        results.startObserving()
        results.startObserving { _ in }
        // A consumer observes the store by itself; stopping ends its sequence.
        var consumer = changes.makeAsyncIterator()
        results.stopObserving()
        var seen: [ResultsDiff] = []
        while let diff = await consumer.next() { seen.append(diff) }
        return (pins, seen)
    }

    static func coordinates() throws -> (OperationInfo?, AccuracyReport) {
        let transformer = try CoordinateTransformer(from: "EPSG:4267", to: "EPSG:4326")
        _ = try transformer.transform(x: -86.7, y: 36.1)
        let point = Coordinate(latitude: 36.16, longitude: -85.5)
        _ = point
        let info: CRSInfo = try CRSInfo.describe("EPSG:4267")
        let candidates = try CoordinateTransformer.candidates(from: "EPSG:4267", to: "EPSG:4326")
        return (candidates.first, try info.accuracyReport())
    }

    /// The errors a client catches, each matched by its own type.
    static func explain(_ error: any Error) -> String {
        switch error {
        case let error as StoreError: "store: \(error.code)"
        case let error as ImportError: "import: \(error.code)"
        case let error as WellEditError: "edit: \(error.code)"
        case let error as ReleaseError: "release: \(error.code)"
        case let error as QueryError: "query: \(error.code)"
        case let error as CRSError: "crs: \(error.code)"
        default: "\(error)"
        }
    }

    /// GRDB's own names stay usable unqualified beside WellKit's: its `FetchRequest`, `Row`, `DatabaseValue`.
    static func grdbSideBySide(_ path: String) throws -> Int {
        let queue = try DatabaseQueue(path: path)
        return try queue.read { db in
            let request: SQLRequest<Row> = "SELECT count(*) AS n FROM pins"
            func count<R: FetchRequest>(_ request: R) throws -> Int { try request.fetchCount(db) }
            let value: DatabaseValue = try Row.fetchOne(db, request)?["n"] ?? .null
            _ = try count(request)
            return Int.fromDatabaseValue(value) ?? 0
        }
    }
}
