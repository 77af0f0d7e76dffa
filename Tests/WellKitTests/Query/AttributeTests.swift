import Foundation
import GRDB
import Testing
@testable import WellKit
import WellsTestSupport

/// Attributes everywhere: unmapped source columns (`extra.NAME`) in predicates, sorts, selections
/// and groups, and `=[c]`/`!=[cd]`, on the file engine and on PostgreSQL, against answers worked
/// out in Swift from the wells' own `extra` dictionaries (decoded by Foundation, not by SQL).
@Suite struct AttributeTests {
    // MARK: - Names and parsing

    @Test func keyPathsNameFieldsAndExtraColumns() throws {
        #expect(try WellAttribute(keyPath: "status") == .status)
        #expect(try WellAttribute(keyPath: "detail.spud_date") == .spudDate)
        #expect(try WellAttribute(keyPath: "extra.DRILLER") == .extra("DRILLER"))
        #expect(try WellAttribute(keyPath: "extra.a.b c\"$") == .extra("a.b c\"$"))
        #expect(WellAttribute.extra("DRILLER").name == "extra.DRILLER" && WellAttribute.status.name == "status")
        #expect(WellAttribute.extra("X").kind == .text && WellAttribute.totalDepth.kind == .real)
        #expect(try WellSortDescriptor(parsing: "extra.X:desc") == WellSortDescriptor(.extra("X"), ascending: false))
        do {
            _ = try WellAttribute(keyPath: "colour")
            Issue.record("an unknown name resolved")
        } catch let error as QueryError {
            #expect(error.message.contains("valid fields: id, name") && error.message.contains("extra.NAME"), "\(error.message)")
        }
        do {
            _ = try WellAttribute(keyPath: "extra.")
            Issue.record("extra. with no name resolved")
        } catch let error as QueryError {
            #expect(error.message.contains("names no column"), "\(error.message)")
        }
    }

    @Test func equalityTakesModifiersLikeTheStringOperators() throws {
        #expect(try WellPredicate(parsing: "status =[c] abandoned") == .string(.status, .equals, "abandoned", options: .caseInsensitive))
        #expect(try WellPredicate(parsing: "status ==[cd] x") == .string(.status, .equals, "x", options: [.caseInsensitive, .diacriticInsensitive]))
        #expect(try WellPredicate(parsing: "status !=[d] x") == .string(.status, .notEquals, "x", options: .diacriticInsensitive))
        #expect(try WellPredicate(parsing: "status <>[C] x") == .string(.status, .notEquals, "x", options: .caseInsensitive))
        #expect(try WellPredicate(parsing: "extra.X =[c] 7") == .string(.extra("X"), .equals, "7", options: .caseInsensitive))
        // A bracket after a space is a value, as before; on numbers and dates `=[c]` is `=`.
        #expect(try WellPredicate(parsing: "status = [c]") == .compare(.status, .equal, "[c]"))
        #expect(try WellPredicate(parsing: "total_depth =[c] 1200") == .compare(.totalDepth, .equal, 1200))
        #expect(try WellPredicate(parsing: "spud_date !=[cd] 1/12/2001") == .compare(.spudDate, .notEqual, "1/12/2001"))
        #expect(try WellPredicate(parsing: #""extra.Well Name" beginswith[c] ab"#) == .string(.extra("Well Name"), .beginsWith, "ab", options: .caseInsensitive))
        for (text, says) in [("status =[x] a", "unknown modifier \"x\""), ("status =[c]a b", "expected [c], [d] or [cd] right after"),
                             ("status <[c] a", "unexpected \"a\""), ("extra. = 1", "names no column")] {
            #expect(throws: QueryError.self, "\(text)") { try WellPredicate(parsing: text) }
            do { _ = try WellPredicate(parsing: text) } catch let error as QueryError {
                #expect(error.message.contains(says), "\(text): \(error.message)")
            }
        }
    }

    // MARK: - The Pennsylvania list's unmapped columns

    /// The USGS NWIS Pennsylvania list: six of its columns map to no field (`agency_cd`,
    /// `alt_datum_cd`, `hole_depth_va`, …) and stay in `extra`.
    private static func pennsylvania(_ engine: Engine) throws -> (store: WellStore, wells: [Well]) {
        let store = try engine.makeStore()
        _ = try store.load(csvAt: Fixtures.sharedData("usgs-nwis-pa-gw-sites.tsv"))
        return (store, try store.fetchWells(WellFetchRequest(sortDescriptors: [WellSortDescriptor(.id)])))
    }

    /// Bytewise order, as SQLite's BINARY and PostgreSQL's "C" collation sort text.
    private static func before(_ a: String, _ b: String) -> Bool { a.utf8.lexicographicallyPrecedes(b.utf8) }

    @Test(.lane(.slow), arguments: [Engine.file]) func whereSortAndFieldsReadExtraColumns(engine: Engine) throws {
        let (store, wells) = try Self.pennsylvania(engine)
        let extras = wells.map(\.detail.extra)
        #expect(try store.extraColumnNames() == Set(extras.flatMap(\.keys)).sorted())
        #expect(try store.extraColumnNames().contains("alt_datum_cd") && store.extraColumnNames().contains("hole_depth_va"))

        func uwis(_ predicate: String) throws -> Set<String> {
            Set(try store.fetchDictionaries(WellFetchRequest(predicate: try WellPredicate(parsing: predicate)), properties: [.identifier])
                .compactMap { $0["uwi"]?.string })
        }
        func expected(_ keep: ([String: String]) -> Bool) -> Set<String> {
            Set(zip(wells, extras).filter { keep($0.1) }.map(\.0.detail.identifier))
        }
        let cases: [(String, ([String: String]) -> Bool)] = [
            ("extra.alt_datum_cd = NAVD88", { $0["alt_datum_cd"] == "NAVD88" }),
            (#"extra.alt_datum_cd != "NAVD88""#, { $0["alt_datum_cd"].map { $0 != "NAVD88" } ?? false }),
            // Text: "950" > "90" and "1200" < "90".
            ("extra.hole_depth_va > 90", { $0["hole_depth_va"].map { Self.before("90", $0) } ?? false }),
            ("extra.alt_datum_cd beginswith[c] ngv", { $0["alt_datum_cd"]?.lowercased().hasPrefix("ngv") ?? false }),
            ("extra.alt_datum_cd =[c] navd88", { $0["alt_datum_cd"]?.lowercased() == "navd88" }),
            // Stored values that are codes of repeated texts: the condition meets the text, not the code.
            ("extra.alt_datum_cd between NAVD88 and NGVD29", { $0["alt_datum_cd"].map { !Self.before($0, "NAVD88") && !Self.before("NGVD29", $0) } ?? false }),
            ("extra.alt_datum_cd endswith 29 or extra.alt_datum_cd contains VD8", { ($0["alt_datum_cd"]?.hasSuffix("29") ?? false) || ($0["alt_datum_cd"]?.contains("VD8") ?? false) }),
            ("not (extra.alt_datum_cd beginswith NA)", { $0["alt_datum_cd"].map { !$0.hasPrefix("NA") } ?? false }),
            ("extra.alt_datum_cd in (NGVD29, NAVD88) and extra.hole_depth_va is not null",
             { ["NGVD29", "NAVD88"].contains($0["alt_datum_cd"] ?? "") && $0["hole_depth_va"] != nil }),
            ("extra.hole_depth_va is null", { $0["hole_depth_va"] == nil }),
            ("extra.no_such_column is null", { _ in true }),
        ]
        for (predicate, keep) in cases {
            let want = expected(keep)
            #expect(!want.isEmpty, "\(predicate) selects no well: a weak case")
            #expect(try uwis(predicate) == want, "\(predicate)")
        }

        // Sorted as text, descending (nulls last), then by id.
        let sorted = try store.fetchIDs(WellFetchRequest(sortDescriptors: [try WellSortDescriptor(parsing: "extra.hole_depth_va:desc")]))
        // (`extra` decodes the JSON on each call: once per well here.)
        let oracle = zip(wells.map(\.id), extras.map { $0["hole_depth_va"] }).sorted { a, b in
            switch (a.1, b.1) {
            case let (x?, y?) where x != y: Self.before(y, x)
            case (_?, nil): true
            case (nil, _?): false
            default: a.0 < b.0
            }
        }.map(\.0)
        #expect(sorted == oracle)

        // Selected beside fields, by name; a well without the column gets null.
        let rows = try store.fetchDictionaries(WellFetchRequest(sortDescriptors: [WellSortDescriptor(.id)]),
                                               properties: [.identifier, .extra("hole_depth_va"), .extra("alt_datum_cd")])
        #expect(rows.count == wells.count)
        for (row, (well, extra)) in zip(rows, zip(wells, extras)) {
            #expect(row["uwi"]?.string == well.detail.identifier)
            #expect(row["extra.hole_depth_va"] == WellValue(extra["hole_depth_va"]))
            #expect(row["extra.alt_datum_cd"] == WellValue(extra["alt_datum_cd"]))
        }
        var streamed = 0
        try store.forEachRow(WellFetchRequest(predicate: .compare(.extra("alt_datum_cd"), .equal, "NAVD88")), fields: [.extra("alt_datum_cd"), .id]) { row in
            #expect((row[0] as String) == "NAVD88")
            streamed += 1
        }
        #expect(streamed == expected { $0["alt_datum_cd"] == "NAVD88" }.count)

        // Grouped by an extra column: the counts of each value, null included.
        let groups = try store.groups(WellFetchRequest(), by: .fields([.extra("alt_datum_cd")]))
        var counts: [String?: Int] = [:]
        for extra in extras { counts[extra["alt_datum_cd"], default: 0] += 1 }
        #expect(Dictionary(uniqueKeysWithValues: groups.map { ($0.key[0].string, $0.count) }) == counts)
    }

    // MARK: - Awkward names and =[c]

    /// Columns no field maps, with a quote, a dot, a space, `$`, a backslash and SQL in their names.
    static let awkward = [#"Well "Name". $x"#, #"a\b"#, "a.b c$", "x'); DROP TABLE pins; --", "Forage É"]

    private static func awkwardStore(_ engine: Engine) throws -> WellStore {
        let store = try engine.makeStore()
        let header = (["uwi", "name", "lat", "lon", "operator"] + awkward).map { "\"" + $0.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }
        let rows = [
            ["1", "A", "36.1", "-85.1", "Écho Ltd", "one", "b1", "c1", "d1", "Écija"],
            ["2", "B", "36.2", "-85.2", "echo ltd", "two", "b2", "c2", "d2", "ecija"],
            ["3", "C", "36.3", "-85.3", "ECHO LTD", "one", "b3", "", "d3", "ÉCIJA"],
            ["4", "D", "36.4", "-85.4", "Echo Ltd.", "three", "b4", "c4", "d4", "Ecija"],
            ["5", "E", "36.5", "-85.5", "", "One", "b5", "c5", "d5", "Sevilla"],
        ]
        let csv = ([header.joined(separator: ",")] + rows.map { $0.joined(separator: ",") }).joined(separator: "\n") + "\n"
        _ = try store.load(csvAt: try Fixtures.file(csv))
        return store
    }

    private static func uwis(_ store: WellStore, _ predicate: WellPredicate) throws -> [String] {
        try store.fetchWells(WellFetchRequest(predicate: predicate)).map(\.detail.identifier).sorted()
    }

    @Test(arguments: [Engine.file]) func awkwardColumnNamesAreBoundNeverSQL(engine: Engine) throws {
        let store = try Self.awkwardStore(engine)
        #expect(try store.extraColumnNames() == Self.awkward.sorted())
        let quoted = WellAttribute.extra(Self.awkward[0]), backslash = WellAttribute.extra(Self.awkward[1])
        let dotted = WellAttribute.extra(Self.awkward[2]), sql = WellAttribute.extra(Self.awkward[3])
        #expect(try Self.uwis(store, .compare(quoted, .equal, "one")) == ["1", "3"])
        #expect(try Self.uwis(store, try WellPredicate(parsing: #""extra.Well \"Name\". $x" =[c] one"#)) == ["1", "3", "5"])
        #expect(try Self.uwis(store, .compare(backslash, .equal, "b2")) == ["2"])
        #expect(try Self.uwis(store, .isNull(dotted)) == ["3"])
        #expect(try Self.uwis(store, .string(sql, .endsWith, "4")) == ["4"])
        #expect(try store.fetchCount(WellFetchRequest()) == 5, "the pins table is still there")
        let rows = try store.fetchDictionaries(WellFetchRequest(sortDescriptors: [WellSortDescriptor(quoted, ascending: false), WellSortDescriptor(.identifier)]),
                                               properties: [.identifier] + Self.awkward.map(WellAttribute.extra))
        #expect(rows.map { $0["uwi"]?.string ?? "" } == ["2", "4", "1", "3", "5"])   // two, three, one, one, One (bytes: "O" < "o")
        #expect(rows[0]["extra." + Self.awkward[0]]?.string == "two" && rows[0]["extra." + Self.awkward[4]]?.string == "ecija")

        // No name reaches the SQL text, on either dialect: each is a bound value.
        let request = WellFetchRequest(predicate: .and(Self.awkward.map { .compare(.extra($0), .equal, "v") }),
                                       sortDescriptors: Self.awkward.map { WellSortDescriptor(.extra($0)) })
        for compiler in [QueryCompiler.sqlite, .postgres] {
            let literal = try compiler.select(request, .named(Self.awkward.map(WellAttribute.extra))).literal
            for name in Self.awkward {
                #expect(!literal.text.contains(name), "\(name) in \(literal.text)")
                let escaped = name.replacingOccurrences(of: "\\", with: "\\\\")   // in a JSON path
                #expect(literal.values.contains { String.fromDatabaseValue($0).map { $0 == name || $0.contains(escaped) } ?? false },
                        "\(name) is not among the arguments")
            }
            for word in ["Name", "DROP", "Forage", "a.b"] { #expect(!literal.text.contains(word), "\(word) in \(literal.text)") }
        }
    }

    @Test(arguments: [Engine.file]) func equalityModifiersFoldCaseAndDiacritics(engine: Engine) throws {
        let store = try Self.awkwardStore(engine)
        let cases: [(String, [String])] = [
            (#"operator = "echo ltd""#, ["2"]),
            (#"operator =[c] "echo ltd""#, ["2", "3"]),
            (#"operator =[d] "Echo Ltd""#, ["1"]),
            (#"operator =[cd] "echo ltd""#, ["1", "2", "3"]),
            (#"operator ==[cd] "ÉCHO LTD""#, ["1", "2", "3"]),
            (#"operator !=[c] "echo ltd""#, ["1", "4"]),   // not 5, whose operator is null
            (#"operator <>[cd] "echo ltd""#, ["4"]),
            (#""extra.Forage É" =[cd] ecija"#, ["1", "2", "3", "4"]),
            (#""extra.Forage É" =[c] "écija""#, ["1", "3"]),
            (#""extra.Forage É" =[d] Ecija"#, ["1", "4"]),
            (#"not "extra.Forage É" !=[c] ÉCIJA"#, ["1", "3"]),
        ]
        for (text, expected) in cases {
            #expect(try Self.uwis(store, try WellPredicate(parsing: text)) == expected, "\(text)")
        }
    }
}

/// The same tests against PostgreSQL: the same answers as the file engine's.
@Suite(.serialized, .lane(.postgres), .blocking) struct AttributePostGISTests {
    @Test func whereSortAndFieldsReadExtraColumns() throws { try AttributeTests().whereSortAndFieldsReadExtraColumns(engine: .postgis) }
    @Test func awkwardColumnNamesAreBoundNeverSQL() throws { try AttributeTests().awkwardColumnNamesAreBoundNeverSQL(engine: .postgis) }
    @Test func equalityModifiersFoldCaseAndDiacritics() throws { try AttributeTests().equalityModifiersFoldCaseAndDiacritics(engine: .postgis) }

    /// Both engines give the same rows, in the same order, for where, sort and fields over extra columns.
    @Test func bothEnginesAgreeOnExtraColumns() throws {
        let path = Fixtures.sharedData("usgs-nwis-pa-gw-sites.tsv")
        let file = try Fixtures.makeStore(), server = try PostGIS.makeStore()
        _ = try file.load(csvAt: path)
        _ = try server.load(csvAt: path)
        #expect(try file.extraColumnNames() == server.extraColumnNames())
        let request = WellFetchRequest(predicate: try WellPredicate(parsing: "extra.alt_datum_cd =[c] ngvd29 or extra.hole_depth_va beginswith 1"),
                                       sortDescriptors: [try WellSortDescriptor(parsing: "extra.hole_depth_va:desc"), WellSortDescriptor(.identifier)])
        let fields: [WellAttribute] = [.identifier, .extra("hole_depth_va"), .extra("alt_datum_cd"), .extra("agency_cd")]
        func rows(_ store: WellStore) throws -> [[WellValue]] {
            var rows: [[WellValue]] = []
            try store.forEachRow(request, fields: fields) { rows.append($0.values) }
            return rows
        }
        let a = try rows(file), b = try rows(server)
        #expect(a.count > 1_000)
        #expect(a == b)
        let byDatum = { (store: WellStore) in try store.groups(WellFetchRequest(), by: .fields([.extra("alt_datum_cd")])).map { "\($0.key) \($0.count)" } }
        #expect(try byDatum(file) == byDatum(server))
    }
}
