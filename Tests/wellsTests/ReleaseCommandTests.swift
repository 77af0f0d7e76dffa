import Foundation
import Testing
import WellsTestSupport
@testable import WellKit

/// Releases through `wells`: `load --release` says what changed, `changes` prints its summary on
/// standard error and one row per change in every format (a moved well's GeoJSON feature a line
/// from its old place to its new one), `--list` lists the releases, `show --history` each
/// release's values of one well, and a truncated release stops with exit 65, changing nothing.
@Suite struct ReleaseCommandTests {
    static func wells(_ arguments: [String]) throws -> (status: Int32, out: String, err: String) {
        try HardeningTests.wells(arguments)
    }

    static let releases = [
        "uwi,lat,lon,status,operator\nA,36.1,-85.1,Active,Acme\nB,36.2,-85.2,Active,Acme\nC,36.3,-85.3,Active,Acme\nD,36.4,-85.4,Active,Acme\n",
        "uwi,lat,lon,status,operator\nA,36.1,-85.1,Plugged,Acme\nB,36.2009,-85.2,Active,Acme\nC,36.3,-85.3,Active,Acme\nE,36.5,-85.5,Permitted,Bravo\n",
    ]

    @Test func changesBetweenTwoReleasesInEveryFormat() async throws {
        try await runBlocking { try withTemporaryDirectory("wells-releases") { directory in
            let db = directory.appendingPathComponent("wells.sqlite").path
            for (k, text) in Self.releases.enumerated() {
                let file = directory.appendingPathComponent("orphans-2026-0\(k + 5).csv")
                try Data(text.utf8).write(to: file)
                let load = try Self.wells(["load", file.path, "--release", "--db", db, "-q"])
                #expect(load.status == 0, "\(load.err)")
                #expect(load.out.contains(k == 0 ? "release                1 of orphans: 4 wells"
                                                 : "release                2 of orphans: 4 wells; new 1, gone 1, back 0, changed 1, moved 1"), "\(load.out)")
            }
            let table = try Self.wells(["changes", "--db", db])
            #expect(table.status == 0, "\(table.err)")
            #expect(table.err.contains("orphans: release 1 → release 2") && table.err.contains("new 1, gone 1, back 0, changed 1, moved 1"), "\(table.err)")
            #expect(table.err.contains("status: Active → Plugged 1"), "\(table.err)")
            let json = try Self.wells(["changes", "--db", db, "--format", "json"])
            let objects = try #require(try JSONSerialization.jsonObject(with: Data(json.out.utf8)) as? [[String: Any]])
            let kinds = objects.map { "\($0["uwi"]!) \($0["kind"]!)" }
            #expect(kinds == ["A changed", "B moved", "D gone", "E new"], "\(kinds)")
            #expect(objects[0]["field"] as? String == "status" && objects[0]["old"] as? String == "Active" && objects[0]["new"] as? String == "Plugged")
            #expect(abs((objects[1]["meters"] as? Double ?? 0) - 99.9) < 1, "\(objects[1])")
            let ndjson = try Self.wells(["changes", "--db", db, "--format", "ndjson", "--kind", "gone"])
            #expect(ndjson.out.split(separator: "\n").count == 1 && ndjson.out.contains(#""uwi":"D""#), "\(ndjson.out)")
            let geojson = try Self.wells(["changes", "--db", db, "--format", "geojson", "--kind", "moved"])
            let collection = try #require(try JSONSerialization.jsonObject(with: Data(geojson.out.utf8)) as? [String: Any])
            let geometry = try #require(((collection["features"] as? [[String: Any]])?.first?["geometry"]) as? [String: Any])
            #expect(geometry["type"] as? String == "LineString" && (geometry["coordinates"] as? [[Double]]) == [[-85.2, 36.2], [-85.2, 36.2009]], "\(geometry)")
            // A tolerance over the move leaves it out.
            let far = try Self.wells(["changes", "--db", db, "--format", "csv", "--kind", "moved", "--moved-over", "150"])
            #expect(far.status == 0 && far.out == "kind,uwi,release,field,old,new,meters,lat,lon\n", "\(far.out)")
            let list = try Self.wells(["changes", "--list", "--db", db, "--format", "csv"])
            #expect(list.out.split(separator: "\n").count == 3 && list.out.contains("orphans,2,"), "\(list.out)")
            let history = try Self.wells(["show", "A", "--history", "--db", db, "--format", "csv"])
            #expect(history.status == 0, "\(history.err)")
            let rows = history.out.split(separator: "\n").map(String.init)
            #expect(rows.count == 3 && rows[1].hasPrefix("orphans,1,,yes,A,") && rows[2].hasPrefix("orphans,2,changed,yes,A,") && rows[2].contains("Plugged"), "\(history.out)")
            let goneHistory = try Self.wells(["show", "D", "--history", "--db", db, "--format", "csv"])
            #expect(goneHistory.out.split(separator: "\n").dropFirst().map { $0.split(separator: ",", omittingEmptySubsequences: false).prefix(4).joined(separator: ",") } == ["orphans,1,,yes", "orphans,2,gone,no"], "\(goneHistory.out)")
            // Bad release numbers and sources: exit 66 with what the store has.
            let missing = try Self.wells(["changes", "--db", db, "--to", "9"])
            #expect(missing.status == 66 && missing.err.contains("orphans has no release 9; its releases are 1 to 2"), "\(missing.err)")
            let unknown = try Self.wells(["changes", "--db", db, "--source", "nope"])
            #expect(unknown.status == 66 && unknown.err.contains("its sources are orphans"), "\(unknown.err)")
        } }
    }

    @Test func aTruncatedReleaseStopsWithExit65() async throws {
        try await runBlocking { try withTemporaryDirectory("wells-truncated-release") { directory in
            let db = directory.appendingPathComponent("wells.sqlite").path
            let whole = directory.appendingPathComponent("list.csv"), cut = directory.appendingPathComponent("list-cut.csv")
            let rows = (1...30).map { "W\($0),\(36 + Double($0) / 100),-85.5" }
            try Data(("uwi,lat,lon\n" + rows.joined(separator: "\n")).utf8).write(to: whole)
            try Data(("uwi,lat,lon\n" + rows.prefix(3).joined(separator: "\n")).utf8).write(to: cut)
            #expect(try Self.wells(["load", whole.path, "--release", "--source", "list", "--db", db, "-q"]).status == 0)
            let before = try Data(contentsOf: URL(fileURLWithPath: db))
            let stopped = try Self.wells(["load", cut.path, "--release", "--source", "list", "--db", db, "-q"])
            #expect(stopped.status == 65, "\(stopped.err)")
            #expect(stopped.err.contains("lists 3 of the 30 wells of release 1: 27 (90%) would be marked gone") && stopped.err.contains("--confirm-gone"), "\(stopped.err)")
            #expect(try Self.wells(["count", "--db", db]).out.contains("30"))
            #expect(try Data(contentsOf: URL(fileURLWithPath: db)).count == before.count)
            let confirmed = try Self.wells(["load", cut.path, "--release", "--source", "list", "--confirm-gone", "--db", db, "-q"])
            #expect(confirmed.status == 0 && confirmed.out.contains("gone 27"), "\(confirmed.out)")
            let usage = try Self.wells(["load", cut.path, "--confirm-gone", "--db", db])
            #expect(usage.status == 64 && usage.err.contains("options of --release"), "\(usage.err)")
        } }
    }
}
