import Foundation
import GRDB
import Testing
import WellsTestSupport
@testable import WellKit

/// Schema version 3's compact details (dates as days, names as codes of lookups, extras as arrays
/// by position): a version 2 store upgrades to them and reads back every field as version 2 read
/// it, a fresh load of the same files reads back the same, and queries give version 2's answers.
@Suite(.serialized) struct CompactDetailsTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/Stores")

    /// Every field of every well as `wells find --fields '*' --format json --sort id` prints it, parsed.
    static func everyField(_ store: String) throws -> [NSDictionary] {
        let run = try HardeningTests.wells(["find", "--db", store, "--fields", "*", "--format", "json", "--sort", "id", "--limit", "1000"])
        #expect(run.status == 0, "\(run.err)")
        return try #require(JSONSerialization.jsonObject(with: Data(run.out.utf8), options: [.fragmentsAllowed]) as? [NSDictionary])
    }

    /// What version 2 stored: `store-v2.json`, written by the build before the compact layout.
    static func version2() throws -> [NSDictionary] {
        let data = try Data(contentsOf: fixtures.appendingPathComponent("store-v2.json"))
        return try #require(JSONSerialization.jsonObject(with: data) as? [NSDictionary])
    }

    /// A copy of the version 2 fixture in `directory` (never the fixture itself), upgraded by `WellStore.upgrade()`.
    static func upgradedCopy(in directory: URL) throws -> String {
        let path = directory.appendingPathComponent("store.sqlite").path
        try FileManager.default.copyItem(atPath: fixtures.appendingPathComponent("store-v2.sqlite").path, toPath: path)
        try WellStore(path: path).upgrade()
        return path
    }

    @Test func anUpgradedStoreReadsEveryFieldAsVersion2() async throws {
        try await runBlocking {
            try withTemporaryDirectory("compact-upgrade") { directory in
                let path = try Self.upgradedCopy(in: directory)
                let store = try WellStore(path: path, mode: .readOnly)
                #expect(try store.pool.read { try Int32.fetchOne($0, sql: "PRAGMA user_version") } == Schema.version)
                // The layout is the compact one: no date text, no name text, no keys on the rows.
                try store.pool.read { (db: Database) throws -> Void in
                    #expect(try String.fetchOne(db, sql: "SELECT DISTINCT typeof(spud_date) FROM details WHERE spud_date IS NOT NULL") == "integer")
                    #expect(try String.fetchOne(db, sql: "SELECT DISTINCT typeof(\"operator\") FROM details") == "integer")
                    #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM details WHERE json_type(\"extra\") <> 'array'") == 0)
                    #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM extra_keys") ?? 0 >= 7)
                }
                let read = try Self.everyField(path)
                let expected = try Self.version2()
                #expect(read.count == expected.count)
                for (got, want) in zip(read, expected) where got != want {
                    Issue.record("well \(want["id"] ?? "?"): read \(got), version 2 read \(want)")
                }
                #expect(try store.check().isSound)
            }
        }
    }

    @Test func aFreshLoadOfTheFixturesFilesReadsAsVersion2() async throws {
        try await runBlocking {
            try withTemporaryDirectory("compact-load") { directory in
                let path = directory.appendingPathComponent("store.sqlite").path
                for file in ["alberta-300.csv", "tn-200.csv"] {
                    let run = try HardeningTests.wells(["load", Self.fixtures.appendingPathComponent(file).path, "--db", path, "--quiet"])
                    #expect(run.status == 0, "\(run.err)")
                }
                let read = try Self.everyField(path)
                let expected = try Self.version2()
                #expect(read.count == expected.count)
                for (got, want) in zip(read, expected) where got != want {
                    Issue.record("well \(want["id"] ?? "?"): read \(got), version 2 read \(want)")
                }
                #expect(try WellStore(path: path, mode: .readOnly).check().isSound)
            }
        }
    }

    /// An extra value that repeats is kept once (schema version 4): Tennessee's rows all name the same
    /// source address, held as one code; a value met once (each well's own page) stays text; a
    /// reload of the same file codes what the store already holds, and the store is smaller than
    /// the same rows with every value as text (what version 3 wrote).
    @Test(.lane(.slow)) func repeatedExtraValuesAreKeptOnce() async throws {
        try await runBlocking {
            try withTemporaryDirectory("compact-extras") { directory in
                let path = directory.appendingPathComponent("store.sqlite").path
                let list = RepositoryData.realList("tn-oilgas-wells.csv")
                let run = try HardeningTests.wells(["load", list, "--db", path, "--quiet"])
                #expect(run.status == 0, "\(run.err)")
                let address = "https://tdeconline.tn.gov/oilgaswells/"
                func counts(_ db: Database) throws -> (coded: Int, text: Int, bytes: Int) {
                    let source = try #require(try Int.fetchOne(db, sql: "SELECT position FROM extra_keys WHERE name = 'src_url'"))
                    let page = try #require(try Int.fetchOne(db, sql: "SELECT position FROM extra_keys WHERE name = 'wellwiki'"))
                    let code = try #require(try Int64.fetchOne(db, sql: "SELECT code FROM extra_values WHERE value = ?", arguments: [address]))
                    return (try Int.fetchOne(db, sql: "SELECT count(*) FROM details WHERE json_extract(extra, '$[\(source)]') = ? AND json_type(extra, '$[\(source)]') = 'integer'", arguments: [code]) ?? 0,
                            try Int.fetchOne(db, sql: "SELECT count(*) FROM details WHERE json_type(extra, '$[\(page)]') = 'text'") ?? 0,
                            try Int.fetchOne(db, sql: "SELECT sum(length(extra)) FROM details") ?? 0)
                }
                let first = try DatabaseQueue(path: path).read(counts)
                // All but the first row that names the address hold its code; every well's page is its own text.
                #expect(first.coded == 16_463)
                #expect(first.text == 16_464)
                let reload = try HardeningTests.wells(["load", list, "--db", path, "--quiet"])
                #expect(reload.status == 0, "\(reload.err)")
                let second = try DatabaseQueue(path: path).read(counts)
                #expect(second.coded == 16_464 && second.text == 16_464)
                // The same rows as version 3 wrote them, every value as text: the arrays are at least a third longer.
                let asText = try DatabaseQueue(path: path).read { db in
                    try Int.fetchOne(db, sql: """
                        SELECT sum(length(json_group)) FROM (SELECT (SELECT json_group_array(CASE j.type WHEN 'integer'
                          THEN (SELECT value FROM extra_values WHERE code = j.atom) ELSE j.value END) FROM json_each(d.extra) j) AS json_group FROM details d)
                        """) ?? 0
                }
                #expect(second.bytes * 4 < asText * 3, "\(second.bytes) bytes of extras against \(asText) as text")
                #expect(try WellStore(path: path, mode: .readOnly).check().isSound)
            }
        }
    }

    /// Conditions, sorts and groups on dates, looked-up names and extras give the answers version 2's
    /// text columns gave, computed here from `store-v2.json` with byte order (SQLite's BINARY).
    @Test func queriesAnswerAsVersion2sTextColumns() async throws {
        try await runBlocking {
            try withTemporaryDirectory("compact-queries") { directory in
                // The upgraded store's codes are in text order; a fresh load's in the order names appear.
                let loaded = directory.appendingPathComponent("loaded.sqlite").path
                for file in ["alberta-300.csv", "tn-200.csv"] {
                    #expect(try HardeningTests.wells(["load", Self.fixtures.appendingPathComponent(file).path, "--db", loaded, "--quiet"]).status == 0)
                }
                for path in [try Self.upgradedCopy(in: directory), loaded] {
                let store = try WellStore(path: path, mode: .readOnly)
                let wells = try Self.version2()
                func text(_ well: NSDictionary, _ key: String) -> [UInt8]? { (well[key] as? String).map { Array($0.utf8) } }
                func ids(_ keep: (NSDictionary) -> Bool) -> Set<Int64> {
                    Set(wells.filter(keep).map { ($0["id"] as! NSNumber).int64Value })
                }
                func check(_ condition: String, _ keep: (NSDictionary) -> Bool, sourceLocation: SourceLocation = #_sourceLocation) throws {
                    let got = Set(try store.fetchIDs(WellFetchRequest(predicate: try WellPredicate(parsing: condition))))
                    let want = ids(keep)
                    #expect(got == want, "\(condition): \(got.count) wells, version 2 \(want.count)", sourceLocation: sourceLocation)
                    #expect(!want.isEmpty || condition.contains("="), "\(condition) selects nothing: a weak test", sourceLocation: sourceLocation)
                }
                let lt = { (a: [UInt8], b: String) in a.lexicographicallyPrecedes(Array(b.utf8)) }
                // Dates against full dates, years and months, which compare as ISO prefixes.
                try check("spud_date >= 2001", { text($0, "spud_date").map { !lt($0, "2001") } ?? false })
                try check("spud_date < 2001-07", { text($0, "spud_date").map { lt($0, "2001-07") } ?? false })
                try check("spud_date <= 1995", { text($0, "spud_date").map { !lt(Array("1995".utf8), String(decoding: $0, as: UTF8.self)) } ?? false })
                try check("spud_date = 1986-11-11", { ($0["spud_date"] as? String) == "1986-11-11" })
                try check("spud_date != 2001", { $0["spud_date"] is String })
                try check("spud_date between 1990-01 and 1995-06-30", {
                    text($0, "spud_date").map { !lt($0, "1990-01") && !Array("1995-06-30".utf8).lexicographicallyPrecedes($0) } ?? false
                })
                try check("spud_date contains -11-", { ($0["spud_date"] as? String)?.contains("-11-") ?? false })
                try check("plug_date is null", { !($0["plug_date"] is String) })
                // Looked-up names: equality, order, text operators, lists, nulls.
                try check("status = Abandoned", { ($0["status"] as? String) == "Abandoned" })
                try check("operator < M", { text($0, "operator").map { lt($0, "M") } ?? false })
                try check("operator contains[c] energy", { ($0["operator"] as? String)?.lowercased().contains("energy") ?? false })
                try check("fluid in (Gas, 'Crude Oil')", { ["Gas", "Crude Oil"].contains($0["fluid"] as? String ?? "") })
                try check("county is null", { !($0["county"] is String) })
                try check("not (state = AB)", { ($0["state"] as? String).map { $0 != "AB" } ?? false })
                // Extras, by name.
                try check("extra.mode = Suspended", { ($0["extra.mode"] as? String) == "Suspended" })
                try check("extra.licence_date >= 2000", { text($0, "extra.licence_date").map { !lt($0, "2000") } ?? false })
                // Sorts in text order, nulls first: by a looked-up name, then by a date descending.
                for (sort, key) in [("operator", "operator"), ("formation", "formation")] {
                    let got = try store.fetchIDs(WellFetchRequest(sortDescriptors: [WellSortDescriptor(try WellAttribute(keyPath: sort)), WellSortDescriptor(.spudDate, ascending: false)]))
                    let want = wells.sorted { a, b in
                        let (x, y) = (text(a, key), text(b, key))
                        if x != y { return x == nil || (y != nil && x!.lexicographicallyPrecedes(y!)) }
                        let (s, t) = (text(a, "spud_date"), text(b, "spud_date"))
                        if s != t { return t == nil || (s != nil && t!.lexicographicallyPrecedes(s!)) }
                        return (a["id"] as! NSNumber).int64Value < (b["id"] as! NSNumber).int64Value
                    }.map { ($0["id"] as! NSNumber).int64Value }
                    #expect(got == want, "sorted by \(sort)")
                }
                // Groups by a looked-up name count as the text column did, in text order.
                let groups = try store.groups(WellFetchRequest(), by: .fields([.status]))
                var counts: [String: Int] = [:]
                for well in wells { counts[well["status"] as? String ?? "<null>", default: 0] += 1 }
                let ordered = counts.sorted { a, b in a.key == "<null>" || (b.key != "<null>" && Array(a.key.utf8).lexicographicallyPrecedes(Array(b.key.utf8))) }
                #expect(groups.map { group -> String in if case .text(let t) = group.key[0] { t } else { "<null>" } } == ordered.map(\.key))
                #expect(groups.map(\.count) == ordered.map(\.value))
                #expect(Set(try store.extraColumnNames()) == Set(wells.flatMap { $0.allKeys.compactMap { $0 as? String } }.filter { $0.hasPrefix("extra.") }.map { String($0.dropFirst(6)) }))
                }
            }
        }
    }
}
