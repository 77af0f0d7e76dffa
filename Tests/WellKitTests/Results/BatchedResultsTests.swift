import Foundation
import GRDB
import Synchronization
import Testing
import WellsTestSupport
@testable import WellKit
@testable import WellKitSynthetic

/// A section as names and ids, comparable in expectations.
private struct Section: Equatable, CustomStringConvertible {
    var name: String?
    var ids: [Int64]
    var description: String { "\(name ?? "NULL"): \(ids)" }
}

/// A store of `count` wells with few distinct statuses and spud dates, so sections and ties abound.
private struct World {
    static let statuses: [String?] = ["Abandoned", "Flowing", "Pumping", "Suspended", nil]
    /// Statuses that only writes give, so that their sections come and go.
    static let rare: [String?] = ["Cancelled", "Drilling"]
    static let dates: [String?] = ["2001-05-01", "2010-01-15", "2015-07-30", "2020-02-29", nil]

    let store: WellStore
    var random: SeededRandom
    var serial = 0

    init(count: Int, seed: UInt64) throws {
        random = SeededRandom(seed: seed)
        store = try Fixtures.makeStore()
        var csv = "uwi,name,lat,lon,status,operator,spud_date,total_depth\n"
        for k in 0..<count {
            let status = Self.statuses.randomElement(using: &random)! ?? ""
            let date = Self.dates.randomElement(using: &random)! ?? ""
            csv += "W-\(k),Well \(k),\(50 + Double(k) / 100),\(-114 - Double(k) / 100),\(status),Acme,\(date),\(1000 + k)\n"
        }
        _ = try store.load(csvAt: try Fixtures.file(csv))
    }

    func ids() throws -> [Int64] { try store.pool.read { try Int64.fetchAll($0, sql: "SELECT id FROM pins") } }

    /// One random write: an insert, a delete, or an update of a plain field, the sort key or the section key.
    mutating func mutate() throws {
        let ids = try ids()
        let rareIDs = try store.fetchIDs(WellFetchRequest(predicate: .in(.status, ["Cancelled", "Drilling"])))
        let kind = ids.isEmpty ? 0 : Int.random(in: 0..<6, using: &random)
        // Half the writes to an existing well hit one in a rare section, to empty it.
        let id = (Bool.random(using: &random) ? rareIDs.randomElement(using: &random) : nil) ?? ids.randomElement(using: &random) ?? 0
        let status = (Self.statuses + Self.rare).randomElement(using: &random)!, date = Self.dates.randomElement(using: &random)!
        serial += 1
        let serial = serial
        // The store keeps names as codes of their lookups and dates as day numbers (schema version 3).
        let day = date.flatMap { ValueParsing.days(iso: $0) }
        func code(_ field: WellField, _ name: String?, _ db: Database) throws -> Int64 {
            guard let name else { return Schema.nullCode }
            let table = field.lookupTable!
            if let code = try Int64.fetchOne(db, sql: "SELECT code FROM \(table) WHERE value = ?", arguments: [name]) { return code }
            try db.execute(sql: "INSERT INTO \(table)(code, value) SELECT max(code) + 1, ? FROM \(table)", arguments: [name])
            return db.lastInsertedRowID
        }
        try store.pool.write { db in
            switch kind {
            case 0:
                try db.execute(sql: "INSERT INTO pins(name, lat, lon) VALUES (?, 49.5, -113.5)", arguments: ["New \(serial)"])
                try db.execute(sql: "INSERT INTO details(pin_id, uwi, status, spud_date, total_depth) VALUES (?, ?, ?, ?, 500)",
                               arguments: [db.lastInsertedRowID, "N-\(serial)", try code(.status, status, db), day])
            case 1: try db.execute(sql: "DELETE FROM pins WHERE id = ?", arguments: [id])
            case 2: try db.execute(sql: "UPDATE details SET operator = ? WHERE pin_id = ?", arguments: [try code(.operator, "Op \(serial)", db), id])
            case 3: try db.execute(sql: "UPDATE pins SET name = ? WHERE id = ?", arguments: ["Renamed \(serial)", id])
            case 4: try db.execute(sql: "UPDATE details SET spud_date = ? WHERE pin_id = ?", arguments: [day, id])
            default: try db.execute(sql: "UPDATE details SET status = ? WHERE pin_id = ?", arguments: [try code(.status, status, db), id])
            }
        }
    }
}

/// Applies a diff to the old snapshot as a table view would: row deletes and move sources at old
/// index paths, descending; section deletes; section inserts; row inserts and move targets at new
/// index paths, ascending.
private func apply(_ diff: ResultsDiff) -> [Section] {
    var sections = diff.old.nested.map { Section(name: $0.name, ids: $0.ids) }
    let removals = diff.rowChanges.filter { $0.type == .delete || $0.type == .move }.map { $0.indexPath! }.sorted(by: >)
    for path in removals { sections[path.section].ids.remove(at: path.item) }
    for change in diff.sectionChanges where change.type == .delete {
        #expect(sections[change.index].ids.isEmpty, "deleted section \(change.index) still has rows")
        sections.remove(at: change.index)
    }
    for change in diff.sectionChanges where change.type == .insert {
        sections.insert(Section(name: change.section.name, ids: []), at: change.index)
    }
    let additions = diff.rowChanges.filter { $0.type == .insert || $0.type == .move }.map { ($0.newIndexPath!, $0.id) }.sorted { $0.0 < $1.0 }
    for (path, id) in additions { sections[path.section].ids.insert(id, at: path.item) }
    return sections
}

/// Checks that a diff is in Core Data's order and that every index path names its id.
private func checkShape(_ diff: ResultsDiff) {
    let order: [ChangeType: Int] = [.delete: 0, .insert: 1, .move: 2, .update: 3]
    #expect(diff.rowChanges.map { order[$0.type]! } == diff.rowChanges.map { order[$0.type]! }.sorted())
    let deletes = diff.rows(.delete).map { $0.indexPath! }, inserts = diff.rows(.insert).map { $0.newIndexPath! }
    #expect(deletes == deletes.sorted(by: >))
    #expect(inserts == inserts.sorted())
    for change in diff.rowChanges {
        if let path = change.indexPath { #expect(diff.old.ids[diff.old.sections[path.section].offset + path.item] == change.id) }
        if let path = change.newIndexPath { #expect(diff.new.ids[diff.new.sections[path.section].offset + path.item] == change.id) }
    }
}

/// The expected sections from an eager fetch of whole wells: runs of equal status, or one section.
private func eagerSections(_ wells: [Well], sectioned: Bool) -> [Section] {
    guard sectioned else { return [Section(name: nil, ids: wells.map(\.id))] }
    var sections: [Section] = []
    for well in wells {
        let status = well.detail[.status]
        if sections.last.map({ $0.name == status }) == true { sections[sections.count - 1].ids.append(well.id) }
        else { sections.append(Section(name: status, ids: [well.id])) }
    }
    return sections
}

@Suite struct BatchedResultsTests {
    static let byDate = WellFetchRequest(sortDescriptors: [WellSortDescriptor(.spudDate, ascending: false)])

    /// The oracle: random writes, then `refresh()`; the diff applied to the old snapshot must give
    /// the new one, the new one must match an eager fetch, and so must every object.
    @Test(.lane(.slow), arguments: [false, true], [1, 2, 3, 11, 12, 13])
    func refreshDiffAppliesToOldSnapshot(sectioned: Bool, batchSize: Int) throws {
        var seen: [String: Int] = [:]
        // The first run reads details alone (detail sorts and predicate); the second joins pins (a pin sort).
        var filtered = Self.byDate
        filtered.predicate = .compare(.totalDepth, .less, 1009)
        let byName = WellFetchRequest(sortDescriptors: [WellSortDescriptor(.name, ascending: false)])
        for (seed, myers, request) in [(UInt64(batchSize * 7 + (sectioned ? 1 : 0)), true, filtered), (UInt64(batchSize * 13 + 5), false, byName)] {
            var world = try World(count: 12, seed: seed)
            let results = try BatchedResults<Well>(store: world.store, request: request, batchSize: batchSize,
                                                   sectionKey: sectioned ? .status : nil, maxCachedBatches: 3)
            if !myers { results.collectionDifferenceLimit = 0 }
            try results.performFetch()
            for step in 0..<30 {
                // Load a few batches so that updates to loaded rows are detected and the cache is rebuilt.
                for _ in 0..<3 where results.fetchedCount > 0 {
                    let offset = Int.random(in: 0..<results.fetchedCount, using: &world.random)
                    _ = try results.object(at: results.snapshot!.indexPath(ofOffset: offset))
                }
                let cachedBefore = Dictionary(results.withLock { $0.cache }.values.flatMap { zip($0.ids, $0.objects) }, uniquingKeysWith: { a, _ in a })
                let old = results.snapshot!
                for _ in 0..<Int.random(in: 0...3, using: &world.random) { try world.mutate() }
                let diff = try results.refresh()
                let wells = try world.store.fetchWells(results.request)
                let expected = eagerSections(wells, sectioned: sectioned)
                let context = "seed \(seed) step \(step) batch \(batchSize) sectioned \(sectioned) myers \(myers)"
                #expect(results.snapshot!.nested.map { Section(name: $0.name, ids: $0.ids) } == expected, "\(context)")
                if let diff {
                    for change in diff.rowChanges { seen[change.type.rawValue, default: 0] += 1 }
                    for change in diff.sectionChanges { seen["section " + change.type.rawValue, default: 0] += 1 }
                    checkShape(diff)
                    #expect(diff.old == old)
                    #expect(apply(diff) == expected, "\(context): \(diff.rowChanges)")
                    let moved = Set(diff.rowChanges.filter { $0.type != .update }.map(\.id))
                    let fresh = Dictionary(uniqueKeysWithValues: wells.map { ($0.id, $0) })
                    let changed = Set(cachedBefore.compactMap { id, cached in fresh[id].flatMap { $0 != cached ? id : nil } }).subtracting(moved)
                    #expect(Set(diff.rows(.update).map(\.id)) == changed, "\(context)")
                } else {
                    #expect(old.nested.map { Section(name: $0.name, ids: $0.ids) } == expected, "\(context): no diff reported")
                }
                var k = 0
                for (s, section) in results.sections.enumerated() {
                    for item in 0..<section.count {
                        #expect(try results.object(at: ResultsIndexPath(section: s, item: item)) == wells[k], "\(context) at \(s):\(item)")
                        k += 1
                    }
                }
                #expect(k == wells.count)
                #expect(results.cachedBatchCount <= 3)
            }
        }
        // The sequences must have exercised every kind of change.
        let kinds = ["insert", "delete", "move", "update"] + (sectioned ? ["section insert", "section delete"] : [])
        for kind in kinds { #expect(seen[kind, default: 0] > 0, "no \(kind) in \(seen)") }
    }

    @Test func requestWithoutSortsThrows() throws {
        let world = try World(count: 3, seed: 1)
        #expect(throws: QueryError.self) { try BatchedResults<WellPin>(store: world.store, request: WellFetchRequest()) }
        do {
            _ = try BatchedResults<WellPin>(store: world.store, request: WellFetchRequest(), sectionKey: .status)
        } catch let error as QueryError {
            #expect(error.code == .unsortedRequest && error.remedy == .addSortDescriptor(.id))
            #expect(error.message.contains("sort descriptor"))
        }
    }

    @Test func sectionKeyBecomesTheFirstSort() throws {
        let world = try World(count: 3, seed: 1)
        let inserted = try BatchedResults<WellPin>(store: world.store, request: Self.byDate, sectionKey: .status)
        #expect(inserted.request.sortDescriptors == [WellSortDescriptor(.status), WellSortDescriptor(.spudDate, ascending: false)])
        var request = Self.byDate
        request.sortDescriptors.append(WellSortDescriptor(.status, ascending: false))
        let moved = try BatchedResults<WellPin>(store: world.store, request: request, sectionKey: .status)
        #expect(moved.request.sortDescriptors == [WellSortDescriptor(.status, ascending: false), WellSortDescriptor(.spudDate, ascending: false)])
    }

    @Test func idQueryReadsDetailsAloneWhenItCan() throws {
        let world = try World(count: 3, seed: 1)
        let detailsOnly = try BatchedResults<WellPin>(store: world.store, request: Self.byDate, sectionKey: .status)
        // The statuses are codes of `lookup_status`, which drives the join in name order (schema version 3).
        #expect(try world.store.pool.read { try detailsOnly.idQuery().build($0) }.sql == #"""
            SELECT d.pin_id, l.value FROM lookup_status l JOIN details d ON d."status" = l.code \#
            ORDER BY l.value ASC, d."spud_date" DESC, d.pin_id
            """#)
        let joined = try BatchedResults<WellPin>(store: world.store, request: WellFetchRequest(sortDescriptors: [WellSortDescriptor(.name)]), sectionKey: .status)
        #expect(try world.store.pool.read { try joined.idQuery().build($0) }.sql.contains("FROM pins p JOIN details d"))
    }

    /// With an index that serves the sort, the ids are read a section at a time; the snapshot is
    /// the one the single query gives without the index (nulls first ascending, last descending).
    @Test(arguments: [true, false])
    func sectionBySectionMatchesTheSingleQuery(ascending: Bool) throws {
        let world = try World(count: 400, seed: 7)
        var request = Self.byDate
        request.sortDescriptors.insert(WellSortDescriptor(.status, ascending: ascending), at: 0)
        let engine = try world.store.sqlite(for: "the section walk")
        let single = try engine.snapshot(request, sectionKey: .status)
        #expect(try world.store.ensureSortIndex(request.sortDescriptors) != nil)
        #expect(engine.compiler.walksSections(request, sectionKey: .status))
        let walked = try engine.pool.read { try engine.sectionBySection(request, sectionKey: .status, $0) }
        #expect(walked.ids == single.ids)
        #expect(walked.sections == single.sections)
        #expect(try engine.snapshot(request, sectionKey: .status).sections == single.sections)
        #expect(single.sections.count == 5 && single.sections.contains { $0.name == nil })
        #expect((ascending ? single.sections.first : single.sections.last)?.name == nil)
    }

    @Test func statementCounts() throws {
        let world = try World(count: 30, seed: 2)
        let results = try BatchedResults<Well>(store: world.store, request: Self.byDate, batchSize: 5)
        try results.performFetch()
        #expect(results.statementsExecuted == 1)
        #expect(results.fetchedCount == 30)
        for item in [0, 7, 12] { _ = try results.object(at: ResultsIndexPath(section: 0, item: item)) }
        #expect(results.statementsExecuted == 4)
        for item in [1, 4, 8, 14] { _ = try results.object(at: ResultsIndexPath(section: 0, item: item)) }
        #expect(results.statementsExecuted == 4)
        #expect(try results.checkForChanges() == nil)
        #expect(results.statementsExecuted == 4)
    }

    @Test func leastRecentlyUsedBatchIsEvicted() throws {
        let world = try World(count: 30, seed: 3)
        let results = try BatchedResults<WellPin>(store: world.store, request: Self.byDate, batchSize: 5, maxCachedBatches: 2)
        try results.performFetch()
        let before = results.statementsExecuted
        for item in [0, 5, 10, 0] { _ = try results.object(at: ResultsIndexPath(section: 0, item: item)) }  // A, B, C, A
        #expect(results.statementsExecuted - before == 4)
        _ = try results.object(at: ResultsIndexPath(section: 0, item: 10))  // C is still cached
        #expect(results.statementsExecuted - before == 4)
    }

    @Test func otherProcessDeleteIsFound() throws {
        let world = try World(count: 10, seed: 4)
        let results = try BatchedResults<WellPin>(store: world.store, request: Self.byDate, sectionKey: .status)
        try results.performFetch()
        #expect(try results.checkForChanges() == nil)
        let victim = try results.id(at: ResultsIndexPath(section: 0, item: 0))
        let other = try WellStore(path: world.store.path, mode: .existing)  // another process's connection
        try other.pool.write { try $0.execute(sql: "DELETE FROM pins WHERE id = ?", arguments: [victim]) }
        // Until the change is taken in, the deleted row throws and the rest of its batch loads.
        #expect(throws: StoreError.self) { try results.object(at: ResultsIndexPath(section: 0, item: 0)) }
        if results.numberOfObjects(inSection: 0) > 1 { _ = try results.object(at: ResultsIndexPath(section: 0, item: 1)) }
        let diff = try #require(try results.checkForChanges())
        #expect(diff.rows(.delete).map(\.id) == [victim])
        #expect(diff.rowChanges.count == 1 + diff.rows(.move).count)
        #expect(results.indexPath(for: victim) == nil)
        #expect(try results.checkForChanges() == nil)
    }

    @MainActor @Test func delegateHearsTheDiffInOrder() throws {
        @MainActor final class Recorder: BatchedResultsDelegate {
            var events: [String] = []
            func resultsWillChange<E>(_ results: BatchedResults<E>) { events.append("will") }
            func results<E>(_ results: BatchedResults<E>, didChange id: Int64, at indexPath: ResultsIndexPath?, for type: ChangeType, newIndexPath: ResultsIndexPath?) {
                events.append("\(type) \(id) \(indexPath?.description ?? "-") \(newIndexPath?.description ?? "-")")
            }
            func results<E>(_ results: BatchedResults<E>, didChange section: ResultsSection, atSectionIndex index: Int, for type: ChangeType) {
                events.append("section \(type) \(index)")
            }
            func resultsDidChange<E>(_ results: BatchedResults<E>) { events.append("did") }
        }
        var world = try World(count: 15, seed: 8)
        let results = try BatchedResults<WellSummary>(store: world.store, request: Self.byDate, sectionKey: .status)
        let recorder = Recorder()
        results.delegate = recorder
        try results.performFetch()
        for _ in 0..<6 { try world.mutate() }
        let diff = try #require(try results.refresh())
        let expected = ["will"] + diff.sectionChanges.map { "section \($0.type) \($0.index)" }
            + diff.rowChanges.map { "\($0.type) \($0.id) \($0.indexPath?.description ?? "-") \($0.newIndexPath?.description ?? "-")" } + ["did"]
        #expect(recorder.events == expected)
        recorder.events = []
        #expect(try results.refresh() == nil)
        #expect(recorder.events.isEmpty)
    }

    @Test func projectionsMatchEagerFetches() throws {
        let world = try World(count: 25, seed: 5)
        let summaries = try BatchedResults<WellSummary>(store: world.store, request: Self.byDate, batchSize: 4, sectionKey: .status)
        let pins = try BatchedResults<WellPin>(store: world.store, request: Self.byDate, batchSize: 7)
        try summaries.performFetch()
        try pins.performFetch()
        let wells = try world.store.fetchWells(summaries.request)
        let flat = try summaries.sections.indices.flatMap { s in try (0..<summaries.numberOfObjects(inSection: s)).map { try summaries.object(at: ResultsIndexPath(section: s, item: $0)) } }
        #expect(flat == wells.map { WellSummary(id: $0.id, identifier: $0.detail.identifier, name: $0.pin.name, status: $0.detail[.status], spudDate: $0.detail[.spudDate]) })
        let eagerPins = try world.store.fetchPins(pins.request)
        #expect(try (0..<pins.fetchedCount).map { try pins.object(at: ResultsIndexPath(section: 0, item: $0)) } == eagerPins)
        #expect(summaries.sectionIndexTitles.allSatisfy { $0.count == 1 })
        #expect(pins.indexPath(for: eagerPins[9].id) == ResultsIndexPath(section: 0, item: 9))
    }

    @Test func namedCacheSkipsTheQueryUntilTheStoreChanges() throws {
        var world = try World(count: 8, seed: 6)
        let name = "test-\(UUID().uuidString)"
        let first = try BatchedResults<WellPin>(store: world.store, request: Self.byDate, cacheName: name)
        try first.performFetch()
        let second = try BatchedResults<WellPin>(store: world.store, request: Self.byDate, cacheName: name)
        try second.performFetch()
        #expect(second.statementsExecuted == 0)
        #expect(second.snapshot == first.snapshot)
        try world.mutate()
        let third = try BatchedResults<WellPin>(store: world.store, request: Self.byDate, cacheName: name)
        try third.performFetch()
        #expect(third.statementsExecuted == 1)
        BatchedResults<WellPin>.deleteCache(named: name)
    }

    /// The poll interval is 10 min: only the region observation can report the delete before the time limit.
    @Test(.timeLimit(.minutes(1))) func observationReportsSameProcessWrites() async throws {
        let world = try World(count: 6, seed: 7)
        let results = try BatchedResults<WellPin>(store: world.store, request: Self.byDate)
        try results.performFetch()
        let seen = Mutex<[ResultsDiff]>([])
        var changes = results.changes.makeAsyncIterator()
        results.startObserving(interval: .seconds(600)) { diff in seen.withLock { $0.append(diff) } }
        let victim = try results.id(at: ResultsIndexPath(section: 0, item: 2))
        try await world.store.pool.write { try $0.execute(sql: "DELETE FROM pins WHERE id = ?", arguments: [victim]) }
        // Delivered to onChange before the sequence: by the time it has the diff, so has onChange.
        let diff = try #require(await changes.next())
        results.stopObserving()
        #expect(diff.rows(.delete).map(\.id) == [victim])
        #expect(seen.withLock { $0 } == [diff])
    }

    /// Another connection's commit (another process's, as far as SQLite can tell) reaches the
    /// sequence through the polling of `PRAGMA data_version`, and stopping the observation ends it.
    @Test(.timeLimit(.minutes(1))) func changesCarryAnotherConnectionsCommit() async throws {
        let world = try World(count: 10, seed: 11)
        let results = try BatchedResults<WellSummary>(store: world.store, request: Self.byDate, sectionKey: .status)
        try results.performFetch()
        // The consumer starts the observation: no startObserving needed.
        var changes = results.changes.makeAsyncIterator()
        let victim = try results.id(at: ResultsIndexPath(section: 0, item: 0))
        let other = try WellStore(path: world.store.path, mode: .existing)
        try await other.pool.write { try $0.execute(sql: "DELETE FROM pins WHERE id = ?", arguments: [victim]) }
        let diff = try #require(await changes.next())
        #expect(diff.rows(.delete).map(\.id) == [victim])
        #expect(results.indexPath(for: victim) == nil)
        results.stopObserving()
        #expect(await changes.next() == nil)
    }

    /// Two consumers each get every diff, in the order the delegate heard them, and a released
    /// controller ends the sequence. The consumers start an observation, which finds some of the
    /// changes off the main actor: the main actor's refreshes take those in first.
    @MainActor @Test func changesFollowTheDelegatesOrder() async throws {
        @MainActor final class Recorder: BatchedResultsDelegate {
            var diffs: [[String]] = []
            func resultsWillChange<E>(_ results: BatchedResults<E>) { diffs.append([]) }
            func results<E>(_ results: BatchedResults<E>, didChange id: Int64, at indexPath: ResultsIndexPath?, for type: ChangeType, newIndexPath: ResultsIndexPath?) {
                diffs[diffs.count - 1].append("\(type) \(id) \(indexPath?.description ?? "-") \(newIndexPath?.description ?? "-")")
            }
        }
        func events(_ diff: ResultsDiff) -> [String] {
            diff.rowChanges.map { "\($0.type) \($0.id) \($0.indexPath?.description ?? "-") \($0.newIndexPath?.description ?? "-")" }
        }
        var world = try World(count: 20, seed: 12)
        var results: BatchedResults<WellSummary>? = try BatchedResults<WellSummary>(store: world.store, request: Self.byDate, sectionKey: .status)
        let recorder = Recorder()
        results!.delegate = recorder
        try results!.performFetch()
        var first = results!.changes.makeAsyncIterator(), second = results!.changes.makeAsyncIterator()
        var returned: [ResultsDiff] = []
        for _ in 0..<8 {
            try world.mutate()
            if let diff = try results!.refresh() { returned.append(diff) }
        }
        results = nil  // ends both sequences after the diffs they hold
        var firstDiffs: [ResultsDiff] = [], secondDiffs: [ResultsDiff] = []
        while let diff = await first.next() { firstDiffs.append(diff) }
        while let diff = await second.next() { secondDiffs.append(diff) }
        #expect(firstDiffs.count >= 2)
        #expect(returned.allSatisfy(firstDiffs.contains))
        #expect(secondDiffs == firstDiffs)
        #expect(firstDiffs.map(events) == recorder.diffs)
    }

    /// Cancelling the consuming task ends its sequence and forgets the consumer; the others go on.
    @Test func cancellingTheConsumerEndsItsSequence() async throws {
        var world = try World(count: 10, seed: 13)
        let results = try BatchedResults<WellPin>(store: world.store, request: Self.byDate)
        try results.performFetch()
        let (subscribed, signal) = AsyncStream.makeStream(of: Void.self)
        let consumer = Task {
            var changes = results.changes.makeAsyncIterator()
            signal.yield()
            var received = 0
            while await changes.next() != nil { received += 1 }
            return received
        }
        var remaining = results.changes.makeAsyncIterator()
        var ready = subscribed.makeAsyncIterator()
        await ready.next()
        var diffs = 0
        while diffs == 0 {
            try world.mutate()
            if try results.refresh() != nil { diffs += 1 }
        }
        #expect(results.withLock { $0.consumers.count } == 2)
        consumer.cancel()
        _ = await consumer.value
        #expect(results.withLock { $0.consumers.count } == 1)
        while diffs == 1 {
            try world.mutate()
            if try results.refresh() != nil { diffs += 1 }
        }
        #expect(await remaining.next() != nil)
        #expect(await remaining.next() != nil)
    }

    /// The lock is not held while the delegate runs: it may read the controller, load rows and
    /// even refresh from inside its callbacks, and sees the new results.
    @MainActor @Test func delegateCallsBackIntoTheController() throws {
        @MainActor final class Reader: BatchedResultsDelegate {
            var counts: [Int] = []
            var loaded: [Int64] = []
            var nested: [ResultsDiff?] = []
            func resultsWillChange<E>(_ results: BatchedResults<E>) { counts.append(results.fetchedCount) }
            func results<E>(_ results: BatchedResults<E>, didChange id: Int64, at indexPath: ResultsIndexPath?,
                            for type: ChangeType, newIndexPath: ResultsIndexPath?) {
                guard let newIndexPath, let object = try? results.object(at: newIndexPath) as? WellPin else { return }
                loaded.append(object.id)
            }
            func resultsDidChange<E>(_ results: BatchedResults<E>) {
                counts.append(results.fetchedCount)
                nested.append(try? results.refresh())
            }
        }
        var world = try World(count: 20, seed: 9)
        let results = try BatchedResults<WellPin>(store: world.store, request: Self.byDate, batchSize: 3, sectionKey: .status)
        let reader = Reader()
        results.delegate = reader
        try results.performFetch()
        var diff: ResultsDiff?
        for _ in 0..<20 where diff == nil {
            try world.mutate()
            diff = try results.refresh()
        }
        let found = try #require(diff)
        #expect(reader.counts == [results.fetchedCount, results.fetchedCount])
        let reported = found.rowChanges.compactMap { $0.newIndexPath == nil ? nil : $0.id }
        #expect(reader.loaded == reported)
        #expect(reader.nested == [nil])
    }

    /// Changes found off the main actor (by the observation, or by a refresh on another thread)
    /// reach the delegate on the main actor, and the controller takes them in there: while the main
    /// actor is busy, it reads the results its delegate last heard of, and each message then comes
    /// with the results it describes, one change after another.
    @MainActor @Test(.timeLimit(.minutes(1))) func theDelegateHearsEveryChangeOnTheMainActor() async throws {
        // Each callback asks the runtime whether it runs on the main actor (not the thread: on Linux
        // the main actor's jobs may run off the main thread); off it, the test process stops here.
        @MainActor final class Listener: BatchedResultsDelegate {
            var calls = 0
            var counts: [Int] = []
            var deleted = 0
            func resultsWillChange<E>(_ results: BatchedResults<E>) { onTheMainActor() }
            func results<E>(_ results: BatchedResults<E>, didChange id: Int64, at indexPath: ResultsIndexPath?,
                            for type: ChangeType, newIndexPath: ResultsIndexPath?) {
                onTheMainActor()
                if type == .delete { deleted += 1 }
            }
            func resultsDidChange<E>(_ results: BatchedResults<E>) {
                onTheMainActor()
                counts.append(results.fetchedCount)
            }
            private func onTheMainActor() {
                MainActor.preconditionIsolated("a BatchedResultsDelegate callback ran off the main actor")
                calls += 1
            }
        }
        let world = try World(count: 12, seed: 15)
        let results = try BatchedResults<WellPin>(store: world.store, request: Self.byDate)
        let listener = Listener()
        results.delegate = listener
        try results.performFetch()
        let before = results.fetchedCount
        let other = try WellStore(path: world.store.path, mode: .existing)  // another process's connection
        results.startObserving(interval: .milliseconds(20))
        // The main actor stays busy (no await) while the observation finds two deletes, one at a time.
        func deleteWhileBusy(_ pending: Int) throws {
            let victim = try results.id(at: ResultsIndexPath(section: 0, item: pending - 1))
            try other.pool.write { try $0.execute(sql: "DELETE FROM pins WHERE id = ?", arguments: [victim]) }
            let deadline = ContinuousClock.now + .seconds(30)
            while results.withLock({ $0.pending.count }) < pending, ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.01) }
        }
        for pending in 1...2 {
            try deleteWhileBusy(pending)
            #expect(results.withLock { $0.pending.count } == pending)
        }
        #expect(results.fetchedCount == before)
        #expect(listener.calls == 0)
        while listener.deleted < 2 { try await Task.sleep(for: .milliseconds(5)) }
        results.stopObserving()
        // A refresh on another thread returns its diff; the main actor takes it in and hears of it.
        let victim = try results.id(at: ResultsIndexPath(section: 0, item: 0))
        try await other.pool.write { try $0.execute(sql: "DELETE FROM pins WHERE id = ?", arguments: [victim]) }
        let diff = try await Task.detached { try results.refresh() }.value
        #expect(diff?.rows(.delete).map(\.id) == [victim])
        while listener.deleted < 3 { try await Task.sleep(for: .milliseconds(5)) }
        #expect(listener.counts == [before - 1, before - 2, before - 3])
        #expect(listener.calls == 9)
    }

    /// The first consumer of `changes` starts an observation and the last one's end stops it; one
    /// started by `startObserving` outlives its consumers.
    @Test(.timeLimit(.minutes(1))) func consumersStartAndStopTheirObservation() async throws {
        let world = try World(count: 6, seed: 16)
        let results = try BatchedResults<WellPin>(store: world.store, request: Self.byDate)
        try results.performFetch()
        let observing = { results.withLock { $0.observation != nil } }
        #expect(!observing())
        let (started, signal) = AsyncStream.makeStream(of: Void.self)
        let consumer = Task {
            var changes = results.changes.makeAsyncIterator()
            signal.yield()
            return await changes.next()
        }
        var ready = started.makeAsyncIterator()
        await ready.next()
        #expect(observing())
        let victim = try results.id(at: ResultsIndexPath(section: 0, item: 0))
        let other = try WellStore(path: world.store.path, mode: .existing)
        try await other.pool.write { try $0.execute(sql: "DELETE FROM pins WHERE id = ?", arguments: [victim]) }
        #expect(await consumer.value?.rows(.delete).map(\.id) == [victim])
        let waiting = Task { for await _ in results.changes {} }
        while !observing() { try await Task.sleep(for: .milliseconds(5)) }
        waiting.cancel()
        await waiting.value
        #expect(!observing())
        results.startObserving(interval: .seconds(600))
        let another = Task { for await _ in results.changes {} }
        try await Task.sleep(for: .milliseconds(20))
        another.cancel()
        await another.value
        #expect(observing())
        results.stopObserving()
        #expect(!observing())
    }

    /// Many threads reading rows at once see what one thread sees, and each batch loads once.
    @Test func concurrentReadsAgree() throws {
        let world = try World(count: 60, seed: 10)
        let results = try BatchedResults<WellSummary>(store: world.store, request: Self.byDate, batchSize: 4,
                                                      sectionKey: .status, maxCachedBatches: 100)
        try results.performFetch()
        let paths = results.sections.indices.flatMap { s in
            (0..<results.numberOfObjects(inSection: s)).map { ResultsIndexPath(section: s, item: $0) }
        }
        let expected = try world.store.fetchWells(results.request).map(\.id)
        let seen = Mutex<[Int: Int64]>([:])
        let failures = Mutex(0)
        DispatchQueue.concurrentPerform(iterations: paths.count * 4) { k in
            let path = paths[(k * 7) % paths.count]
            do {
                let object = try results.object(at: path)
                _ = results.fetchedCount
                _ = results.indexPath(for: object.id)
                seen.withLock { $0[(k * 7) % paths.count] = object.id }
            } catch {
                failures.withLock { $0 += 1 }
            }
        }
        #expect(failures.withLock { $0 } == 0)
        #expect(seen.withLock { dictionary in paths.indices.map { dictionary[$0] } } == expected.map { Optional($0) })
        #expect(results.statementsExecuted == 1 + (expected.count + 3) / 4)
    }
}
