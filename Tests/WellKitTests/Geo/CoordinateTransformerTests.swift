import Foundation
import Testing
@testable import WellKit
@testable import WellKitSynthetic
import WellsTestSupport

private typealias GeoTestRNG = SeededRandom


/// Distance in metres between two lon/lat points (local equirectangular approximation).
private func localMetres(_ a: (x: Double, y: Double), _ b: (x: Double, y: Double)) -> Double {
    let radius = 6_371_000.0, rad = Double.pi / 180
    let dx = (a.x - b.x) * rad * radius * cos((a.y + b.y) / 2 * rad)
    let dy = (a.y - b.y) * rad * radius
    return (dx * dx + dy * dy).squareRoot()
}

@Suite struct CoordinateTransformerTests {
    /// 3,000 seeded random lon/lat points inside `crs`'s area of use, round-tripped via `crs`.
    func roundTrip(_ crs: String, seed: UInt64) throws {
        let area = try #require(try CRSInfo.describe(crs).areaOfUse, "no area of use for \(crs)")
        var rng = GeoTestRNG(seed: seed)
        let original: [(x: Double, y: Double)] = (0..<3_000).map { _ in
            (Double.random(in: area.west...area.east, using: &rng),
             Double.random(in: area.south...min(area.north, 84), using: &rng))
        }
        let forward = try CoordinateTransformer(from: "EPSG:4326", to: crs)
        let back = try CoordinateTransformer(from: crs, to: "4326")
        var projected = original
        try forward.transform(&projected)
        var returned = projected
        try back.transform(&returned)
        var worst = 0.0
        for (a, b) in zip(original, returned) { worst = max(worst, localMetres(a, b)) }
        #expect(worst < 0.001, "\(crs): worst round trip error \(worst) m")

        // The single-point API and the inverse direction agree with the batch results.
        for index in stride(from: 0, to: original.count, by: 97) {
            let p = try forward.transform(x: original[index].x, y: original[index].y)
            #expect(abs(p.x - projected[index].x) < 1e-6 && abs(p.y - projected[index].y) < 1e-6)
            let q = try forward.transform(x: p.x, y: p.y, inverse: true)
            #expect(localMetres(q, original[index]) < 0.001)
        }
    }

    @Test func roundTripUTM16N() throws { try roundTrip("EPSG:26916", seed: 26_916) }

    @Test func roundTripAlberta10TM() throws { try roundTrip("EPSG:3400", seed: 3_400) }

    /// Every Indiana orphan well: Utmx/Utmy (EPSG:26916) -> 4326 -> 3857 matches x/y within 2 m.
    @Test func indianaWellsMatchPublishedWebMercator() throws {
        let file = URL(fileURLWithPath: Fixtures.sharedData("in-igs-orphan-wells-utm16n.csv"))
        guard let data = FileManager.default.contents(atPath: file.path) else {
            Issue.record("missing test data \(file.path)")
            return
        }
        var text = String(decoding: data, as: UTF8.self)
        if text.hasPrefix("\u{FEFF}") { text.removeFirst() }
        let lines = text.split(whereSeparator: \.isNewline).map(String.init)
        let header = splitCSVLine(try #require(lines.first))
        let columns = try ["Utmx", "Utmy", "x", "y"].map { name in
            try #require(header.firstIndex(of: name), "no column \(name) in \(header)")
        }
        var utm: [(x: Double, y: Double)] = [], mercator: [(x: Double, y: Double)] = []
        for (number, line) in lines.dropFirst().enumerated() {
            let fields = splitCSVLine(line)
            let values = columns.map { $0 < fields.count ? Double(fields[$0]) : nil }
            guard let ux = values[0], let uy = values[1], let mx = values[2], let my = values[3] else {
                Issue.record("row \(number + 2) has non-numeric coordinates: \(line)")
                continue
            }
            utm.append((ux, uy))
            mercator.append((mx, my))
        }
        #expect(utm.count == 492)

        var points = utm
        try TransformCache.shared.transformer(from: "EPSG:26916", to: "EPSG:4326").transform(&points)
        #expect(points.allSatisfy { (-88.2 ... -84.7).contains($0.x) && (37.7 ... 41.8).contains($0.y) })
        try TransformCache.shared.transformer(from: "EPSG:4326", to: "EPSG:3857").transform(&points)
        var worst = 0.0
        for (index, (got, want)) in zip(points, mercator).enumerated() {
            let distance = ((got.x - want.x) * (got.x - want.x) + (got.y - want.y) * (got.y - want.y))
                .squareRoot()
            worst = max(worst, distance)
            #expect(distance < 2, "row \(index + 2): \(got) vs published \(want), \(distance) m apart")
        }
        #expect(worst > 0)   // the comparison really ran
    }

    @Test func unknownCRSHasClearMessage() throws {
        let error = try #require(throws: CRSError.self) {
            try CoordinateTransformer(from: "EPSG:999999", to: "EPSG:4326")
        }
        #expect(error.code == .unknownCRS)
        #expect(error.crs == ["EPSG:999999"])
        #expect(error.description.hasPrefix("unknown CRS \"EPSG:999999\": "))
        #expect(error.description.contains("crs not found"))        // PROJ's own text
        #expect(error.description.contains("EPSG:26916"))
        #expect(error.description.contains("projinfo -s EPSG:4267 -t EPSG:4326"))

        let garbage = try #require(throws: CRSError.self) { try CRSInfo.describe("not a crs") }
        #expect(garbage.code == .unknownCRS)
    }

    @Test func acceptsBareCodesAndProjStrings() throws {
        let bare = try CoordinateTransformer(from: "26916", to: "4326")
        let full = try CoordinateTransformer(from: "EPSG:26916", to: "EPSG:4326")
        let proj = try CoordinateTransformer(from: "+proj=utm +zone=16 +datum=NAD83", to: "EPSG:4326")
        let a = try bare.transform(x: 500_000, y: 4_400_000)
        let b = try full.transform(x: 500_000, y: 4_400_000)
        let c = try proj.transform(x: 500_000, y: 4_400_000)
        #expect(a == b)
        #expect(localMetres(a, c) < 0.01)
        #expect(abs(a.x - -87) < 1e-9)                         // x is longitude (normalised axes)
        #expect(try CRSInfo.describe("26916").identifier == "EPSG:26916")
    }

    @Test func failedTransformThrowsAndLeavesInputUnchanged() throws {
        let toWGS84 = try CoordinateTransformer(from: "EPSG:26916", to: "EPSG:4326")
        var points: [(x: Double, y: Double)] = [(500_000, 4_400_000), (1e30, 4_400_000)]
        let error = try #require(throws: CRSError.self) { try toWGS84.transform(&points) }
        #expect(error.code == .transformFailed)
        #expect(error.description.contains("point #1"))
        #expect(points[0].x == 500_000)                         // all or nothing
        #expect(throws: CRSError.self) { try toWGS84.transform(x: .nan, y: 1) }
    }

    @Test func operationIsReported() throws {
        let utm = try CoordinateTransformer(from: "EPSG:26916", to: "EPSG:4326")
        _ = try utm.transform(x: 500_000, y: 4_400_000)
        let op = utm.operation
        #expect(op.name.contains("UTM zone 16N"))
        #expect(op.projString?.contains("+proj=utm") == true)
        #expect(!op.isBallpark)
        let nad27 = try CoordinateTransformer(from: "EPSG:4267", to: "EPSG:4326")
        #expect(nad27.operation.name.contains("NAD27"))         // before any transform
        _ = try nad27.transform(x: -86.5, y: 39.5)                // Indiana
        #expect(nad27.operation.name.contains("NAD27 to WGS 84"))
    }

    @Test func sharedTransformerIsSafeAcrossTasks() async throws {
        let cache = TransformCache()
        let expected = try cache.transform(x: 500_000, y: 4_400_000, from: "EPSG:26916", to: "4326")
        try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<16 {
                group.addTask {
                    let t = try cache.transformer(from: "epsg:26916", to: "EPSG:4326")
                    for _ in 0..<200 {
                        let p = try t.transform(x: 500_000, y: 4_400_000)
                        if p != expected { return false }
                    }
                    return true
                }
            }
            for try await ok in group { #expect(ok) }
        }
        #expect(cache.count == 1)
    }
}

/// Splits one CSV line, honouring double quotes (some operator names contain commas).
private func splitCSVLine(_ line: String) -> [String] {
    let chars = Array(line)
    var fields: [String] = [], field = "", quoted = false, index = 0
    while index < chars.count {
        let c = chars[index]
        if quoted, c == "\"" {
            if index + 1 < chars.count, chars[index + 1] == "\"" { field.append("\""); index += 1 }
            else { quoted = false }
        } else if c == "\"", field.isEmpty, !quoted {
            quoted = true
        } else if c == ",", !quoted {
            fields.append(field)
            field = ""
        } else {
            field.append(c)
        }
        index += 1
    }
    fields.append(field)
    return fields
}
