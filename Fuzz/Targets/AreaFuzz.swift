// Fuzz target `area`: Area(wkt:) and Area.features(geoJSON:) (JSONDocument), the areas of --within,
// --by-area and CQL2's geometries.
//
// Checks, beyond "never traps": every vertex of what parses is finite and in range (longitudes
// within ±180 after the cut at the antimeridian), every ring is closed, and an area written as
// GeoJSON reads back as the same polygons.

import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func areaFuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Data(UnsafeBufferPointer(start: data, count: size))
    var areas: [Area] = []
    if let area = try? Area(wkt: String(decoding: bytes, as: UTF8.self)) { areas.append(area) }
    if let features = try? Area.features(geoJSON: bytes) { areas += features }
    for area in areas {
        for polygon in area.polygons {
            for ring in [polygon.outline] + polygon.holes {
                precondition(ring.count >= 4 && ring.first == ring.last, "Area: a ring of \(ring.count) points that is not closed")
                for point in ring {
                    precondition(point.longitude.isFinite && abs(point.longitude) <= 180 && point.latitude.isFinite && abs(point.latitude) <= 90,
                                 "Area: vertex \(point) out of range")
                }
            }
        }
        _ = area.wkb
        _ = try? area.boxes()
        guard let again = try? Area.features(geoJSON: Data(area.geoJSONGeometry.utf8)), again.count == 1 else {
            fatalError("Area: \(area.geoJSONGeometry.prefix(200)) does not read back")
        }
        precondition(again[0].polygons == area.polygons, "Area: \(area.geoJSONGeometry.prefix(200)) reads back as other polygons")
    }
    return 0
}
