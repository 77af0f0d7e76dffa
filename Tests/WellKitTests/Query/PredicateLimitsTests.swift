import Foundation
import GRDB
import Testing
@testable import WellKit
import WellsTestSupport


/// The `--where` parser's limits and value checks: no input overflows a stack, SQLite's or ours,
/// and a value that cannot match its field is a usage error.
@Suite struct PredicateLimitsTests {
    /// A small store to run the largest predicates the limits allow through SQLite.
    private static let store: WellStore = {
        var csv = "uwi,name,lat,lon,status,county,spud_date,total_depth\n"
        for k in 0..<20 { csv += "W\(k),Well \(k),36.\(k),-85.\(k),\(k % 2 == 0 ? "Abandoned" : "Flowing"),00\(k),2001-01-\(10 + k),\(1000 + 100 * k)\n" }
        let store = try! Fixtures.makeStore()
        _ = try! store.load(csvAt: try! Fixtures.file(csv))
        return store
    }()

    private func uwis(_ predicate: WellPredicate) throws -> [String] {
        try Self.store.fetchWells(WellFetchRequest(predicate: predicate)).map(\.detail.identifier).sorted()
    }

    private func message(_ text: String) -> String? {
        do { _ = try WellPredicate(parsing: text); return nil } catch let error as QueryError {
            #expect(error.subject == .predicate)
            return error.message
        } catch { return "\(error)" }
    }

    @Test func twentyThousandNotsAreAParseErrorNotACrash() throws {
        // The recursive parser overflowed its stack here (a segmentation fault).
        let text = String(repeating: "not ", count: 20_000) + "name = a"
        let error = try #require(message(text))
        #expect(error.contains("nests deeper than 32 levels"), "\(error)")
        #expect(error.contains("at character 129"), "\(error)")
        #expect(error.count < 300, "the message quotes all 80,000 characters")
    }

    @Test func nestingThatSQLiteRefusesIsRefusedFirst() throws {
        // 1,000 nots parsed and failed in SQLite ("parser stack overflow", exit 70) with the whole SQL.
        for text in [String(repeating: "not ", count: 1_000) + "name = a",
                     String(repeating: "(", count: 33) + "name = a" + String(repeating: ")", count: 33)] {
            let error = try #require(message(text))
            #expect(error.contains("32 levels"), "\(error)")
        }
    }

    @Test func fiveThousandOrsAreRefused() throws {
        // They parsed and failed in SQLite: "Expression tree is too large (maximum depth 1000)".
        let text = (0..<5_000).map { "name = w\($0)" }.joined(separator: " or ")
        let error = try #require(message(text))
        #expect(error.contains("more than 500 comparisons"), "\(error)")
        #expect(error.contains("character 7391"), "\(error)")
        let list = "name in (" + (0..<501).map { "w\($0)" }.joined(separator: ", ") + ")"
        #expect(message(list)?.contains("more than 500 comparisons") == true)
    }

    @Test func theLargestAllowedPredicatesRunInSQLite() throws {
        let deepestNot = try WellPredicate(parsing: String(repeating: "not ", count: 32) + "status = Abandoned")
        #expect(try uwis(deepestNot).count == 10)
        // Each level a not and a parenthesis around an or of ands: the deepest SQL the text allows.
        var text = "status = Abandoned and county is not null"
        for _ in 0..<16 { text = "not (status = Flowing or county = x and \(text))" }
        let mixed = try WellPredicate(parsing: text)
        #expect((48...WellPredicate.maximumSQLDepth).contains(mixed.measure().depth))
        #expect(try uwis(mixed).count == 10)
        let widest = try WellPredicate(parsing: (0..<500).map { "total_depth > \($0)" }.joined(separator: " or "))
        #expect(try uwis(widest).count == 20)
        let list = try WellPredicate(parsing: "name in (" + (0..<500).map { "'Well \($0)'" }.joined(separator: ", ") + ")")
        #expect(try uwis(list).count == 20)
        // 32 parentheses, each around an or of ands: two groups of SQL per level.
        var groups = "status = Abandoned"
        for _ in 0..<32 { groups = "(status = Flowing or county = x and \(groups))" }
        let grouped = try WellPredicate(parsing: groups)
        #expect(grouped.measure().depth >= 64)
        #expect(try uwis(grouped).count == 10)
        // Two --where conditions at the limit, joined by and, still run.
        #expect(try uwis(.and([deepestNot, mixed])).count == 10)
    }

    @Test func predicatesBuiltInCodeAreCheckedWhenCompiled() throws {
        var deep = WellPredicate.compare(.status, .equal, "Abandoned")
        for _ in 0..<100 { deep = .not(deep) }
        #expect(throws: QueryError.self) { try QueryCompiler.sqlite.select(WellFetchRequest(predicate: deep), .pins) }
        let wide = WellPredicate.or((0..<1_000).map { .compare(.totalDepth, .greater, .number(Double($0))) })
        #expect(throws: QueryError.self) { try QueryCompiler.sqlite.select(WellFetchRequest(predicate: wide), .pins) }
        #expect(throws: QueryError.self) {
            try QueryCompiler.sqlite.select(WellFetchRequest(predicate: .compare(.totalDepth, .greater, "abc")), .pins)
        }
    }

    @Test func aValueThatCannotMatchItsFieldIsAUsageError() throws {
        // `total_depth > abc` compared a number with text: 0 rows, exit 0.
        for (text, field, value, expected) in [
            ("total_depth > abc", "total_depth", "abc", "a number"),
            ("lat = north", "lat", "north", "a number"),
            ("lon between -90 and west", "lon", "west", "a number"),
            ("id in (1, two)", "id", "two", "a number"),
            ("total_depth > nan", "total_depth", "nan", "a number"),
            ("ground_elevation < inf", "ground_elevation", "inf", "a number"),
            ("spud_date > abc", "spud_date", "abc", "a date"),
            ("plug_date = 2001-13", "plug_date", "2001-13", "a date"),
            ("completion_date = ''", "completion_date", "", "a date"),
        ] {
            let error = try #require(message(text), "\(text) parsed")
            #expect(error.contains("\(field) is \(expected)") && error.contains("\"\(value)\""), "\(error)")
        }
    }

    @Test func valuesThatCanMatchStillParse() throws {
        for text in ["total_depth > 1500", "total_depth > \"1500\"", "lat >= 36.5", "total_depth < 1e4", "id = 3",
                     "spud_date >= 2001", "spud_date < 2001-02", "spud_date = 1/12/2001", "spud_date = 20010112",
                     "spud_date between 2001-01-01 and 2001-12-31", "status = 007", "spud_date contains 01"] {
            #expect(message(text) == nil, "\(text)")
        }
        #expect(try uwis(WellPredicate(parsing: "spud_date = 1/12/2001")) == ["W2"])
        #expect(try uwis(WellPredicate(parsing: "spud_date = 20010112")) == ["W2"])
        #expect(try uwis(WellPredicate(parsing: "spud_date < 2001-02")).count == 20)
        // A bare number compared with a text field keeps its spelling, leading zeros and all.
        #expect(try uwis(WellPredicate(parsing: "county = 003")) == ["W3"])
    }

    @Test func hugeIdentifiersDoNotTrap() throws {
        // `Int64(1e19)` trapped when an id was compared with a number beyond Int64.
        #expect(try uwis(WellPredicate(parsing: "id = 1e19")).isEmpty)
        #expect(try uwis(.compare(.id, .less, .number(-1e300))).isEmpty)
    }
}
