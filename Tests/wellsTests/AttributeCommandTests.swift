import Foundation
import Testing
import WellKit
import WellsTestSupport

/// `extra.NAME` and `*` through the real `wells` binary and `wells serve`, on the USGS NWIS
/// Pennsylvania list (whose `alt_datum_cd`, `hole_depth_va` and four more columns map to no
/// field), checked against the library's own decoding of each well's `extra`.
@Suite struct AttributeCommandTests {
    /// A store of the Pennsylvania list in a temporary directory, loaded by `wells load`.
    private static func withPennsylvania<T>(_ body: (String, WellStore) async throws -> T) async throws -> T {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("wells-attributes-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("pa.sqlite").path
        let loaded = try await HardeningTests.wells(["load", RepositoryData.root.appendingPathComponent("Data/real/usgs-nwis-pa-gw-sites.tsv").path, "--db", path, "--quiet"])
        try #require(loaded.status == 0, "\(loaded.err)")
        return try await body(path, try WellStore(path: path, mode: .readOnly))
    }

    private static func csvRows(_ text: String) -> [[String]] {
        text.split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
    }

    @Test(.lane(.slow)) func fieldsWhereSortAndCountTakeExtraColumns() async throws {
        try await Self.withPennsylvania { path, store in
            let wells = try store.fetchWells(WellFetchRequest())
            let navd88 = wells.filter { $0.detail.extra["alt_datum_cd"] == "NAVD88" }

            // --where and --sort over extra columns, --fields naming them: the wells the library's
            // decoding selects, sorted as text (descending: nulls last), then by id.
            let found = try await HardeningTests.wells(["find", "--where", "extra.alt_datum_cd = NAVD88", "--sort", "extra.hole_depth_va:desc",
                                                  "--fields", "id,uwi,extra.hole_depth_va", "--format", "csv", "--db", path])
            #expect(found.status == 0, "\(found.err)")
            let rows = Self.csvRows(found.out)
            #expect(rows.first == ["id", "uwi", "extra.hole_depth_va"])
            // (`extra` decodes the JSON on each call: once per well here.)
            let expected = navd88.map { ($0.id, $0.detail.identifier, $0.detail.extra["hole_depth_va"]) }.sorted { a, b in
                switch (a.2, b.2) {
                case let (x?, y?) where x != y: y.utf8.lexicographicallyPrecedes(x.utf8)
                case (_?, nil): true
                case (nil, _?): false
                default: a.0 < b.0
                }
            }
            #expect(navd88.count > 100)
            #expect(rows.dropFirst().map { [$0[1], $0[2]] } == expected.map { [$0.1, $0.2 ?? ""] })

            // --fields '*': every field, then every extra column, sorted; GeoJSON carries them as properties.
            let all = try await HardeningTests.wells(["find", "--fields", "*", "--where", "uwi = \(navd88[0].detail.identifier)", "--format", "geojson", "--db", path])
            #expect(all.status == 0, "\(all.err)")
            let collection = try #require(try JSONSerialization.jsonObject(with: Data(all.out.utf8)) as? [String: Any])
            let feature = try #require((collection["features"] as? [[String: Any]])?.first)
            let properties = try #require(feature["properties"] as? [String: Any])
            let extraNames = try store.extraColumnNames()
            #expect(extraNames.count == 6 && extraNames.contains("alt_datum_cd"))
            #expect(Set(properties.keys) == Set(WellField.allCases.map(\.rawValue) + extraNames.map { "extra." + $0 }).subtracting(["lat", "lon"]))
            for name in extraNames {
                let value = properties["extra." + name]
                #expect((value as? String) == navd88[0].detail.extra[name] || (value is NSNull && navd88[0].detail.extra[name] == nil), "\(name)")
            }
            let header = try await HardeningTests.wells(["find", "--fields", "uwi,*", "--limit", "1", "--format", "csv", "--db", path])
            let fieldNames: [String] = WellField.allCases.filter { $0 != .identifier }.map(\.rawValue)
            let columns: [String] = ["uwi"] + fieldNames + extraNames.map { "extra." + $0 }
            #expect(Self.csvRows(header.out).first == columns)

            // count --by an extra column.
            let counted = try await HardeningTests.wells(["count", "--by", "extra.alt_datum_cd", "--format", "csv", "--db", path])
            #expect(counted.status == 0, "\(counted.err)")
            let counts = Dictionary(uniqueKeysWithValues: Self.csvRows(counted.out).dropFirst().map { ($0[0], Int($0[1]) ?? -1) })
            #expect(counts["NAVD88"] == navd88.count)

            // Mistakes: usage errors naming the fix.
            for (arguments, says) in [(["find", "--fields", "uwi,extra."], "names no column"), (["find", "--where", "colour = red"], "extra.NAME"),
                                      (["index", "--sort", "extra.alt_datum_cd"], "extra columns are keys")] {
                let result = try await HardeningTests.wells(arguments + ["--db", path])
                #expect(result.status == 64 && result.err.contains(says), "\(arguments): \(result.status) \(result.err)")
            }
        }
    }

    @Test(.lane(.server)) func serveWritesExtraColumnsAsProperties() async throws {
        try await Self.withPennsylvania { path, store in
            let server = try await ServedWells(arguments: ["serve", "--db", path, "--port", "0", "--exit-with-stdin"])
            let uwi = try #require(try store.fetchWells(WellFetchRequest(predicate: .compare(.extra("alt_datum_cd"), .equal, "NAVD88"), limit: 1)).first)
            func properties(_ query: String) async throws -> [String: Any] {
                let (status, body) = try await server.get("collections/wells/items?" + query)
                try #require(status == 200, "\(query): \(String(decoding: body, as: UTF8.self))")
                let collection = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
                return try #require((collection["features"] as? [[String: Any]])?.first?["properties"] as? [String: Any])
            }
            let named = try await properties("ids=\(uwi.id)&properties=uwi,extra.alt_datum_cd")
            #expect(named["extra.alt_datum_cd"] as? String == "NAVD88" && named["uwi"] as? String == uwi.detail.identifier)
            let every = try await properties("ids=\(uwi.id)&properties=*")
            for name in try store.extraColumnNames() { #expect(every.keys.contains("extra." + name), "\(name)") }
            // CQL2 filters read them too, and sortby sorts by them.
            let filtered = try await properties("filter=" + HTTP.encoded("extra.alt_datum_cd = 'NAVD88'") + "&sortby=-extra.hole_depth_va&properties=extra.alt_datum_cd,extra.hole_depth_va&limit=1")
            #expect(filtered["extra.alt_datum_cd"] as? String == "NAVD88" && filtered["extra.hole_depth_va"] as? String == "997")
        }
    }
}
