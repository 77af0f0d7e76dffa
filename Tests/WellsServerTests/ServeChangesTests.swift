import Foundation
import Testing
import WellsTestSupport
@testable import WellKit

/// `/collections/wells/changes` on `wells serve`: the changes between two releases, as the library
/// gives them, a page at a time with `next` links; a move as a line; the answer follows the store
/// (a new release changes it, and its ETag); bad parameters are 400s and unknown releases 404s.
@Suite struct ServeChangesTests {
    static let releases = [
        "uwi,lat,lon,status\nA,36.1,-85.1,Active\nB,36.2,-85.2,Active\nC,36.3,-85.3,Active\nD,36.4,-85.4,Active\n",
        "uwi,lat,lon,status\nA,36.1,-85.1,Plugged\nB,36.2009,-85.2,Active\nC,36.3,-85.3,Orphaned\nE,36.5,-85.5,Permitted\n",
        "uwi,lat,lon,status\nA,36.1,-85.1,Plugged\nB,36.2009,-85.2,Active\nC,36.3,-85.3,Orphaned\nD,36.4,-85.4,Active\nE,36.5,-85.5,Permitted\n",
    ]

    static func features(_ body: Data) throws -> (collection: [String: Any], features: [[String: Any]]) {
        let collection = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
        return (collection, collection["features"] as? [[String: Any]] ?? [])
    }

    @Test func theFeedListsTheChangesAndFollowsTheStore() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("serve-changes-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/wells.sqlite"
        let writer = try WellStore(path: path)
        var options = LoadOptions()
        options.release = ReleaseOptions(source: "orphans")
        for text in Self.releases.prefix(2) { _ = try writer.load(csvAt: try Fixtures.file(text), options: options) }
        let server = try await ServedWells(arguments: ["serve", "--db", path, "--port", "0", "--exit-with-stdin"])
        let url = server.url + "collections/wells/changes"

        let first = try await HTTP.get(url)
        #expect(first.status == 200 && first.headers["Content-Type"] == "application/geo+json", "\(first.status)")
        let (collection, features) = try Self.features(first.body)
        let expected = try await writer.changes(ChangeQuery(source: "orphans")).changes
        #expect(collection["from"] as? Int == 1 && collection["to"] as? Int == 2 && collection["numberMatched"] as? Int == expected.count)
        let served = features.map { feature in
            let p = feature["properties"] as? [String: Any] ?? [:]
            return "\(p["uwi"] ?? "") \(p["kind"] ?? "") \(p["field"] as? String ?? "") \(p["new"] as? String ?? "")"
        }
        #expect(served == expected.map { "\($0.identifier) \($0.kind.rawValue) \($0.field ?? "") \($0.new ?? "")" }, "\(served)")
        #expect(served.contains("A changed status Plugged") && served.contains("D gone  ") && served.contains("E new  "), "\(served)")
        let move = try #require(features.first { ($0["properties"] as? [String: Any])?["kind"] as? String == "moved" })
        #expect((move["geometry"] as? [String: Any])?["type"] as? String == "LineString")

        // Pages of two, followed by their next links, give the same changes.
        var pages: [String] = [], next: String? = url + "?limit=2"
        while let link = next {
            let page = try Self.features(try await HTTP.get(link).body)
            pages += page.features.map { ($0["properties"] as? [String: Any])?["uwi"] as? String ?? "" }
            next = (page.collection["links"] as? [[String: Any]])?.first { $0["rel"] as? String == "next" }?["href"] as? String
        }
        #expect(pages == expected.map(\.identifier))

        // A third release: the same URL answers release 2 → 3, with a new ETag; the old ETag is not honoured.
        let etag = try #require(first.headers["Etag"] ?? first.headers["ETag"])
        _ = try writer.load(csvAt: try Fixtures.file(Self.releases[2]), options: options)
        let third = try await HTTP.get(url, headers: ["If-None-Match": etag])
        #expect(third.status == 200)
        let after = try Self.features(third.body)
        #expect(after.collection["to"] as? Int == 3 && after.features.count == 1)
        #expect((after.features.first?["properties"] as? [String: Any])?["kind"] as? String == "back")

        let kinds = try await HTTP.get(url + "?from=1&to=3&kind=gone,back")
        #expect(try kinds.status == 200 && Self.features(kinds.body).features.isEmpty, "gone in 2 and back in 3 is neither, from 1 to 3")
        // What /api's pattern for since allows is answered: a day past its month's end, a moment with an offset, with from too.
        for since in ["2026-02-31", "2026-05-01T00:00:00%2B02:00", "2999-01-01T00:00:00Z"] {
            #expect(try await HTTP.get(url + "?since=" + since + "&from=1").status == 200, "\(since)")
        }
        for bad in ["May", "", "0", "2026-13-01", "2026-05-01T", "2026-05-01T25:00:00Z", "T"] {
            #expect(try await HTTP.get(url + "?since=" + bad).status == 400, "since=\(bad)")
        }
        #expect(try await HTTP.get(url + "?kind=lost").status == 400)
        #expect(try await HTTP.get(url + "?from=5").status == 404)
        #expect(try await HTTP.get(url + "?source=nope").status == 404)
        #expect(try await HTTP.get(url + "?frm=1").status == 400)
        let api = try await HTTP.get(server.url + "api")
        #expect(String(decoding: api.body, as: UTF8.self).contains("/collections/{collectionId}/changes"))
        try writer.close()
    }

    /// The feed on Tennessee's three releases (Data/releases) reports their answer key, as the library does.
    @Test func theFeedReportsTennesseesAnswerKey() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("serve-changes-tn-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/wells.sqlite", root = RepositoryData.root
        let writer = try WellStore(path: path)
        var options = LoadOptions()
        options.release = ReleaseOptions(source: "tn")
        for file in [RepositoryData.realList("tn-oilgas-wells.csv"), root.appendingPathComponent("Data/releases/tn-release-2.csv.gz").path,
                     root.appendingPathComponent("Data/releases/tn-release-3.csv.gz").path] {
            _ = try writer.load(csvAt: file, options: options)
        }
        try writer.close()
        let keys = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: root.appendingPathComponent("Data/releases/tn-releases-key.json"))) as? [String: [String: Any]])
        let server = try await ServedWells(arguments: ["serve", "--db", path, "--port", "0", "--exit-with-stdin"])
        for release in [2, 3] {
            let key = try #require(keys[String(release)])
            var properties: [[String: Any]] = [], next: String? = server.url + "collections/wells/changes?to=\(release)&limit=1000"
            while let link = next {
                let page = try Self.features(try await HTTP.get(link).body)
                properties += page.features.compactMap { $0["properties"] as? [String: Any] }
                next = (page.collection["links"] as? [[String: Any]])?.first { $0["rel"] as? String == "next" }?["href"] as? String
            }
            func identifiers(_ kind: String) -> Set<String> { Set(properties.filter { $0["kind"] as? String == kind }.compactMap { $0["uwi"] as? String }) }
            for kind in ["new", "gone", "back"] {
                #expect(identifiers(kind) == Set(key[kind] as? [String] ?? []), "release \(release): \(kind)")
            }
            let changed = Set(properties.filter { $0["kind"] as? String == "changed" }.map { "\($0["uwi"] ?? "") \($0["field"] ?? "") \($0["old"] as? String ?? "-") \($0["new"] as? String ?? "-")" })
            let expected = Set((key["changed"] as? [[Any]] ?? []).map { "\($0[0]) \($0[1]) \($0[2] as? String ?? "-") \($0[3] as? String ?? "-")" })
            #expect(changed == expected, "release \(release): changed")
            #expect(identifiers("moved") == Set((key["moved"] as? [[Any]] ?? []).compactMap { $0[0] as? String }), "release \(release): moved")
        }
    }
}
