import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import WellKit
import WellKitSynthetic
import WellsServer
import WellsTestSupport

/// `wells serve` as OGC API – Features Part 1 clients see it: its OpenAPI document against the
/// router and against schemathesis, OWSLib and GDAL walking it, and feature ids (uwis) that
/// survive `wells optimize`. The Python clients run from Tests/Browser/.venv (`bash .ci/setup`).
@Suite(.lane(.server)) struct OGCAPITests {
    static let served = Task { try await ServedStore.make(count: 5_000, seed: 17) }

    /// The paths `/api` describes are the router's, GET each: a route added without its
    /// description, or described without a route, fails here.
    @Test func theAPIDocumentDescribesEveryRouteOfTheRouter() async throws {
        let s = try await Self.served.value
        let document = try await HTTP.json(s.url + "api")
        #expect((document["openapi"] as? String)?.hasPrefix("3.0") == true)
        let paths = try #require(document["paths"] as? [String: [String: Any]])
        let described = Set(paths.flatMap { path, item in item.keys.map { "\($0.uppercased()) \(path)" } })
        let server = try WellsServer(configuration: ServerConfiguration(storePath: s.path))
        let registered = Set(server.registeredRoutes)
        #expect(registered.count == server.registeredRoutes.count, "a route registered twice")
        #expect(registered.subtracting(described).isEmpty, "routes /api does not describe: \(registered.subtracting(described).sorted())")
        #expect(described.subtracting(registered).isEmpty,
                "paths /api describes that the router lacks: \(described.subtracting(registered).sorted())")
        // GDAL's OAPIF driver sends -where as a filter only when filter-lang lists cql-text.
        let items = try #require(paths["/collections/{collectionId}/items"]?["get"] as? [String: Any])
        let parameters = try #require(items["parameters"] as? [[String: Any]])
        let language = try #require(parameters.first { $0["name"] as? String == "filter-lang" })
        #expect(((language["schema"] as? [String: Any])?["enum"] as? [String])?.contains("cql-text") == true)
        let conformance = try await HTTP.json(s.url + "conformance")["conformsTo"] as? [String] ?? []
        #expect(conformance.contains("http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/oas30"))
        #expect(!conformance.contains { $0.hasSuffix("/conf/html") })
    }

    /// schemathesis generates requests from `/api` (valid and invalid ones) and checks every
    /// answer against the document with all its checks: status codes, content types, response
    /// schemas, that valid requests are accepted and invalid ones refused.
    @Test(.timeLimit(.minutes(10))) func schemathesisFindsNothingAgainstTheAPI() async throws {
        let s = try await Self.served.value
        let browser = Self.repository.appendingPathComponent("Tests/Browser")
        let schemathesis = browser.appendingPathComponent(".venv/bin/schemathesis").path
        try #require(FileManager.default.isExecutableFile(atPath: schemathesis), "run `bash .ci/setup` to install schemathesis")
        let result = try await Tool.execute("/usr/bin/env", ["-C", s.directory,  // schemathesis keeps a cache in its directory
            "PYTHONPATH=" + browser.path, "SCHEMATHESIS_HOOKS=schemathesis_hooks",
            schemathesis, "run", s.url + "api", "--checks", "all", "--max-examples", "40", "--seed", "1", "--workers", "2",
            "--generation-database", "none", "--no-color",
            "--report", "junit", "--report-dir", s.directory + "/schemathesis",
        ])
        #expect(result.status == 0, "\(result.output.suffix(6_000))")
        #expect(result.output.contains("passed"), "\(result.output.suffix(2_000))")
    }

    /// OWSLib's `Features` walks landing page, conformance, collections, the collection, a bbox
    /// page through its `next` links, and one item; the page holds the wells `wells bbox` lists.
    @Test(.timeLimit(.minutes(5))) func owslibWalksTheAPIAndABoxIsWellsBbox() async throws {
        let s = try await Self.served.value
        let python = Self.repository.appendingPathComponent("Tests/Browser/.venv/bin/python").path
        try #require(FileManager.default.isExecutableFile(atPath: python), "run `bash .ci/setup` to install OWSLib")
        let center = try #require(try s.store.fetchPins(WellFetchRequest(offset: 2_500)).first)
        let box = "\(center.longitude - 0.6),\(center.latitude - 0.4),\(center.longitude + 0.6),\(center.latitude + 0.4)"
        let (status, csv) = try await Tool.execute(WellsExecutable.path, ["bbox", box, "--db", s.path, "--fields", "uwi", "--format", "csv"])
        try #require(status == 0, "wells bbox: \(csv)")
        let uwis = csv.split(separator: "\n").dropFirst().map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "\"\r")) }
        try #require(uwis.count > 97, "a box of more than one page: \(uwis.count) wells")
        let expected = s.directory + "/bbox-uwis.txt"
        try uwis.joined(separator: "\n").write(toFile: expected, atomically: true, encoding: .utf8)
        let result = try await Tool.execute(python, [Self.repository.appendingPathComponent("Tests/Browser/ogc_clients_test.py").path,
                                                     "--url", s.url, "--bbox=" + box, "--expect", expected])
        #expect(result.status == 0, "\(result.output)")
    }

    /// GDAL's OAPIF driver sees every mapped field, the internal id and the identifier, with their types.
    @Test func gdalListsEveryMappedField() async throws {
        let s = try await Self.served.value
        let info = try await Tool.run("ogrinfo", ["-so", "OAPIF:" + s.url, "wells"])
        let fields = WellField.detailFields.map(\.rawValue) + ["wellkit_id", "name"]
        for field in fields {
            #expect(info.contains("\n\(field): "), "ogrinfo lacks \(field):\n\(info)")
        }
        #expect(info.contains("total_depth: Real") && info.contains("wellkit_id: Integer"), "\(info)")
        #expect(info.contains("spud_date: Date"), "\(info)")
    }

    /// `items/{uwi}` answers the same well before and after `wells optimize`, which renumbers the
    /// internal ids (wellkit_id) of wells that a later load added out of spatial order.
    @Test func aFeatureIdSurvivesOptimize() async throws {
        let s = try await ServedStore.make(count: 1_500, seed: 31)
        let more = s.directory + "/more.csv"
        try WellGenerator(count: 1_500, seed: 32).write(toFileAt: more)
        let writer = try WellStore(path: s.path)
        _ = try writer.load(csvAt: more)
        try writer.close()
        let sample = try s.store.fetchWells(WellFetchRequest()).enumerated().filter { $0.offset % 50 == 0 }.map(\.element)
        func answers() async throws -> [String: (wellkitID: Int64, body: [String: Any])] {
            var found: [String: (Int64, [String: Any])] = [:]
            for well in sample {
                let uwi = well.detail.identifier
                let feature = try await HTTP.json(s.url + "collections/wells/items/" + (uwi.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? uwi))
                var properties = try #require(feature["properties"] as? [String: Any])
                #expect(feature["id"] as? String == uwi)
                let id = try #require((properties.removeValue(forKey: "wellkit_id") as? NSNumber)?.int64Value)
                properties["geometry"] = feature["geometry"]
                found[uwi] = (id, properties)
            }
            return found
        }
        let before = try await answers()
        let probe = s.url + "collections/wells/items?limit=1"
        let beforeOptimize = try await HTTP.get(probe)
        let (status, output) = try await Tool.execute(WellsExecutable.path, ["optimize", "--db", s.path])
        try #require(status == 0, "wells optimize: \(output)")
        // Once the server has seen the optimized store (a new ETag), every request reads it.
        let optimized = try await ServeTests.answer(probe, changedFrom: beforeOptimize)
        #expect(ServeTests.etag(optimized) != ServeTests.etag(beforeOptimize))
        let after = try await answers()
        var renumbered = 0
        for (uwi, was) in before {
            let now = try #require(after[uwi])
            if now.wellkitID != was.wellkitID { renumbered += 1 }
            #expect(NSDictionary(dictionary: now.body).isEqual(to: was.body), "\(uwi): \(was.body) then \(now.body)")
        }
        #expect(renumbered > sample.count / 4, "optimize renumbered \(renumbered) of \(sample.count) sampled wells")
    }

    /// A uwi with characters that need escaping in a path is its feature's id, escaped in the links.
    @Test func anIdentifierWithReservedCharactersIsEscapedInLinks() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ogc-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = directory + "/wells.sqlite"
        let writer = try WellStore(path: path)
        _ = try writer.load(csvAt: try Self.file("uwi,name,lat,lon,status\n\"A/1 #2?x=%\",Odd,36.1,-85.4,Active\n", in: directory))
        try writer.close()
        let server = try await ServedWells(arguments: ["serve", "--db", path, "--port", "0", "--exit-with-stdin"])
        let page = try await HTTP.json(server.url + "collections/wells/items")
        let feature = try #require((page["features"] as? [[String: Any]])?.first)
        #expect(feature["id"] as? String == "A/1 #2?x=%")
        let item = try await HTTP.json(server.url + "collections/wells/items/A%2F1%20%232%3Fx%3D%25")
        #expect(item["id"] as? String == "A/1 #2?x=%")
        let links = try #require(item["links"] as? [[String: Any]])
        #expect(links.first { $0["rel"] as? String == "self" }?["href"] as? String == server.url + "collections/wells/items/A%2F1%20%232%3Fx%3D%25")
    }

    static func file(_ text: String, in directory: String) throws -> String {
        let path = directory + "/\(UUID().uuidString).csv"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
}
