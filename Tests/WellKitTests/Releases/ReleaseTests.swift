import Foundation
import GRDB
import Testing
import WellsTestSupport
@testable import WellKit

/// Releases of a well list (`LoadOptions.release`): three releases of Tennessee's real list
/// (Data/releases, made by its script from Data/real) report exactly the script's answer key,
/// through a re-spelling of every identifier and an undeclared change of datum; the same release
/// loaded again changes nothing; a truncated release stops and changes nothing; each release's
/// values of a well come back from its history.
@Suite struct ReleaseTests {
    /// The answer key of one release (Data/releases/tn-releases-key.json).
    struct Key: Decodable {
        var new: [String]
        var gone: [String]
        var back: [String]
        var changed: [[String?]]
        var moved: [[Value]]
        var respelled: Int?

        enum Value: Decodable {
            case text(String), number(Double)
            init(from decoder: any Decoder) throws {
                let container = try decoder.singleValueContainer()
                if let number = try? container.decode(Double.self) { self = .number(number) } else { self = .text(try container.decode(String.self)) }
            }
            var text: String { if case .text(let t) = self { t } else { "" } }
            var number: Double { if case .number(let n) = self { n } else { .nan } }
        }
    }

    static func release(_ number: Int) -> String {
        number == 1 ? Fixtures.sharedData("tn-oilgas-wells.csv")
            : Fixtures.repositoryRoot.appendingPathComponent("Data/releases/tn-release-\(number).csv.gz").path
    }

    static func options(source: String = "tn-wells", confirmGone: Bool = false) -> LoadOptions {
        var options = LoadOptions()
        options.release = ReleaseOptions(source: source, confirmGone: confirmGone)
        return options
    }

    /// The changes of a release as sets, to compare with a key.
    static func sets(_ changes: [WellChange]) -> (new: Set<String>, gone: Set<String>, back: Set<String>, changed: Set<[String?]>, moved: [String: Double]) {
        (Set(changes.filter { $0.kind == .new }.map(\.identifier)), Set(changes.filter { $0.kind == .gone }.map(\.identifier)),
         Set(changes.filter { $0.kind == .back }.map(\.identifier)),
         Set(changes.filter { $0.kind == .changed }.map { [$0.identifier, $0.field, $0.old, $0.new] }),
         Dictionary(uniqueKeysWithValues: changes.filter { $0.kind == .moved }.map { ($0.identifier, $0.meters ?? .nan) }))
    }

    @Test func tennesseesReleasesReportTheirAnswerKey() throws {
        let keys = try JSONDecoder().decode([String: Key].self, from: Data(contentsOf: Fixtures.repositoryRoot.appendingPathComponent("Data/releases/tn-releases-key.json")))
        let store = try Fixtures.makeStore()
        let first = try store.load(csvAt: Self.release(1), options: Self.options())
        #expect(first.release?.number == 1 && first.release?.summary.new == 16_464 && first.release?.source == "tn-wells")
        for number in [2, 3] {
            let key = try #require(keys[String(number)])
            let summary = try store.load(csvAt: Self.release(number), options: Self.options())
            let release = try #require(summary.release)
            #expect(release.number == number)
            let changes = try store.changes(ChangeQuery(source: "tn-wells"))
            #expect(changes.from == number - 1 && changes.to == number)
            let found = Self.sets(changes.changes)
            #expect(found.new == Set(key.new), "release \(number): new")
            #expect(found.gone == Set(key.gone), "release \(number): gone")
            #expect(found.back == Set(key.back), "release \(number): back")
            let expected = Set(key.changed)
            #expect(found.changed == expected, "release \(number): \(found.changed.subtracting(expected).prefix(3)) not in the key, \(expected.subtracting(found.changed).prefix(3)) not found")
            let moves = Dictionary(uniqueKeysWithValues: key.moved.map { ($0[0].text, $0[1].number) })
            #expect(Set(found.moved.keys) == Set(moves.keys), "release \(number): moved \(Set(found.moved.keys).symmetricDifference(moves.keys).prefix(5))")
            for (identifier, meters) in moves {
                // The key moves wells on a sphere, WellKit measures on the ellipsoid (within 0.5%); release 3 through its change of datum, to within a metre.
                #expect(abs((found.moved[identifier] ?? .nan) - meters) < (number == 3 ? 1 : 0.01) + meters / 200, "\(identifier) moved \(meters) m, found \(found.moved[identifier] ?? .nan)")
            }
            #expect(release.summary.gone == key.gone.count && release.summary.new == key.new.count && release.summary.back == key.back.count)
            #expect(try store.fetchCount(WellFetchRequest()) == release.summary.wells)
            if number == 3 {
                // Every identifier re-spelled and every position in another datum: said once each, not as 16,334 wells gone and new, or moved.
                #expect(release.summary.respelled == key.respelled)
                #expect(release.summary.notes.contains { $0.contains("re-spelled identifiers (") })
                #expect(release.summary.notes.contains { $0.contains("shifted at once") } && release.summary.commonShift != nil)
                #expect(release.summary.wholeReleaseFields == ["uwi"])
                var respellings = ChangeQuery(source: "tn-wells")
                respellings.fields = ["uwi"]
                #expect(try store.changes(respellings).changes.count == key.respelled)
            } else {
                #expect(release.summary.notes.isEmpty && release.summary.commonShift == nil)
                #expect(release.summary.transitions.contains { $0.field == "status" && $0.old == nil })
            }
        }
        // Release 1 to 3 at once: a well gone in 2 and back in 3 is neither; new in 2 stays new.
        let span = try store.changes(ChangeQuery(source: "tn-wells", from: 1, to: 3))
        let spanned = Self.sets(span.changes)
        let back = Set(keys["3"]!.back)
        #expect(spanned.gone.isDisjoint(with: back) && spanned.back.isEmpty)
        let (two, three) = (keys["2"]!, keys["3"]!)
        let backInRelease3 = Set(two.gone.filter { back.contains($0.replacingOccurrences(of: "-", with: "")) })
        #expect(spanned.gone == Set(two.gone).subtracting(backInRelease3).union(Set(three.gone).subtracting(two.new)))
        #expect(spanned.new == Set(two.new.map { $0.replacingOccurrences(of: "-", with: "") }).subtracting(three.gone.map { $0.replacingOccurrences(of: "-", with: "") }).union(three.new))
        #expect(try store.releases().map(\.number) == [1, 2, 3])
    }

    @Test func theSameReleaseLoadedAgainChangesNothing() throws {
        let store = try Fixtures.makeStore()
        let file = try Fixtures.file("uwi,lat,lon,status\nA,36.1,-85.1,Active\nB,36.2,-85.2,Active\nC,36.3,-85.3,Plugged\n", name: "list-2026-05.csv")
        #expect(try store.load(csvAt: file, options: Self.options(source: "list")).release?.number == 1)
        let again = try #require(try store.load(csvAt: file, options: Self.options(source: "list")).release)
        #expect(again.number == 1 && again.summary.reloaded)
        let second = try Fixtures.file("uwi,lat,lon,status\nA,36.1,-85.1,Plugged\nB,36.2,-85.2,Active\nC,36.3,-85.3,Plugged\n", name: "list-2026-06.csv")
        // Without a source, the name of the file less its date: list-2026-05.csv and list-2026-06.csv are releases of "list".
        var unnamed = LoadOptions()
        unnamed.release = ReleaseOptions()
        #expect(try store.load(csvAt: second, options: unnamed).release.map { ($0.source, $0.number) } ?? ("", 0) == ("list", 2))
        let reloaded = try #require(try store.load(csvAt: second, options: unnamed).release)
        #expect(reloaded.number == 2 && reloaded.summary.reloaded && reloaded.summary.changed == 0)
        #expect(try store.releases(of: "list").count == 2)
        let changes = try store.changes(ChangeQuery(source: "list")).changes
        #expect(changes.map { [$0.identifier, $0.field, $0.old, $0.new] } == [["A", "status", "Active", "Plugged"]])
    }

    @Test func aTruncatedReleaseStopsAndChangesNothing() throws {
        let store = try Fixtures.makeStore()
        let rows = (1...20).map { "W\($0),\(36 + Double($0) / 100),-85.5" }
        _ = try store.load(csvAt: try Fixtures.file("uwi,lat,lon\n" + rows.joined(separator: "\n")), options: Self.options(source: "s"))
        let path = try Fixtures.file("uwi,lat,lon\n" + rows.prefix(4).joined(separator: "\n"))
        let error = try #require(throws: ReleaseError.self) { try store.load(csvAt: path, options: Self.options(source: "s")) }
        #expect(error.code == .mostGone)
        #expect(error.message.contains("lists 4 of the 20 wells of release 1: 16 (80%) would be marked gone") && error.message.contains("--confirm-gone"))
        #expect(try store.fetchCount(WellFetchRequest()) == 20 && store.releases().count == 1)
        #expect(try store.pool.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM loads") } == 1)
        // Confirmed: the 16 are gone, out of the queries and in the changes with their last values.
        let confirmed = try #require(try store.load(csvAt: path, options: Self.options(source: "s", confirmGone: true)).release)
        #expect(confirmed.summary.gone == 16 && confirmed.summary.wells == 4)
        #expect(try store.fetchCount(WellFetchRequest()) == 4 && store.well(identifier: "W20") == nil)
        let gone = try store.changes(ChangeQuery(source: "s")).changes.filter { $0.kind == .gone }
        #expect(gone.count == 16 && gone.first { $0.identifier == "W20" }?.old?.contains(#""lat":"36.2""#) == true)
    }

    @Test func aWellsHistoryHasEachReleasesValues() throws {
        let store = try Fixtures.makeStore()
        let releases = [
            "uwi,lat,lon,status,operator\nA,36.1,-85.1,Active,Acme\nB,36.2,-85.2,Active,Acme\nC,36.3,-85.3,Active,Acme\n",
            "uwi,lat,lon,status,operator\nA,36.1005,-85.1,Plugged,Acme\nB,36.2,-85.2,Active,Acme\nC,36.3,-85.3,Active,Acme\n",
            "uwi,lat,lon,status,operator\nB,36.2,-85.2,Active,Bravo\nC,36.3,-85.3,Active,Acme\n",
            "uwi,lat,lon,status,operator\nA,36.1005,-85.1,Orphaned,Acme\nB,36.2,-85.2,Active,Bravo\nC,36.3,-85.3,Active,Acme\n",
        ]
        for text in releases { _ = try store.load(csvAt: try Fixtures.file(text), options: Self.options(source: "h")) }
        let history = try store.history(of: "A")
        #expect(history.map(\.release) == [1, 2, 3, 4])
        #expect(history.map { $0.values?["status"] } == ["Active", "Plugged", nil, "Orphaned"])
        #expect(history.map { $0.values?["lat"] } == ["36.1", "36.1005", nil, "36.1005"])
        #expect(history.map(\.kinds) == [[], [.changed, .moved], [.gone], [.back]])
        let moved = try #require(try store.changes(ChangeQuery(source: "h", from: 1, to: 2)).changes.first { $0.kind == .moved })
        #expect(abs((moved.meters ?? 0) - 55.5) < 1 && moved.previousPosition?.latitude == 36.1)
        #expect(try store.history(of: "B").map { $0.values?["operator"] } == ["Acme", "Acme", "Bravo", "Bravo"])
        #expect(try store.history(of: "nothing").isEmpty)
    }

    @Test func sourceNamesLeaveOutTheDate() {
        for (file, source) in [("co-orphans-2026-05.csv", "co-orphans"), ("/data/co-orphans-2026-06.csv", "co-orphans"), ("co-orphans_20260601.csv.gz", "co-orphans"),
                               ("wells_05-31-2026.xlsx", "wells"), ("TN Wells May 2026.csv", "TN Wells"), ("wells.csv", "wells"), ("2026-05.csv", "2026-05.csv"),
                               ("orphans.v2.csv", "orphans.v2")] {
            #expect(WellRelease.sourceName(ofFile: file) == source, "\(file)")
        }
        #expect(WellRelease.normalizedIdentifier("05-001-20345") == WellRelease.normalizedIdentifier("0500120345"))
        #expect(WellRelease.normalizedIdentifier("05-001-20345-00-00") == "0500120345")
        #expect(WellRelease.normalizedIdentifier("05-001-20345-01") != "0500120345")
    }

    /// Wells a plain load wrote join the source when a release lists them, unchanged or not; the
    /// next release that leaves them out marks them gone.
    @Test func wellsOfAPlainLoadJoinTheSourceThatListsThem() throws {
        let store = try Fixtures.makeStore()
        _ = try store.load(csvAt: try Fixtures.file("uwi,lat,lon,status\nA,36.1,-85.1,Active\nB,36.2,-85.2,Active\n"))
        _ = try store.load(csvAt: try Fixtures.file("uwi,lat,lon,status\nA,36.1,-85.1,Active\nB,36.2,-85.2,Active\nC,36.3,-85.3,Active\nD,36.4,-85.4,Active\n"),
                           options: Self.options(source: "j"))
        let second = try #require(try store.load(csvAt: try Fixtures.file("uwi,lat,lon,status\nC,36.3,-85.3,Active\nD,36.4,-85.4,Plugged\n"),
                                                 options: Self.options(source: "j", confirmGone: true)).release)
        #expect(second.summary.gone == 2 && second.summary.changed == 1)
        #expect(Set(try store.changes(ChangeQuery(source: "j")).changes.filter { $0.kind == .gone }.map(\.identifier)) == ["A", "B"])
    }

    @Test func aPlainLoadKeepsNoRelease() throws {
        let store = try Fixtures.makeStore()
        let summary = try store.load(csvAt: try Fixtures.file("uwi,lat,lon\nA,36.1,-85.1\n"))
        #expect(try summary.release == nil && store.releases().isEmpty)
        #expect(throws: ReleaseError.self) { try store.changes() }
    }
}
