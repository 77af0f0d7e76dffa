// Fuzz target `geoargs`: BoundingBox(parsing:), Coordinate(parsing:), WellSortDescriptor(parsing:) and
// Distance(parsing:), the command line's box, point, sort and distance arguments.
//
// Checks, beyond "never traps": what parses is finite and in range, and a box or point printed
// and parsed again is the same.

@_cdecl("LLVMFuzzerTestOneInput")
public func geoArgsFuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    if let box = try? BoundingBox(parsing: text) {
        for v in [box.minLongitude, box.maxLongitude] { precondition(v.isFinite && abs(v) <= 180, "BoundingBox: longitude \(v)") }
        for v in [box.minLatitude, box.maxLatitude] { precondition(v.isFinite && abs(v) <= 90, "BoundingBox: latitude \(v)") }
        precondition((try? BoundingBox(parsing: box.description)) == box, "BoundingBox: \(box) does not round-trip")
        guard let parts = try? box.parts(.split), !parts.isEmpty, parts.allSatisfy({ !$0.crossesAntimeridian }) else {
            fatalError("BoundingBox: \(box) does not split")
        }
        _ = box.contains(longitude: box.minLongitude, latitude: box.minLatitude)
    }
    if let point = try? Coordinate(parsing: text) {
        precondition(point.latitude.isFinite && abs(point.latitude) <= 90 && point.longitude.isFinite && abs(point.longitude) <= 180,
                     "Coordinate: \(point) out of range")
        precondition((try? Coordinate(parsing: point.description)) == point, "Coordinate: \(point) does not round-trip")
    }
    if let sort = try? WellSortDescriptor(parsing: text) {
        precondition((try? WellSortDescriptor(parsing: "\(sort.field.name):\(sort.ascending ? "asc" : "desc")")) == sort, "WellSortDescriptor: \(sort)")
    }
    if let distance = try? Distance(parsing: text) {
        precondition(distance.meters.isFinite && distance.meters >= 0, "Distance: \(distance.meters) m")
    }
    return 0
}
