import Foundation
import Testing
@testable import WellKit
import WellsTestSupport

/// Areas: reading WKT and GeoJSON, the antimeridian and other CRSs, and wells within areas and
/// grouped by them, checked against shapely and GeoPandas (Debian's python3-geopandas) on the same
/// points and polygons.
@Suite struct AreaTests {
    static let counties = RepositoryData.root.appendingPathComponent("Data/boundaries/us-counties-fips.geojson")

    // MARK: - Reading

    @Test func wktReadsPolygonsWithHolesAndMultipolygons() throws {
        let square = try Area(wkt: "POLYGON((0 0, 10 0, 10 10, 0 10, 0 0), (2 2, 4 2, 4 4, 2 2))")
        #expect(square.polygons.count == 1 && square.polygons[0].holes.count == 1 && square.polygons[0].outline.count == 5)
        let two = try Area(wkt: " multipolygon z (((0 0 1, 1 0 1, 1 1 1)), ((5 5 0, 6 5 0, 6 6 0, 5 5 0)))")
        #expect(two.polygons.count == 2)
        #expect(two.polygons[0].outline.last == two.polygons[0].outline.first, "an open ring is closed")
        let error = #expect(throws: QueryError.self) { try Area(wkt: "POLYGON((0 0, 1 0, 1 x))") }
        #expect(error?.offset == 22 && error?.subject == .area)
        #expect(throws: QueryError.self) { try Area(wkt: "POINT(1 2)") }
        #expect(throws: QueryError.self) { try Area(wkt: "POLYGON((0 0, 1 1, 0 0))") }
        #expect(throws: QueryError.self) { try Area(wkt: "POLYGON((0 0, 1 0, 1 95, 0 0))") }
        #expect(throws: QueryError.self) { try Area(wkt: "POLYGON((0 0, 1 0, 1 1, 0 0)) trailing") }
    }

    @Test func anAreaAcrossTheAntimeridianIsCutIntoParts() throws {
        // 170°E to 170°W written both ways: an edge jumping 340° and longitudes beyond 180.
        for wkt in ["POLYGON((170 50, -170 50, -170 60, 170 60, 170 50))", "POLYGON((170 50, 190 50, 190 60, 170 60, 170 50))"] {
            let area = try Area(wkt: wkt)
            #expect(area.polygons.count == 2, "\(wkt)")
            let boxes = try area.boxes().sorted { $0.minLongitude < $1.minLongitude }
            #expect(boxes.map(\.minLongitude) == [-180, 170] && boxes.map(\.maxLongitude) == [-170, 180])
        }
        let store = try Fixtures.makeStore()
        _ = try store.load(csvAt: try Fixtures.file("uwi,lat,lon\nE,55,175\nW,55,-175\nFar,55,0\nOut,45,179\n"))
        var request = WellFetchRequest(sortDescriptors: [WellSortDescriptor(.identifier)])
        request.within = try Area(wkt: "POLYGON((170 50, -170 50, -170 60, 170 60, 170 50))")
        #expect(try store.fetchDictionaries(request, properties: [.identifier]).map { $0["uwi"]?.string } == ["E", "W"])
    }

    @Test func anAreaInAnotherCRSIsTransformed() throws {
        // A 20 km square in UTM 16N around (-87.0, 40.0) holds the well at its centre, not one 30 km east.
        let utm = try CoordinateTransformer(from: "EPSG:4326", to: "EPSG:32616")
        let c = try utm.transform(x: -87.0, y: 40.0)
        let wkt = "POLYGON((\(c.x - 10_000) \(c.y - 10_000), \(c.x + 10_000) \(c.y - 10_000), \(c.x + 10_000) \(c.y + 10_000), \(c.x - 10_000) \(c.y + 10_000)))"
        let store = try Fixtures.makeStore()
        _ = try store.load(csvAt: try Fixtures.file("uwi,lat,lon\nIn,40.0,-87.0\nOut,40.0,-86.6\n"))
        for area in [try Area(wkt: wkt, crs: "EPSG:32616"), try Area(wkt: "SRID=32616;" + wkt)] {
            #expect(try store.fetchDictionaries(WellFetchRequest(within: area), properties: [.identifier]).map { $0["uwi"]?.string } == ["In"])
        }
    }

    @Test func theBoundaryIsInsideAndHolesAreNot() throws {
        let store = try Fixtures.makeStore()
        _ = try store.load(csvAt: try Fixtures.file("uwi,lat,lon\nEdge,1,6\nCorner,1,1\nInside,2,2\nHole,4,4\nHoleEdge,3,4\nOutside,0.5,6\n"))
        let area = try Area(wkt: "POLYGON((1 1, 11 1, 11 11, 1 11, 1 1), (3 3, 5 3, 5 5, 3 5, 3 3))")
        let found = try store.fetchDictionaries(WellFetchRequest(within: area), properties: [.identifier]).compactMap { $0["uwi"]?.string }
        #expect(Set(found) == ["Edge", "Corner", "Inside", "HoleEdge"])
    }

    @Test func geoJSONFeaturesKeepTheirProperties() throws {
        let areas = try Area.features(geoJSONAt: Self.counties)
        #expect(areas.count == 3_222)
        let cheatham = try #require(areas.first { $0.property("STATE") == .text("47") && $0.property("NAME") == .text("Cheatham") })
        #expect(cheatham.polygons.count == 1 && cheatham.polygons[0].holes.count == 1)
        #expect(cheatham.property("CENSUSAREA")?.double != nil)
        #expect(throws: QueryError.self) { try Area.features(geoJSON: Data(#"{"type":"Point","coordinates":[1,2]}"#.utf8)) }
        #expect(throws: QueryError.self) { try Area.features(geoJSON: Data(#"{"type":"Polygon","coordinates":[[1,2]]}"#.utf8)) }
    }

    /// A shapefile written by GDAL in UTM 17N (its `.prj` in ESRI's WKT) gives the wells the GeoJSON gives.
    @Test(.lane(.slow), .blocking) func aShapefileInAnotherCRSReadsAsTheGeoJSON() throws {
        let directory = URL(fileURLWithPath: try Fixtures.file("", name: "unused")).deletingLastPathComponent()
        let shp = directory.appendingPathComponent("pa.shp").path
        let (status, _, err) = PostGIS.run(["ogr2ogr", "-f", "ESRI Shapefile", shp, Self.counties.path, "-where", "STATE='42'", "-t_srs", "EPSG:32617"])
        try #require(status == 0, "ogr2ogr (gdal-bin) failed: \(err)")
        let fromShapefile = try Area.features(shapefileAt: URL(fileURLWithPath: shp))
        let fromGeoJSON = try Area.features(geoJSONAt: Self.counties).filter { $0.property("STATE") == .text("42") }
        #expect(fromShapefile.count == fromGeoJSON.count && fromShapefile.count == 67)
        let store = try Fixtures.makeStore()
        _ = try store.load(csvAt: Fixtures.sharedData("usgs-nwis-pa-gw-sites.tsv"))
        for name in ["Washington", "Allegheny", "Erie"] {
            let a = try #require(fromShapefile.first { $0.property("NAME") == .text(name) })
            let b = try #require(fromGeoJSON.first { $0.property("NAME") == .text(name) })
            #expect(try store.fetchIDs(WellFetchRequest(within: a)).sorted() == store.fetchIDs(WellFetchRequest(within: b)).sorted(), "\(name)")
            #expect(try store.fetchCount(WellFetchRequest(within: a)) > 0, "\(name) holds wells")
        }
    }

    // MARK: - Against shapely and GeoPandas

    /// The Tennessee and Pennsylvania lists in one store, and every pin as `id,lon,lat` for Python:
    /// made once per process for the tests that only read it.
    private static func realStore() throws -> (WellStore, pins: String) { try sharedRealStore.get() }
    private static let sharedRealStore = Result { try makeRealStore() }

    private static func makeRealStore() throws -> (WellStore, pins: String) {
        let store = try Fixtures.makeStore()
        _ = try store.load(csvAt: Fixtures.sharedData("tn-oilgas-wells.csv"))
        _ = try store.load(csvAt: Fixtures.sharedData("usgs-nwis-pa-gw-sites.tsv"))
        var csv = "id,lon,lat\n"
        for pin in try store.fetchPins(WellFetchRequest()) { csv += "\(pin.id),\(pin.longitude),\(pin.latitude)\n" }
        return (store, try Fixtures.file(csv, name: "pins.csv"))
    }

    /// Runs `script` with Debian's python3 (shapely and GeoPandas) and decodes its JSON output.
    private static func python<T: Decodable>(_ script: String, as type: T.Type) throws -> T {
        let path = try Fixtures.file(script, name: "oracle.py")
        let (status, out, err) = PostGIS.run(["/usr/bin/python3", path])
        try #require(status == 0, "python3 failed: \(err)")
        return try JSONDecoder().decode(T.self, from: Data(out.utf8))
    }

    /// Counties with a hole (Cheatham, TN), two polygons (Tipton, Dickson), a concave outline
    /// (Overton, Fentress, Washington PA) and Allegheny: the wells in each are shapely's.
    @Test(.lane(.slow), .blocking) func wellsWithinCountiesAreShapelysAnswer() throws {
        let (store, pins) = try Self.realStore()
        let chosen = [("47", "Cheatham"), ("47", "Tipton"), ("47", "Dickson"), ("47", "Overton"), ("47", "Fentress"),
                      ("42", "Washington"), ("42", "Allegheny")]
        let areas = try Area.features(geoJSONAt: Self.counties)
        let expected = try Self.python("""
            import csv, json
            from shapely.geometry import shape, Point
            from shapely.prepared import prep
            chosen = [\(chosen.map { "(\"\($0.0)\", \"\($0.1)\")" }.joined(separator: ", "))]
            features = json.load(open("\(Self.counties.path)"))["features"]
            points = [(int(r["id"]), Point(float(r["lon"]), float(r["lat"]))) for r in csv.DictReader(open("\(pins)"))]
            out = {}
            for state, name in chosen:
                f = next(f for f in features if f["properties"]["STATE"] == state and f["properties"]["NAME"] == name)
                g = prep(shape(f["geometry"]))
                out[state + name] = sorted(i for i, p in points if g.intersects(p))
            print(json.dumps(out))
            """, as: [String: [Int64]].self)
        var total = 0
        for (state, name) in chosen {
            let area = try #require(areas.first { $0.property("STATE") == .text(state) && $0.property("NAME") == .text(name) })
            let ids = try store.fetchIDs(WellFetchRequest(within: area)).sorted()
            #expect(ids == expected[state + name], "\(name), \(state)")
            total += ids.count
        }
        #expect(total > 1_000, "the counties hold wells: \(total)")
    }

    /// Wells per Pennsylvania county equal GeoPandas' `sjoin` (predicate intersects) and `groupby`;
    /// the degree grid's cells add up to the total and equal a `floor` binning of the same points.
    @Test(.lane(.slow), .blocking) func countsPerCountyAreGeoPandasSjoinAndTheGridAddsUp() throws {
        let (store, pins) = try Self.realStore()
        let pennsylvania = try Area.features(geoJSONAt: Self.counties).filter { $0.property("STATE") == .text("42") }
        let groups = try store.groups(WellFetchRequest(), by: .areas(pennsylvania))
        var ours: [String: Int] = [:]
        for group in groups where group.count > 0 { ours[group.outline!.property("NAME")!.description!] = group.count }
        let theirs = try Self.python("""
            import json
            import geopandas as gpd, pandas as pd
            pins = pd.read_csv("\(pins)")
            points = gpd.GeoDataFrame(pins, geometry=gpd.points_from_xy(pins.lon, pins.lat), crs="EPSG:4326")
            counties = gpd.read_file("\(Self.counties.path)")
            counties = counties[counties.STATE == "42"]
            joined = gpd.sjoin(points, counties, predicate="intersects")
            print(json.dumps({k: int(v) for k, v in joined.groupby("NAME").size().items()}))
            """, as: [String: Int].self)
        #expect(ours == theirs)
        #expect(ours.count > 50, "wells in most of Pennsylvania's 67 counties")

        let cells = try store.groups(WellFetchRequest(), by: .grid(size: 0.25))
        #expect(cells.reduce(0) { $0 + $1.count } == (try store.fetchCount(WellFetchRequest())))
        let binned = try Self.python("""
            import json, math, csv
            bins = {}
            for r in csv.DictReader(open("\(pins)")):
                k = "%d,%d" % (math.floor(float(r["lon"]) / 0.25), math.floor(float(r["lat"]) / 0.25))
                bins[k] = bins.get(k, 0) + 1
            print(json.dumps(bins))
            """, as: [String: Int].self)
        #expect(Dictionary(uniqueKeysWithValues: cells.map { ("\($0.key[0].int64!),\($0.key[1].int64!)", $0.count) }) == binned)
    }

    /// A grid whose cells are too small for their numbers to be integers (`--grid 1e-300 --grid-crs
    /// EPSG:5070` trapped converting 5e305 to Int64: SIGILL) or too small or large to draw in degrees is an error.
    @Test func gridSizesOutsideWhatCellsCanNumberAreErrors() throws {
        let store = try Fixtures.makeStore()
        _ = try store.load(csvAt: try Fixtures.file("uwi,lat,lon\nA,50.5,-114.2\nB,50.7,-114.4\n"))
        for grouping in [WellGrouping.grid(size: 1e-300, crs: "EPSG:5070"), .grid(size: 1e-300), .grid(size: 1e-10), .grid(size: 361)] {
            #expect(throws: QueryError.self, "\(grouping)") { try store.groups(WellFetchRequest(), by: grouping) }
        }
        #expect(try store.groups(WellFetchRequest(), by: .grid(size: 1e-9)).count == 2)
        #expect(try store.groups(WellFetchRequest(), by: .grid(size: 1e-3, crs: "EPSG:5070")).count == 2)
    }

    @Test func groupsByFieldWithMeasures() throws {
        let store = try Fixtures.makeStore()
        _ = try store.load(csvAt: try Fixtures.file("uwi,lat,lon,status,total_depth\nA,50,-114,Active,100\nB,50,-114,Active,300\nC,50,-114,Abandoned,\nD,50,-114,,50\n"))
        let groups = try store.groups(WellFetchRequest(), by: .fields([.status]), measures: [WellMeasure(.sum, .totalDepth), WellMeasure(.mean, .totalDepth)])
        #expect(groups.map(\.key) == [[.null], [.text("Abandoned")], [.text("Active")]])
        #expect(groups.map(\.count) == [1, 1, 2])
        #expect(groups.map { $0.measures } == [[.real(50), .real(50)], [.null, .null], [.real(400), .real(200)]])
        #expect(throws: QueryError.self) { try store.groups(WellFetchRequest(), by: .fields([.status]), measures: [WellMeasure(.sum, .status)]) }
    }
}

/// The same areas and groups on PostgreSQL/PostGIS as in a file.
@Suite(.serialized, .lane(.postgres), .blocking) struct AreaPostGISTests {
    @Test func withinAndGroupsAnswerAsInAFile() throws {
        let file = try Fixtures.makeStore(), server = try PostGIS.makeStore()
        for store in [file, server] {
            _ = try store.load(csvAt: Fixtures.sharedData("tn-oilgas-wells.csv"))
            _ = try store.load(csvAt: Fixtures.sharedData("usgs-nwis-pa-gw-sites.tsv"))
        }
        let areas = try Area.features(geoJSONAt: AreaTests.counties).filter { [.text("42"), .text("47")].contains($0.property("STATE")) }
        func identifiers(_ store: WellStore, _ request: WellFetchRequest) throws -> [String] {
            try store.fetchDictionaries(request, properties: [.identifier]).compactMap { $0["uwi"]?.string }.sorted()
        }
        for (state, name) in [("47", "Cheatham"), ("47", "Tipton"), ("47", "Dickson"), ("47", "Overton"), ("42", "Washington")] {
            let area = try #require(areas.first { $0.property("STATE") == .text(state) && $0.property("NAME") == .text(name) })
            let a = try identifiers(file, WellFetchRequest(within: area)), b = try identifiers(server, WellFetchRequest(within: area))
            #expect(a == b, "\(name)")
            #expect(!a.isEmpty || name == "Cheatham", "\(name) holds wells")
        }
        // A region and an area together, and a predicate.
        var request = WellFetchRequest(region: .box(try BoundingBox(parsing: "-80.6,39.7,-79.7,40.5")))
        request.within = try Area(wkt: "POLYGON((-80.5 39.8,-79.8 39.8,-79.8 40.4,-80.5 39.8))")
        #expect(try identifiers(file, request) == identifiers(server, request))
        #expect(try file.fetchCount(request) > 0)

        // Proximity joins: the wells within 2 km of 30 wells of the lists, and the nearest of each.
        let points = try file.fetchPins(WellFetchRequest(sortDescriptors: [WellSortDescriptor(.identifier)])).enumerated()
            .filter { $0.offset % 2_000 == 0 }.map { Coordinate(latitude: $0.element.latitude + 0.004, longitude: $0.element.longitude) }
        let near = try file.proximity(of: points, radius: 2_000, pairs: true), far = try server.proximity(of: points, radius: 2_000, pairs: true)
        #expect(near.map(\.count) == far.map(\.count) && near.map { $0.nearest?.identifier } == far.map { $0.nearest?.identifier })
        #expect(zip(near, far).allSatisfy { a, b in a.matches.map(\.identifier).sorted() == b.matches.map(\.identifier).sorted() })
        #expect(near.reduce(0) { $0 + $1.count } > 0)

        let measures = [WellMeasure(.mean, .totalDepth), WellMeasure(.max, .totalDepth)]
        for grouping in [WellGrouping.areas(areas), .fields([.status]), .grid(size: 0.25), .grid(size: 20_000, crs: "EPSG:5070")] {
            let a = try file.groups(WellFetchRequest(), by: grouping, measures: measures)
            let b = try server.groups(WellFetchRequest(), by: grouping, measures: measures)
            #expect(a.map(\.key) == b.map(\.key) && a.map(\.count) == b.map(\.count), "\(grouping)")
            for (x, y) in zip(a, b) {
                for (m, n) in zip(x.measures, y.measures) {
                    #expect(m == n || abs((m.double ?? 0) - (n.double ?? 0)) < 1e-6 * max(1, abs(m.double ?? 0)), "\(x.key): \(m) against \(n)")
                }
            }
        }
    }
}
