import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import WellKit
import WellKitSynthetic
import WellsServer
import WellsTestSupport

/// `wells serve` on a real loopback port, checked against the library on the same store (the
/// oracle), against GDAL's OGC API – Features client and MVT decoder, and in headless Chromium.
@Suite(.lane(.server)) struct ServeTests {
    /// 20,000 synthetic wells, served once for every test that only reads.
    static let served = Task { try await ServedStore.make(count: 20_000, seed: 7) }

    // MARK: - OGC API – Features against the library

    @Test func itemsPageThroughTheSameWellsAsTheLibrary() async throws {
        let s = try await Self.served.value
        var generator = SystemRandomNumberGenerator()
        let extent = try #require(try s.store.fetchExtent().box)
        for k in 0..<40 {
            let size = [0.05, 0.2, 0.5][k % 3]
            let lon = Double.random(in: extent.minLongitude...(extent.maxLongitude - size), using: &generator)
            let lat = Double.random(in: extent.minLatitude...(extent.maxLatitude - size), using: &generator)
            let box = "\(lon),\(lat),\(lon + size),\(lat + size)"
            let expected = try s.store.fetchIDs(WellFetchRequest(region: .box(try BoundingBox(parsing: box))))
            var url: String? = s.url + "collections/wells/items?bbox=\(box)&limit=97"
            var ids: [Int64] = []
            var matched: Int?
            while let next = url {
                let page = try await HTTP.json(next)
                matched = page["numberMatched"] as? Int
                let features = try #require(page["features"] as? [[String: Any]])
                #expect(page["numberReturned"] as? Int == features.count)
                ids += features.compactMap(Self.wellkitID)
                url = (page["links"] as? [[String: Any]])?.first { $0["rel"] as? String == "next" }?["href"] as? String
            }
            #expect(matched == expected.count, "box \(box)")
            #expect(ids.sorted() == expected.sorted(), "box \(box)")
        }
    }

    @Test func filtersSortsAndPropertiesFollowTheAllowList() async throws {
        let s = try await Self.served.value
        let status = try #require(try s.store.fetchDictionaries(WellFetchRequest(limit: 1), properties: [.status]).first?["status"]?.string)
        let box = "-120,49,-110,60"
        let query = "bbox=\(box)&status=\(HTTP.encoded(status))&sortby=-spud_date,name&limit=50&properties=status,spud_date"
        let page = try await HTTP.json(s.url + "collections/wells/items?" + query)
        let features = try #require(page["features"] as? [[String: Any]])
        var request = WellFetchRequest(predicate: .compare(.status, .equal, .text(status)),
                                       sortDescriptors: [WellSortDescriptor(.spudDate, ascending: false), WellSortDescriptor(.name)],
                                       region: .box(try BoundingBox(parsing: box)), limit: 50)
        #expect(features.compactMap(Self.wellkitID) == (try s.store.fetchIDs(request)))
        #expect(features.allSatisfy { (($0["properties"] as? [String: Any])?["status"] as? String) == status })
        request.limit = nil
        #expect(page["numberMatched"] as? Int == (try s.store.fetchCount(request)))

        // ids: every id in sort order, then rows by id in that order.
        let ids = try await HTTP.json(s.url + "collections/wells/ids?bbox=\(box)&sortby=-total_depth")
        let expected = try s.store.fetchIDs(WellFetchRequest(sortDescriptors: [WellSortDescriptor(.totalDepth, ascending: false)], region: .box(try BoundingBox(parsing: box))))
        let listed = try #require(ids["ids"] as? [NSNumber]).map(\.int64Value)
        #expect(listed == expected && ids["numberMatched"] as? Int == expected.count && ids["truncated"] as? Bool == false)
        let chosen = Array(listed.prefix(30).reversed())
        let rows = try await HTTP.json(s.url + "collections/wells/items?ids=" + chosen.map(String.init).joined(separator: ","))
        #expect(try #require(rows["features"] as? [[String: Any]]).compactMap(Self.wellkitID) == chosen)
    }

    @Test func anItemHasEveryAttributeOfTheWell() async throws {
        let s = try await Self.served.value
        let well = try #require(try s.store.fetchWells(WellFetchRequest(offset: 123)).first)
        let feature = try await HTTP.json(s.url + "collections/wells/items/" + HTTP.encoded(well.detail.identifier))
        let properties = try #require(feature["properties"] as? [String: Any])
        let expected = well.properties()
        #expect(Set(properties.keys) == Set(expected.map { $0.name == "id" ? "wellkit_id" : $0.name }).subtracting(["lat", "lon"]))
        #expect(feature["id"] as? String == well.detail.identifier && properties["uwi"] as? String == well.detail.identifier)
        #expect((properties["wellkit_id"] as? NSNumber)?.int64Value == well.id)
        let coordinates = try #require((feature["geometry"] as? [String: Any])?["coordinates"] as? [Double])
        #expect(coordinates == [well.pin.longitude, well.pin.latitude])
    }

    @Test(arguments: [
        ("collections/wells/items?limit=0", "limit"), ("collections/wells/items?limit=ten", "limit"),
        ("collections/wells/items?bbox=1,2,3", "bbox"), ("collections/wells/items?bbox=0,50,1,40", "bbox"),
        ("collections/wells/items?bbox=0,50,1,95", "bbox"), ("collections/wells/items?offset=-1", "offset"),
        ("collections/wells/items?sortby=depth", "sortby"), ("collections/wells/items?status=A&status=B", "status"),
        ("collections/wells/items?total_depth=deep", "total_depth"), ("collections/wells/items?filter=status%20%3D", "filter"),
        ("collections/wells/items?spud_date=yesterday", "spud_date"), ("collections/wells/items?foo=1", "foo"),
        ("collections/wells/items?bbox-crs=EPSG:3857", "bbox-crs"), ("collections/wells/items?properties=secret", "properties"),
        ("collections/wells/items?ids=1,x", "ids"), ("collections/wells/items?f=xml", "f"),
        ("collections/wells/items?limit=10001", "limit"), ("collections/wells/items?sortby=name,,status", "sortby"),
        ("collections/wells/items?properties=status,", "properties"), ("collections/wells/ids?limit=5", "limit"),
        ("tiles/23/0/0.mvt", "z"), ("tiles/3/x/0.mvt", "z/x/y"), ("tiles/3/0/0.png", "format"),
        ("tiles/3/0/0.mvt?cell=7", "cell"), ("?f=xml", "f"),
    ])
    func badParametersAnswerAProblemNamingThem(path: String, parameter: String) async throws {
        let s = try await Self.served.value
        let (status, headers, body) = try await HTTP.get(s.url + path)
        #expect(status == 400, "\(path)")
        #expect(headers["Content-Type"] == "application/problem+json")
        let problem = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
        #expect(problem["parameter"] as? String == parameter, "\(path): \(problem)")
        #expect(problem["status"] as? Int == 400 && !((problem["detail"] as? String) ?? "").isEmpty)
    }

    /// Every route that takes query parameters refuses one given twice, with the same problem.
    @Test func aRepeatedParameterIsRefusedOnEveryRoute() async throws {
        let s = try await Self.served.value
        for (path, name) in [
            ("?f=json&f=html", "f"), ("conformance?f=json&f=json", "f"), ("collections?f=json&f=json", "f"),
            ("collections/wells?f=json&f=json", "f"), ("collections/wells/items?limit=5&limit=6", "limit"),
            ("collections/wells/items/any?f=json&f=json", "f"), ("collections/wells/ids?bbox=-120,49,-110,60&bbox=0,0,1,1", "bbox"),
            ("tiles/3/1/2.mvt?cell=16&cell=4096", "cell"), ("tiles/3/1/2.geojson?status=A&%73tatus=B", "status"),
        ] {
            let (status, headers, body) = try await HTTP.get(s.url + path)
            #expect(status == 400, "\(path)")
            #expect(headers["Content-Type"] == "application/problem+json", "\(path)")
            let problem = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any], "\(path)")
            #expect(problem["parameter"] as? String == name, "\(path): \(problem)")
            #expect(problem["detail"] as? String == "\(name) is given twice; give it once", "\(path): \(problem)")
        }
        // Refused before a 304: the ETag the client holds does not make the query valid.
        let uwi = try #require(try s.store.fetchWells(WellFetchRequest(limit: 1)).first).detail.identifier
        let item = try await HTTP.get(s.url + "collections/wells/items/" + HTTP.encoded(uwi))
        let etag = try #require(item.headers["Etag"] ?? item.headers["ETag"])
        #expect(try await HTTP.get(s.url + "collections/wells/items/\(HTTP.encoded(uwi))?f=json&f=json", headers: ["If-None-Match": etag]).status == 400)
    }

    @Test func missingThingsAnswer404AndTheLimitIsTheMaximum() async throws {
        let s = try await Self.served.value
        for path in ["collections/nope/items", "no/such/path", "tiles/3/9/0.mvt",
                     // Internal ids are no feature ids: a feature's id is its uwi.
                     "collections/wells/items/999999999", "collections/wells/items/\(try #require(try s.store.fetchIDs(WellFetchRequest(limit: 1)).first))"] {
            let answer = try await HTTP.get(s.url + path)
            #expect(answer.status == 404 && answer.headers["Content-Type"] == "application/problem+json", "\(path)")
        }
        let page = try await HTTP.json(s.url + "collections/wells/items?limit=10000&properties=name")
        #expect(page["numberReturned"] as? Int == 10_000 && page["numberMatched"] as? Int == 20_000)
    }

    // MARK: - Caching that follows the data

    @Test func etagsChangeWhenTheStoreIsLoaded() async throws {
        let s = try await ServedStore.make(count: 2_000, seed: 3)
        for path in ["collections/wells/items?bbox=-120,49,-110,60&limit=5", "tiles/5/5/10.mvt", "collections/wells"] {
            let (status, headers, _) = try await HTTP.get(s.url + path)
            let etag = try #require(headers["Etag"] ?? headers["ETag"], "\(path)")
            #expect(status == 200)
            #expect(try await HTTP.get(s.url + path, headers: ["If-None-Match": etag]).status == 304, "\(path)")
        }
        let before = try await HTTP.get(s.url + "collections/wells")
        let etag = try #require(before.headers["Etag"] ?? before.headers["ETag"])
        // An items page and a tile, answered twice so that the second comes from the server's cache.
        let page = "collections/wells/items?bbox=-120,49,-110,60&limit=5", tile = "tiles/3/1/2.geojson"  // holds all of them
        _ = try await HTTP.get(s.url + page)
        let pageBefore = try await HTTP.json(s.url + page)
        _ = try await HTTP.get(s.url + tile)
        let tileBefore = try await Self.clusteredCount(HTTP.get(s.url + tile).body)
        // Another process's load: a second list into the served store.
        let more = s.directory + "/more.csv"
        try WellGenerator(count: 500, seed: 99).write(toFileAt: more)
        let writer = try WellStore(path: s.path)
        _ = try writer.load(csvAt: more)
        try writer.close()
        let after = try await HTTP.get(s.url + "collections/wells", headers: ["If-None-Match": etag])
        #expect(after.status == 200)
        #expect((after.headers["Etag"] ?? after.headers["ETag"]) != etag)
        let collection = try #require(try JSONSerialization.jsonObject(with: after.body) as? [String: Any])
        #expect((collection["description"] as? String)?.hasPrefix("2500 wells") == true)
        // The cached page and tile are made anew: their counts follow the load.
        #expect(pageBefore["numberMatched"] as? Int == 2_000)
        #expect(try await HTTP.json(s.url + page)["numberMatched"] as? Int == 2_500)
        #expect(tileBefore == 2_000)
        #expect(try await Self.clusteredCount(HTTP.get(s.url + tile).body) == 2_500)
    }

    /// An app's writes of single wells (insert, update, delete) reach the server's cached pages
    /// as a load does: each page after a write is made anew and shows it.
    @Test func writesOfSingleWellsReachTheCachedPages() async throws {
        let s = try await ServedStore.make(count: 300, seed: 23)
        let page = "collections/wells/items?limit=1000"
        func names() async throws -> [String] {
            _ = try await HTTP.get(s.url + page)  // the second answer comes from the cache
            return try Self.features(try await HTTP.get(s.url + page).body).map(\.name)
        }
        let before = try await names()
        let writer = try WellStore(path: s.path, mode: .existing)
        var well = try #require(try writer.fetchWells(WellFetchRequest(sortDescriptors: [WellSortDescriptor(.identifier)], limit: 1)).first)
        var new = well
        new.detail.identifier += "-new"
        new.name = "Inserted by an app"
        try await writer.insert(new)
        #expect(try await names().count == before.count + 1)
        #expect(try await names().contains("Inserted by an app"))
        well.name = "Renamed by an app"
        try await writer.update(well)
        #expect(try await names().contains("Renamed by an app"))
        try await writer.delete(identifier: new.identifier)
        let after = try await names()
        #expect(after.count == before.count && !after.contains("Inserted by an app"))
        try writer.close()
    }

    /// A store replaced by an atomic `mv` (a new store built beside it, renamed over it): the next
    /// conditional request gets the new wells with a 200 and a new ETag, not a 304 for the old file's.
    @Test func aStoreReplacedByMvIsServedWithNewETags() async throws {
        let s = try await ServedStore.make(count: 300, seed: 21)
        let page = "collections/wells/items?limit=1000"
        let before = try await HTTP.get(s.url + page)
        let etag = try #require(before.headers["Etag"] ?? before.headers["ETag"])
        let feature = try #require(try Self.features(before.body).first)
        let replacement = try Self.storeBeside(s, count: 120, seed: 22)
        #expect(rename(replacement.path, s.path) == 0)
        let after = try await HTTP.get(s.url + page, headers: ["If-None-Match": etag])
        #expect(after.status == 200)
        #expect((after.headers["Etag"] ?? after.headers["ETag"]).map { $0 != etag } == true, "\(after.headers)")
        let features = try Self.features(after.body)
        #expect(features.map(\.name).sorted() == replacement.names.sorted())
        #expect(!features.contains { $0 == feature }, "the old store's \(feature)")
        // The new ETag revalidates as usual.
        let etagAfter = try #require(after.headers["Etag"] ?? after.headers["ETag"])
        #expect(try await HTTP.get(s.url + page, headers: ["If-None-Match": etagAfter]).status == 304)
    }

    /// After the `mv`, a page the server keeps in its cache is made anew from the new store; a path
    /// that holds no store answers 503 (and the server carries on), until a store is there again.
    @Test func aStoreReplacedByMvEmptiesTheCacheAndAMissingOneAnswers503() async throws {
        let s = try await ServedStore.make(count: 300, seed: 23)
        let page = "collections/wells/items?bbox=-180,-90,180,90&limit=1000"
        _ = try await HTTP.get(s.url + page)
        let cached = try await HTTP.get(s.url + page)  // from the cache
        #expect(try Self.features(cached.body).count == 300)
        let replacement = try Self.storeBeside(s, count: 120, seed: 24)
        #expect(rename(replacement.path, s.path) == 0)
        let after = try await Self.answer(s.url + page, changedFrom: cached)
        #expect(after.status == 200)
        #expect(try Self.features(after.body).map(\.name).sorted() == replacement.names.sorted())
        #expect(Self.etag(after) != Self.etag(cached))
        // A file that is no store, then none at all: 503 problem documents that say so.
        let junk = s.directory + "/junk.sqlite"
        try Data("not a store".utf8).write(to: URL(fileURLWithPath: junk))
        #expect(rename(junk, s.path) == 0)
        let refused = try await Self.answer(s.url + page, changedFrom: after)
        #expect(refused.status == 503 && refused.headers["Content-Type"] == "application/problem+json")
        #expect(String(decoding: refused.body, as: UTF8.self).contains("not a WellKit store"), "\(String(decoding: refused.body, as: UTF8.self))")
        #expect(unlink(s.path) == 0)
        let missing = try await Self.answer(s.url + page, changedFrom: refused)
        let gone = try await HTTP.get(s.url + "collections/wells/items/1")
        #expect(gone.status == 503 && String(decoding: gone.body, as: UTF8.self).contains("is gone"))
        // A store at the path again: served.
        let again = try Self.storeBeside(s, count: 50, seed: 25)
        #expect(rename(again.path, s.path) == 0)
        #expect(try Self.features(try await Self.answer(s.url + page, changedFrom: missing).body).map(\.name).sorted() == again.names.sorted())
    }

    /// A plain GET of `url` once its answer differs from `previous` (in status, ETag or body): for
    /// 2 ms after a look at the store the server answers plain (not conditional) requests from
    /// that look (`StoreReaders.tokenReuse`), so the first request after a change may still get the
    /// old answer. Asked again until it changes, for at most 10 s; then the last answer, which the
    /// caller's expectations find unchanged, so a server that never looks again fails the test.
    static func answer(_ url: String, changedFrom previous: (status: Int, headers: [String: String], body: Data)) async throws
        -> (status: Int, headers: [String: String], body: Data) {
        let deadline = ContinuousClock.now + .seconds(10)
        while true {
            let answer = try await HTTP.get(url)
            if answer.status != previous.status || etag(answer) != etag(previous) || answer.body != previous.body
                || ContinuousClock.now >= deadline {
                return answer
            }
        }
    }

    /// An answer's ETag (URLSession on Linux names the field `Etag`).
    static func etag(_ answer: (status: Int, headers: [String: String], body: Data)) -> String? {
        answer.headers["Etag"] ?? answer.headers["ETag"]
    }

    /// A store of `count` new wells in the served store's directory, made by the loader, and their names.
    static func storeBeside(_ s: ServedStore, count: Int, seed: UInt64) throws -> (path: String, names: [String]) {
        let csv = s.directory + "/replacement-\(seed).csv", path = s.directory + "/replacement-\(seed).sqlite"
        try WellGenerator(count: count, seed: seed).write(toFileAt: csv)
        let writer = try WellStore(path: path)
        _ = try writer.load(csvAt: csv)
        let names = try writer.fetchDictionaries(WellFetchRequest(), properties: [.name]).compactMap { $0["name"]?.string }
        try writer.close()
        return (path, names)
    }

    /// The features of an `items` page: id and name.
    static func features(_ body: Data) throws -> [Feature] {
        let page = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any], "\(String(decoding: body, as: UTF8.self))")
        return try #require(page["features"] as? [[String: Any]]).map {
            Feature(id: wellkitID($0) ?? -1, name: ($0["properties"] as? [String: Any])?["name"] as? String ?? "")
        }
    }

    /// A feature's internal id, its property `wellkit_id` (its `id` is the well's uwi).
    static func wellkitID(_ feature: [String: Any]) -> Int64? {
        ((feature["properties"] as? [String: Any])?["wellkit_id"] as? NSNumber)?.int64Value
    }

    struct Feature: Equatable {
        let id: Int64
        let name: String
    }

    /// The wells a GeoJSON tile holds: its clusters' counts and its single wells.
    static func clusteredCount(_ body: Data) throws -> Int {
        let tile = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
        let features = try #require(tile["features"] as? [[String: Any]])
        return features.reduce(0) { $0 + (($1["properties"] as? [String: Any])?["count"] as? Int ?? 1) }
    }

    // MARK: - Vector tiles, decoded by GDAL's MVT driver

    @Test func tilesDecodedByGDALHoldTheWellsOfTheTile() async throws {
        let s = try await Self.served.value
        let center = try #require(try s.store.fetchPins(WellFetchRequest(offset: 5_000)).first)
        for z in [4, 7, 10, 12, 13, 15] {
            let n = Double(1 << z)
            let x = Int((center.longitude + 180) / 360 * n)
            let lat = center.latitude * .pi / 180
            let y = Int((1 - log(tan(lat) + 1 / cos(lat)) / .pi) / 2 * n)
            let (status, _, body) = try await HTTP.get(s.url + "tiles/\(z)/\(x)/\(y).mvt")
            #expect(status == 200)
            let features = try await Tool.decodeTile(body, z: z, x: x, y: y, in: s.directory)
            let tile = try TileID(z: z, x: x, y: y)
            let request = WellFetchRequest(region: .box(TileOptions().countedBox(tile)))
            let counts = features.map { ($0["properties"] as? [String: Any])?["count"] as? Int ?? 0 }
            #expect(counts.reduce(0, +) == (try s.store.fetchCount(request)), "tile \(tile)")
            if z >= 13 {
                #expect(counts.allSatisfy { $0 == 1 })
                let ids = features.compactMap { (($0["properties"] as? [String: Any])?["mvt_id"] as? NSNumber)?.int64Value ?? ($0["id"] as? NSNumber)?.int64Value }
                #expect(ids.sorted() == (try s.store.fetchIDs(request)).sorted(), "tile \(tile)")
            } else if z <= 7 {
                #expect(counts.contains { $0 > 1 }, "tile \(tile) is clustered")
            }
            // The GeoJSON tile holds the same features.
            let geojson = try await HTTP.json(s.url + "tiles/\(z)/\(x)/\(y).geojson")
            #expect((geojson["features"] as? [[String: Any]])?.count == features.count)
        }
    }

    // MARK: - GDAL's OGC API – Features client

    @Test func gdalListsTheLayerAndCopiesABox() async throws {
        let s = try await Self.served.value
        let info = try await Tool.run("ogrinfo", ["-so", "OAPIF:" + s.url, "wells"])
        #expect(info.contains("Geometry: Point"))
        #expect(info.contains("Feature Count: 20000"))
        let box = try BoundingBox(parsing: "-115,52,-114,53")
        let gpkg = s.directory + "/box.gpkg"
        _ = try await Tool.run("ogr2ogr", ["-f", "GPKG", gpkg, "OAPIF:" + s.url, "wells", "-spat", "-115", "52", "-114", "53"])
        let csv = try await Tool.run("ogr2ogr", ["-f", "CSV", "/vsistdout/", gpkg, "-sql", "SELECT wellkit_id FROM wells"])
        let copied = csv.split(separator: "\n").dropFirst().compactMap { Int64($0.trimmingCharacters(in: CharacterSet(charactersIn: "\" ,\r"))) }
        let expected = try s.store.fetchIDs(WellFetchRequest(region: .box(box)))
        #expect(!expected.isEmpty && copied.sorted() == expected.sorted())
    }

    // MARK: - Safety

    @Test func headAnswersAsGetWithoutTheBody() async throws {
        let s = try await Self.served.value
        for path in ["collections/wells/items?limit=3", "tiles/5/5/10.mvt", "collections/wells", "", "collections/wells/items?limit=x", "no/such/path"] {
            // Identity both times: URLSession inflates a gzip body, while HEAD's Content-Length is the gzip one.
            let identity = ["Accept-Encoding": "identity"]
            let get = try await HTTP.get(s.url + path, headers: identity), head = try await HTTP.get(s.url + path, headers: identity, method: "HEAD")
            #expect(head.status == get.status && head.body.isEmpty, "\(path)")
            #expect(head.headers["Content-Length"] == String(get.body.count), "\(path)")
            #expect(head.headers["Content-Type"] == get.headers["Content-Type"] && head.headers["Etag"] == get.headers["Etag"], "\(path)")
        }
    }

    /// Leaflet's files answer byte ranges as nginx does: a range past the end is 416 with the
    /// file's size, a valid one 206 with its bytes (a suffix range the last ones).
    @Test func aRangePastTheEndOfAStaticFileIsNotSatisfiable() async throws {
        let s = try await Self.served.value
        let file = "/usr/share/javascript/leaflet/leaflet.css"
        try #require(FileManager.default.fileExists(atPath: file), "install Debian's libjs-leaflet")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: file))
        let url = s.url + "assets/leaflet/leaflet.css"
        for range in ["bytes=999999999999-", "bytes=\(bytes.count)-", "bytes=\(bytes.count)-\(bytes.count + 10)", "bytes=-0"] {
            let answer = try await HTTP.get(url, headers: ["Range": range])
            #expect(answer.status == 416, "\(range)")
            #expect(answer.headers["Content-Range"] == "bytes */\(bytes.count)", "\(range): \(answer.headers)")
        }
        for (range, first, last) in [("bytes=0-99", 0, 99), ("bytes=100-", 100, bytes.count - 1), ("bytes=-50", bytes.count - 50, bytes.count - 1),
                                     ("bytes=\(bytes.count - 5)-999999999999", bytes.count - 5, bytes.count - 1)] {
            let answer = try await HTTP.get(url, headers: ["Range": range])
            #expect(answer.status == 206, "\(range)")
            #expect(answer.headers["Content-Range"] == "bytes \(first)-\(last)/\(bytes.count)", "\(range): \(answer.headers)")
            #expect(answer.body == bytes[first...last], "\(range)")
        }
        let whole = try await HTTP.get(url)
        #expect(whole.status == 200 && whole.body == bytes)
    }

    /// The server is read-only: POST, PUT, DELETE and PATCH answer 405 with `Allow`, a problem document, on any path.
    @Test func otherMethodsAreNotAllowed() async throws {
        let s = try await Self.served.value
        for (method, path) in [("POST", "collections/wells/items"), ("PUT", "collections/wells/items/1"), ("DELETE", ""), ("PATCH", "no/such/path")] {
            let answer = try await HTTP.get(s.url + path, method: method)
            #expect(answer.status == 405, "\(method) \(path)")
            #expect(answer.headers["Allow"] == "GET, HEAD", "\(answer.headers)")
            #expect(String(decoding: answer.body, as: UTF8.self).contains(#""status":405"#))
        }
    }

    @Test func corsIsOffUnlessAnOriginIsGiven() async throws {
        let s = try await Self.served.value
        let plain = try await HTTP.get(s.url + "collections", headers: ["Origin": "http://example.com"])
        #expect(plain.headers["Access-Control-Allow-Origin"] == nil)
        let open = try await ServedStore.make(count: 100, seed: 5, arguments: ["--cors-origin", "http://maps.example"])
        let allowed = try await HTTP.get(open.url + "collections", headers: ["Origin": "http://maps.example"])
        #expect(allowed.headers["Access-Control-Allow-Origin"] == "http://maps.example")
        #expect(s.url.hasPrefix("http://127.0.0.1:"))
    }

    // MARK: - The map page in a real browser

    /// The basemap's layers come from WellKit's outlines: the 52 states (50, DC and Puerto Rico), the
    /// counties by FIPS code, the countries; each with an ETag that a second request answers with 304.
    @Test func basemapLayersComeFromWellKitsOutlines() async throws {
        let s = try await Self.served.value
        let states = try await HTTP.json(s.url + "basemap/states.geojson")
        let stateFeatures = try #require(states["features"] as? [[String: Any]])
        #expect(stateFeatures.count == 52)
        let utah = try #require(stateFeatures.first { $0["id"] as? String == "49" }?["properties"] as? [String: Any])
        #expect(utah["name"] as? String == "Utah")
        let label = try #require(utah["label"] as? [Double])
        #expect((-114.05...(-109.04)).contains(label[0]) && (37.0...42.0).contains(label[1]), "Utah's label at \(label)")
        let counties = try await HTTP.json(s.url + "basemap/counties.geojson")
        let countyFeatures = try #require(counties["features"] as? [[String: Any]])
        #expect(countyFeatures.count == 3_221)
        let saltLake = try #require(countyFeatures.first { $0["id"] as? String == "49035" })
        #expect((saltLake["properties"] as? [String: Any])?["name"] as? String == "Salt Lake")
        #expect(((saltLake["geometry"] as? [String: Any])?["type"] as? String) == "MultiPolygon")
        let countries = try #require(try await HTTP.json(s.url + "basemap/countries.geojson")["features"] as? [[String: Any]])
        #expect(countries.count == 242 && countries.contains { $0["id"] as? String == "USA" })
        let first = try await HTTP.get(s.url + "basemap/states.geojson")
        let etag = try #require(first.headers["Etag"] ?? first.headers["ETag"])
        #expect(try await HTTP.get(s.url + "basemap/states.geojson", headers: ["If-None-Match": etag]).status == 304)
        #expect(try await HTTP.get(s.url + "basemap/rivers.geojson").status == 404)
    }

    /// Tiles mark the wells a load flagged (`suspects`), in GeoJSON and MVT, single or clustered.
    @Test func tilesMarkSuspectWells() async throws {
        let s = try await Self.servedWithSuspects.value
        let suspect = try #require(try s.store.suspects().first)
        for z in [14, 4] {
            let n = Double(1 << z)
            let x = Int((suspect.longitude + 180) / 360 * n)
            let radians = suspect.latitude * .pi / 180
            let y = Int((1 - log(tan(radians) + 1 / cos(radians)) / .pi) / 2 * n)
            let tile = try await HTTP.json(s.url + "tiles/\(z)/\(x)/\(y).geojson")
            let features = try #require(tile["features"] as? [[String: Any]])
            let flagged = features.reduce(0) { $0 + ((($1["properties"] as? [String: Any])?["suspects"] as? Int) ?? 0) }
            #expect(flagged >= 1, "tile \(z)/\(x)/\(y)")
            if z == 14 {
                let pin = features.first { ($0["id"] as? NSNumber)?.int64Value == suspect.id }
                #expect((pin?["properties"] as? [String: Any])?["suspects"] as? Int == 1)
                #expect(features.filter { (($0["properties"] as? [String: Any])?["suspects"] as? Int) == nil }.count == features.count - flagged)
            }
            let mvt = try await HTTP.get(s.url + "tiles/\(z)/\(x)/\(y).mvt")
            #expect(mvt.status == 200 && mvt.body.range(of: Data("suspects".utf8)) != nil, "tile \(z)/\(x)/\(y).mvt")
        }
    }

    /// Wells in Utah and Nevada, 1% of them flagged as suspect by their load: for the map's state and
    /// county outlines and its suspect pins.
    static let servedWithSuspects = Task { try await ServedStore.make(count: 20_000, seed: 7, layout: .coordinateErrors) }

    @Test(.timeLimit(.minutes(5)), .lane(.browser)) func theMapPageWorksInHeadlessChromium() async throws {
        let s = try await Self.served.value, flagged = try await Self.servedWithSuspects.value
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let python = repository.appendingPathComponent("Tests/Browser/.venv/bin/python").path
        try #require(FileManager.default.isExecutableFile(atPath: python), "run `bash .ci/setup` to install Chromium and Selenium")
        let screenshots = ProcessInfo.processInfo.environment["WELLS_SCREENSHOTS"] ?? s.directory
        let result = try await Tool.execute(python, [repository.appendingPathComponent("Tests/Browser/map_test.py").path, "--url", s.url, "--out", screenshots,
                                                         "--wells", WellsExecutable.path, "--db", s.path,
                                                         "--suspects-url", flagged.url, "--suspects-db", flagged.path])
        #expect(result.status == 0, "\(result.output)")
        for name in ["map.png", "area.png", "details.png", "list.png", "states.png", "counties.png", "suspect.png"] {
            #expect(FileManager.default.fileExists(atPath: screenshots + "/" + name))
        }
    }
}

// MARK: - Fixtures

/// A store of synthetic wells served by `wells serve` (the built executable, a child process) on
/// a free loopback port, for as long as this value is kept (the suites keep theirs for the run).
struct ServedStore: Sendable {
    let url: String
    let path: String
    let directory: String
    let store: WellStore
    let server: ServedWells

    /// `layout`: an agency list (``AgencyList``) instead of the Alberta-like one, such as
    /// `.coordinateErrors`, whose load flags 1% of its wells as suspect.
    static func make(count: Int, seed: UInt64, layout: AgencyList.Layout? = nil, arguments: [String] = []) async throws -> ServedStore {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("serve-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let csv = directory + "/wells.csv", path = directory + "/wells.sqlite"
        if let layout { _ = try AgencyList(layout: layout, count: count, seed: seed).write(toFileAt: csv) } else {
            try WellGenerator(count: count, seed: seed).write(toFileAt: csv)
        }
        let writer = try WellStore(path: path)
        _ = try writer.load(csvAt: csv)
        try writer.close()
        let server = try await ServedWells(arguments: ["serve", "--db", path, "--port", "0", "--exit-with-stdin"] + arguments)
        return ServedStore(url: server.url, path: path, directory: directory, store: try WellStore(path: path, mode: .readOnly), server: server)
    }
}

/// Programs the tests run: GDAL's command-line tools (an independent client and decoder) and the browser test.
enum Tool {
    static func run(_ tool: String, _ arguments: [String]) async throws -> String {
        let result = try await execute("/usr/bin/" + tool, arguments)
        guard result.status == 0 else { throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: "\(tool) \(arguments): \(result.output)"]) }
        return result.output
    }

    /// A tile decoded by GDAL's MVT driver, as GeoJSON features in EPSG:4326.
    static func decodeTile(_ bytes: Data, z: Int, x: Int, y: Int, in directory: String) async throws -> [[String: Any]] {
        let file = directory + "/tile-\(z)-\(x)-\(y).mvt"
        try bytes.write(to: URL(fileURLWithPath: file))
        guard !bytes.isEmpty else { return [] }
        let text = try await run("ogr2ogr", ["-f", "GeoJSON", "/vsistdout/", file, "-oo", "X=\(x)", "-oo", "Y=\(y)", "-oo", "Z=\(z)", "-oo", "CLIP=NO", "-t_srs", "EPSG:4326"])
        let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
        return object?["features"] as? [[String: Any]] ?? []
    }

    /// Runs a program to its end: its status, and its standard output and error as written,
    /// interleaved. Awaited, so it holds no thread that the in-process server it talks to needs.
    static func execute(_ path: String, _ arguments: [String]) async throws -> (status: Int32, output: String) {
        let run = try await Command(path, arguments, errors: .intoOutput).run()
        return (run.status, run.out)
    }
}
