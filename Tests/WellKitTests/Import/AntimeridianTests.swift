import Foundation
import Testing
@testable import WellKit
import WellsTestSupport

/// Lists around the world and projected lists with nothing to judge their CRS by, each from a real
/// list of Data/real (Tests/Fixtures/Antimeridian/make_fixtures.py): every field of every well is
/// checked against the same wells loaded as published.
@Suite struct AntimeridianTests {
    static func fixture(_ name: String) -> String {
        Fixtures.repositoryRoot.appendingPathComponent("Tests/Fixtures/Antimeridian/\(name)").path
    }

    /// Every well's every property but its id, by identifier.
    static func properties(_ store: WellStore) throws -> [String: [String: WellValue]] {
        var result: [String: [String: WellValue]] = [:]
        for well in try store.fetchWells(WellFetchRequest()) {
            result[well.detail.identifier] = Dictionary(well.properties().filter { $0.name != "id" }.map { ($0.name, $0.value) },
                                                        uniquingKeysWith: { a, _ in a })
        }
        return result
    }

    /// How two stores' wells differ, property by property (`lat` and `lon` within `tolerance` degrees),
    /// leaving out the properties named in `ignoring`.
    static func differences(_ a: WellStore, _ b: WellStore, tolerance: Double = 1e-9, ignoring: Set<String> = []) throws -> [String] {
        let (left, right) = (try properties(a), try properties(b))
        var lines: [String] = []
        if Set(left.keys) != Set(right.keys) { lines.append("identifiers differ: \(Set(left.keys).symmetricDifference(right.keys).sorted().prefix(5))") }
        for (identifier, fields) in left.sorted(by: { $0.key < $1.key }) {
            guard let other = right[identifier] else { continue }
            for name in Set(fields.keys).union(other.keys).subtracting(ignoring).sorted() {
                let (x, y) = (fields[name], other[name])
                if ["lat", "lon"].contains(name), let x = x?.double, let y = y?.double, abs(x - y) <= tolerance { continue }
                if x != y { lines.append("\(identifier) \(name): \(x?.description ?? "nothing") and \(y?.description ?? "nothing")") }
            }
        }
        return lines
    }

    // MARK: - Longitudes on a circle

    @Test func longitudesAreMeasuredTheShortWayRound() {
        #expect(Longitude.difference(179.5, -179.5) == -1)
        #expect(Longitude.difference(-179.5, 179.5) == 1)
        #expect(Longitude.outside(-179, west: 170, east: 178) == 3)
        #expect(Longitude.outside(-179, west: 170, east: -175) == 0)
        #expect(Longitude.clamp(-170, west: 170, east: 178) == 178)
        #expect(Longitude.unwrapped(sorted: [-178, -150, 175]) == [175, 182, 210])
        #expect(Longitude.unwrapped(sorted: [-120, -110, -100]) == [-120, -110, -100])
        #expect(Longitude.median([179, -179, 178]) == 179)
    }

    /// Alaska's wells with 15 on Attu, across ±180° from the rest: measured the long way round they
    /// were 2,700 km outside the others' extent, and flagged.
    @Test func wellsAcrossTheAntimeridianInTheirOwnCountryAreNoSuspects() throws {
        var points: [(lat: Double, lon: Double)] = []
        for k in 0..<2_000 { points.append((58 + Double(k % 100) / 10, -160 + Double(k / 100) * 0.75)) }
        for k in 0..<15 { points.append((52.85 + Double(k % 5) * 0.02, 173.0 + Double(k / 5) * 0.1)) }
        let places = try #require(Places.shared)
        let findings = SuspectCoordinates.find(points, countryOf: { places.country(containing: $1, latitude: $0) })
        #expect(findings.isEmpty, "\(findings.prefix(3))")
        // With more of them (over 1%), the extent crosses ±180° to hold them: 47° wide, not 333°.
        let core = try #require(SuspectCoordinates.coreExtent(points + (0..<150).map { (52.9, 173.0 + Double($0 % 10) * 0.02) }))
        #expect(core.width < 50 && core.west > 172 && core.west < 174, "\(core)")
    }

    // MARK: - --implied-west and the wells its rows hold east

    /// Alaska's list with its minus signs lost and 4 Attu wells rightly east: the stop offers
    /// --implied-west, which loads every well where the list as published puts it (the Attu wells
    /// kept east, not moved 800 km into the Bering Sea), every property the same, nothing flagged.
    @Test func impliedWestKeepsEastTheWellsTheirRowsPlaceEast() throws {
        let right = try Fixtures.makeStore()
        let published = try right.load(csvAt: Self.fixture("ak-attu.csv"))
        #expect(published.inserted == 40 && published.rejected == 0)
        #expect(published.suspects.isEmpty, "\(published.suspects)")

        let lost = Self.fixture("ak-attu-lost-signs.csv")
        let store = try Fixtures.makeStore()
        do {
            _ = try store.load(csvAt: lost)
            Issue.record("loaded in Asia")
        } catch let error as ImportError {
            #expect(error.code == .misplaced)
            guard case .relocate(let fix?)? = error.remedy else { Issue.record("no fix: \(error)"); return }
            #expect(fix.impliedWest)
        }
        var options = LoadOptions()
        options.coordinates.impliedWest = true
        let fixed = try store.load(csvAt: lost, options: options)
        #expect(fixed.inserted == 40 && fixed.suspects.isEmpty, "\(fixed.suspects)")
        #expect(fixed.warnings.contains { $0.contains("4 unsigned longitudes kept east") }, "\(fixed.warnings)")
        // Every property but the coordinate column's text as written, which lost its signs.
        let differences = try Self.differences(right, store, ignoring: ["extra.Surface Location Coordinates (NAD 83)"])
        #expect(differences.isEmpty, "\(differences.prefix(5))")
        let attu = try #require(Self.properties(store)["50-016-90001-00-00"])
        #expect(attu["lon"]?.double == 173.2)
    }

    // MARK: - Longitudes from 0 to 360

    /// NWIS's Pacific sites with longitudes written 0–360: 411 of them (Guam, Micronesia, the
    /// Marshall Islands) are in range, so the rest were rejected with exit 0 and no word of the
    /// option. The stop offers it, and the load with it is the published list's, field by field.
    @Test func longitudesFrom0To360AreOfferedThoughSomeAreInRange() throws {
        let written = Self.fixture("nwis-pacific-0-360.tsv")
        let store = try Fixtures.makeStore()
        do {
            _ = try store.load(csvAt: written)
            Issue.record("loaded with most rows rejected")
        } catch let error as ImportError {
            #expect(error.code == .misplaced, "\(error)")
            guard case .relocate(let fix?)? = error.remedy else { Issue.record("no fix: \(error)"); return }
            #expect(fix.longitudes0To360)
        }
        #expect(try !store.hasLoads())
        var options = LoadOptions()
        options.coordinates.longitudes0To360 = true
        let loaded = try store.load(csvAt: written, options: options)
        let right = try Fixtures.makeStore()
        let published = try right.load(csvAt: Self.fixture("nwis-pacific-tenth.tsv"))
        #expect(loaded.inserted == published.inserted && loaded.rejected == 0)
        #expect(loaded.suspects.map(\.line) == published.suspects.map(\.line))
        // The source longitude as written differs (202.2 for -157.8); every other property is the same.
        let differences = try Self.differences(right, store, tolerance: 1e-9, ignoring: ["source_x"])
        #expect(differences.isEmpty, "\(differences.prefix(5))")
    }

    // MARK: - No guess that cannot be judged

    /// Colorado in state-plane feet with no place column: the one candidate was Web Mercator, which
    /// put the wells in Sudan. None is offered, and the reason says why.
    @Test func projectedValuesWithNothingToJudgeThemGetNoCandidate() throws {
        let store = try Fixtures.makeStore()
        do {
            _ = try store.load(csvAt: Self.fixture("co-stateplane-ftus.csv"))
            Issue.record("loaded without a CRS")
        } catch let error as ImportError {
            guard case .giveCRS(let candidates)? = error.remedy else { Issue.record("\(error)"); return }
            #expect(candidates.isEmpty, "\(candidates)")
            #expect(error.reason.contains("Nothing in the file judges"), "\(error.reason)")
        }
    }

    /// Colorado's `geometry` column (UTM 13N metres) without Latitude/Longitude: with no place
    /// column, the question; with a State column, UTM 13N first; loaded with it, every well where
    /// the published Latitude/Longitude put it, every other property the same, none flagged
    /// outside the zone (UTM 13N ends at 108°W, Colorado at 109.05°W).
    @Test func aProjectedGeometryColumnGetsTheCandidateSearch() throws {
        let store = try Fixtures.makeStore()
        let bare = Self.fixture("co-geometry.csv")
        do {
            _ = try store.load(csvAt: bare)
            Issue.record("loaded without a CRS")
        } catch let error as ImportError {
            guard case .giveCRS(let candidates)? = error.remedy else { Issue.record("\(error)"); return }
            // At most UTM's placeholder, EPSG:269ZZ, whose zone nothing in the file names: no command that loads.
            #expect(candidates.allSatisfy { $0.crs.hasSuffix("ZZ") }, "\(candidates)")
            #expect(error.reason.contains("the points of geometry") && error.reason.contains("Nothing in the file judges"), "\(error.reason)")
        }
        do {
            _ = try store.load(csvAt: Self.fixture("co-geometry-state.csv"))
            Issue.record("loaded without a CRS")
        } catch let error as ImportError {
            guard case .giveCRS(let candidates)? = error.remedy else { Issue.record("\(error)"); return }
            #expect(candidates.first?.crs == "EPSG:26913", "\(candidates)")
            #expect(candidates.first?.xColumn == "geometry" && candidates.first?.yColumn == "geometry")
        }
        var options = LoadOptions()
        options.coordinates.crs = "EPSG:26913"
        let loaded = try store.load(csvAt: bare, options: options)
        #expect(loaded.inserted == 229 && loaded.rejected == 0)
        #expect(loaded.suspects.isEmpty, "\(loaded.suspects.count) flagged, such as \(loaded.suspects.prefix(2))")
        let right = try Fixtures.makeStore()
        _ = try right.load(csvAt: Self.fixture("co-tenth.csv"))
        // NAD83 read as WGS 84 by the published degrees, PROJ's ballpark: the same to 1e-5° (a metre).
        let differences = try Self.differences(right, store, tolerance: 1e-5,
                                               ignoring: ["source_x", "source_y", "source_crs", "extra.geometry", "extra.Latitude", "extra.Longitude"])
        #expect(differences.isEmpty, "\(differences.prefix(5))")
    }
}
