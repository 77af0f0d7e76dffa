import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import WellKit
import WellsTestSupport

/// OGC API – Features Part 3 in `wells serve`: CQL2 text filters over Tennessee's real list,
/// checked against `wells count` with the same `--where` and `--within`, against shapely for the
/// polygons, and through GDAL's OAPIF client.
@Suite(.lane(.server)) struct CQL2ServeTests {
    /// Tennessee's 16,464 wells (Data/real), served once for the suite.
    static let served = Task { try await ServedStore.make(realList: "tn-oilgas-wells.csv") }
    static let counties = RepositoryData.root.appendingPathComponent("Data/boundaries/us-counties-fips.geojson")

    /// A Tennessee county's outline as the WKT a CQL2 filter writes.
    static func county(_ name: String) throws -> (area: Area, wkt: String) {
        let area = try #require(try Area.features(geoJSONAt: counties).first { $0.property("STATE") == .text("47") && $0.property("NAME") == .text(name) })
        func ring(_ points: [Coordinate]) -> String { "(" + points.map { "\($0.longitude) \($0.latitude)" }.joined(separator: ", ") + ")" }
        let polygons = area.polygons.map { "(" + ([$0.outline] + $0.holes).map(ring).joined(separator: ", ") + ")" }
        return (area, polygons.count == 1 ? "POLYGON" + polygons[0] : "MULTIPOLYGON(" + polygons.joined(separator: ", ") + ")")
    }

    /// `numberMatched` of `items?filter=…` (CQL2 text, the default language).
    static func matched(_ s: ServedStore, _ filter: String, _ extra: String = "") async throws -> Int {
        let page = try await HTTP.json(s.url + "collections/wells/items?limit=1&filter=" + HTTP.encoded(filter) + extra)
        return try #require(page["numberMatched"] as? Int, "\(filter)")
    }

    /// `wells count` on the store: the total.
    static func wellsCount(_ s: ServedStore, _ arguments: [String]) async throws -> Int {
        let (status, output) = try await Tool.execute(WellsExecutable.path, ["count", "--db", s.path, "--format", "csv"] + arguments)
        try #require(status == 0, "wells count \(arguments): \(output)")
        let lines = output.split(separator: "\n")
        return try #require(lines.last.flatMap { Int($0.split(separator: ",").last ?? "") }, "wells count \(arguments): \(output)")
    }

    @Test(arguments: [
        ("type = 'Oil'", "type = Oil"),
        ("type IN ('Oil', 'Gas') AND NOT county = 'Overton'", "type in (Oil, Gas) and not county = Overton"),
        ("operator LIKE '%Petroleum%' OR operator LIKE 'Garrett%'", "operator contains Petroleum or operator beginswith Garrett"),
        ("CASEI(operator) LIKE CASEI('%PETROLEUM%')", "operator contains[c] PETROLEUM"),
        ("id BETWEEN 100 AND 5000 AND county IS NOT NULL AND uwi LIKE '41-165%'", "id between 100 and 5000 and county is not null and uwi beginswith 41-165"),
        ("(county = 'Scott' OR county = 'Morgan') AND type <> 'Dry & Abandoned'", "(county = Scott or county = Morgan) and type != \"Dry & Abandoned\""),
    ])
    func aFiltersNumberMatchedIsWhatWellsCountFinds(filter: String, where condition: String) async throws {
        let s = try await Self.served.value
        let expected = try await Self.wellsCount(s, ["--where", condition])
        #expect(expected > 0, "\(condition) finds wells")
        #expect(try await Self.matched(s, filter) == expected, "\(filter)")
    }

    /// Counties with a concave outline (Overton) and a hole (Cheatham): the wells S_INTERSECTS keeps
    /// are `wells count --within`'s and shapely's for the same points; the pages hold the same ids.
    @Test(arguments: ["Overton", "Cheatham", "Fentress"])
    func aPolygonFilterKeepsShapelysWells(county name: String) async throws {
        let s = try await Self.served.value
        let (area, wkt) = try Self.county(name)
        let type = "Dry & Abandoned"
        let filter = "S_INTERSECTS(geometry, \(wkt)) AND type = '\(type)'"
        let matched = try await Self.matched(s, filter)
        #expect(matched == (try await Self.wellsCount(s, ["--within", wkt, "--where", "type = \"\(type)\""])))

        var csv = "id,lon,lat\n"
        for pin in try s.store.fetchPins(WellFetchRequest(predicate: .compare(.type, .equal, .text(type)))) { csv += "\(pin.id),\(pin.longitude),\(pin.latitude)\n" }
        let pins = s.directory + "/pins-\(name).csv"
        try csv.write(toFile: pins, atomically: true, encoding: .utf8)
        let script = s.directory + "/shapely-\(name).py"
        try """
            import csv, json
            from shapely import wkt
            from shapely.geometry import Point
            from shapely.prepared import prep
            g = prep(wkt.loads(open("\(s.directory)/\(name).wkt").read()))
            print(json.dumps(sorted(int(r["id"]) for r in csv.DictReader(open("\(pins)")) if g.intersects(Point(float(r["lon"]), float(r["lat"]))))))
            """.write(toFile: script, atomically: true, encoding: .utf8)
        try wkt.write(toFile: s.directory + "/\(name).wkt", atomically: true, encoding: .utf8)
        let (status, output) = try await Tool.execute("/usr/bin/python3", [script])
        try #require(status == 0, "python3: \(output)")
        let shapely = try JSONDecoder().decode([Int64].self, from: Data(output.utf8))
        #expect(matched == shapely.count && matched > 0, "\(name): \(matched) wells, shapely \(shapely.count)")

        let ids = try await HTTP.json(s.url + "collections/wells/ids?filter=" + HTTP.encoded(filter))
        #expect(try #require(ids["ids"] as? [NSNumber]).map(\.int64Value).sorted() == shapely)
        #expect(try s.store.fetchCount(WellFetchRequest(predicate: .compare(.type, .equal, .text(type)), within: area)) == matched)
    }

    /// BBOX is `bbox=`'s box, and intersects with it; POINT keeps the wells exactly there.
    @Test func boxesAndPointsAreTheWellsThere() async throws {
        let s = try await Self.served.value
        let box = "-85.6,36.0,-85.3,36.3"
        let inBox = try s.store.fetchCount(WellFetchRequest(region: .box(try BoundingBox(parsing: box))))
        #expect(inBox > 0)
        #expect(try await Self.matched(s, "S_INTERSECTS(geometry, BBOX(\(box)))") == inBox)
        let both = try s.store.fetchCount(WellFetchRequest(region: .box(try BoundingBox(parsing: "-85.5,36.0,-85.4,36.3"))))
        #expect(both > 0 && both < inBox)
        #expect(try await Self.matched(s, "S_INTERSECTS(geometry, BBOX(-85.6, 36.0, -85.4, 36.3))", "&bbox=-85.5,36.0,-85.3,36.3") == both)
        #expect(try await Self.matched(s, "S_INTERSECTS(geometry, BBOX(-85.6, 36.0, -85.5, 36.3))", "&bbox=-85.4,36.0,-85.3,36.3") == 0)
        let pin = try #require(try s.store.fetchPins(WellFetchRequest(limit: 1, offset: 500)).first)
        let there = try s.store.fetchCount(WellFetchRequest(predicate: .and([.compare(.latitude, .equal, .number(pin.latitude)), .compare(.longitude, .equal, .number(pin.longitude))])))
        #expect(there >= 1)
        #expect(try await Self.matched(s, "S_INTERSECTS(geometry, POINT(\(pin.longitude) \(pin.latitude)))") == there)
    }

    /// GDAL's OAPIF driver reads filtering from the API definition (`filter-lang` listing `cql-text`,
    /// the fields as parameters of the items' path), sends its `-where` as a CQL2 text filter, and
    /// counts the wells the server filtered.
    @Test func gdalSendsItsWhereAsACQL2FilterAndCountsTheWells() async throws {
        let s = try await Self.served.value
        let (status, output) = try await Tool.execute("/usr/bin/ogrinfo", [
            "-ro", "-so", "--debug", "on", "-oo", "PAGE_SIZE=1000", "OAPIF:" + s.url, "wells",
            "-where", "name LIKE 'J%' AND name <> 'J'", "-spat", "-85.6", "36.0", "-85.3", "36.3",
        ])
        try #require(status == 0, "ogrinfo: \(output)")
        let expected = try s.store.fetchCount(WellFetchRequest(
            predicate: .and([.string(.name, .beginsWith, "J"), .compare(.name, .notEqual, "J")]),
            region: .box(try BoundingBox(parsing: "-85.6,36.0,-85.3,36.3"))))
        #expect(expected > 0)
        #expect(output.contains("Feature Count: \(expected)\n"), "\(output.suffix(2_000))")
        #expect(output.contains("filter-lang=cql-text") && output.contains("filter=") && !output.contains("Full filter will be evaluated on client side"), "\(output.suffix(2_000))")
    }

    @Test(arguments: [
        ("filter=" + HTTP.encoded("status = 'A' OR S_INTERSECTS(geometry, BBOX(0, 0, 1, 1))"), "filter", "character 17"),
        ("filter=" + HTTP.encoded("total_depth > 'deep'"), "filter", "character 15"),
        ("filter=" + HTTP.encoded("depth > 10"), "filter", "character 1"),
        ("filter=" + HTTP.encoded(String(repeating: "(", count: 10_000) + "id = 1" + String(repeating: ")", count: 10_000)), "filter", "character 33"),
        ("filter=" + HTTP.encoded("operator LIKE 'a%b'"), "filter", "character 15"),
        ("filter=" + HTTP.encoded("status = 'A'") + "&filter-lang=cql2-json", "filter-lang", "cql2-text"),
        ("filter=" + HTTP.encoded("S_INTERSECTS(geometry, POINT(36 -85))") + "&filter-crs=http://www.opengis.net/def/crs/EPSG/0/4326", "filter-crs", "CRS84"),
    ])
    func badFiltersAnswerAProblemNamingTheCharacter(query: String, parameter: String, detail: String) async throws {
        let s = try await Self.served.value
        let (status, headers, body) = try await HTTP.get(s.url + "collections/wells/items?" + query)
        #expect(status == 400 && headers["Content-Type"] == "application/problem+json")
        let problem = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
        #expect(problem["parameter"] as? String == parameter, "\(problem)")
        #expect((problem["detail"] as? String)?.contains(detail) == true, "\(problem)")
    }

    /// A filter as forms and `curl --data-urlencode` write it: `+` for a space, `%2B` for a plus.
    @Test func plusIsASpaceAndAnEncodedPlusAPlus() async throws {
        let s = try await Self.served.value
        let spaced = try await HTTP.json(s.url + "collections/wells/items?limit=1&filter=type+%3D+%27Dry+%26+Abandoned%27")
        #expect(spaced["numberMatched"] as? Int == (try await Self.matched(s, "type = 'Dry & Abandoned'")))
        let plus = try await HTTP.json(s.url + "collections/wells/items?limit=1&filter=id+%3E%3D+%2B5")
        #expect(plus["numberMatched"] as? Int == (try s.store.fetchCount(WellFetchRequest())) - 4)
    }

    @Test func tilesTakeAFilterButNotSIntersects() async throws {
        let s = try await Self.served.value
        #expect(try await HTTP.get(s.url + "tiles/8/67/100.mvt?filter=" + HTTP.encoded("type = 'Oil'")).status == 200)
        #expect(try await HTTP.get(s.url + "tiles/8/67/100.mvt?filter=" + HTTP.encoded("type = Oil") + "&filter-lang=wells-where").status == 200)
        #expect(try await HTTP.get(s.url + "tiles/8/67/100.mvt?filter=" + HTTP.encoded("S_INTERSECTS(geometry, BBOX(-86, 36, -85, 37))")).status == 400)
    }

    /// The answer for one filter is never served for another, though pages are kept per store version:
    /// the cache keys pages by their whole target, the filter in it.
    @Test func aKeptPageIsNeverAnotherFiltersAnswer() async throws {
        let s = try await Self.served.value
        let filters = ["type = 'Oil'", "type = 'Gas'", "type = 'Oil' AND county = 'Scott'"]
        var first: [Int] = []
        for filter in filters { first.append(try await Self.matched(s, filter)) }
        #expect(Set(first).count == filters.count, "\(first)")
        for (filter, count) in zip(filters, first).reversed() {
            #expect(try await Self.matched(s, filter) == count)
            #expect(count == (try s.store.fetchCount(WellFetchRequest(predicate: try WellPredicate(parsing: filter.replacingOccurrences(of: "'", with: "\""))))))
        }
    }

    @Test func conformanceQueryablesAndTheAPIDefinitionAdvertiseFiltering() async throws {
        let s = try await Self.served.value
        let classes = try #require(try await HTTP.json(s.url + "conformance")["conformsTo"] as? [String])
        for name in ["ogcapi-features-3/1.0/conf/filter", "ogcapi-features-3/1.0/conf/features-filter", "cql2/1.0/conf/cql2-text",
                     "cql2/1.0/conf/basic-cql2", "cql2/1.0/conf/basic-spatial-functions"] {
            #expect(classes.contains("http://www.opengis.net/spec/" + name), "\(name)")
        }
        let collection = try await HTTP.json(s.url + "collections/wells")
        let link = try #require((collection["links"] as? [[String: Any]])?.first { $0["rel"] as? String == "http://www.opengis.net/def/rel/ogc/1.0/queryables" })
        #expect(link["type"] as? String == "application/schema+json")
        let (status, headers, body) = try await HTTP.get(try #require(link["href"] as? String))
        #expect(status == 200 && headers["Content-Type"] == "application/schema+json")
        let schema = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
        let properties = try #require(schema["properties"] as? [String: [String: Any]])
        #expect(properties["geometry"]?["format"] as? String == "geometry-point")
        #expect(properties["total_depth"]?["type"] as? String == "number" && properties["spud_date"]?["format"] as? String == "date")
        #expect(Set(properties.keys) == Set(WellField.allCases.map { $0 == .id ? "wellkit_id" : $0.rawValue } + ["geometry"]))
        // Every queryable is a property a filter may name.
        for name in properties.keys where name != "geometry" {
            #expect(try await HTTP.get(s.url + "collections/wells/items?limit=1&filter=" + HTTP.encoded("\(name) IS NULL")).status == 200, "\(name)")
        }
        let landing = try await HTTP.json(s.url + "?f=json")
        let api = try #require((landing["links"] as? [[String: Any]])?.first { $0["rel"] as? String == "service-desc" }?["href"] as? String)
        let definition = try await HTTP.json(api)
        #expect(definition["openapi"] as? String == "3.0.3")
    }
}

extension ServedStore {
    /// A real list of `Data/real` loaded into a store and served.
    static func make(realList name: String) async throws -> ServedStore {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("serve-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = directory + "/wells.sqlite"
        let writer = try WellStore(path: path)
        _ = try writer.load(csvAt: RepositoryData.realList(name))
        try writer.close()
        let server = try await ServedWells(arguments: ["serve", "--db", path, "--port", "0", "--exit-with-stdin"])
        return ServedStore(url: server.url, path: path, directory: directory, store: try WellStore(path: path, mode: .readOnly), server: server)
    }
}
