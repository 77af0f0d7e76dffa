import GRDB

/// What to fetch: a predicate, sort descriptors, a region, a limit and an offset, like an
/// `NSFetchRequest` over pins and details.
///
/// For example:
///
/// ```swift
/// var request = WellFetchRequest()
/// request.region = .box(try BoundingBox(parsing: "-114.2,50.9,-113.9,51.2"))
/// request.predicate = .compare(.status, .equal, "Abandoned")
/// request.sortDescriptors = [WellSortDescriptor(.spudDate, ascending: false)]
/// request.limit = 50
/// request.within = try Area(wkt: "POLYGON((-114.2 50.9, -113.9 50.9, -114 51.2, -114.2 50.9))")
/// let pins = try store.fetchPins(request)
/// ```
public struct WellFetchRequest: Sendable, Equatable {
    public var predicate: WellPredicate?
    public var sortDescriptors: [WellSortDescriptor] = []
    public var region: Region?
    /// Keeps only the wells in this area (its boundary included), after the region if there is one:
    /// the R*Tree (GiST) finds the candidates in the area's boxes, the engine's `ST_Intersects` decides.
    public var within: Area?
    public var limit: Int?
    public var offset: Int?
    /// What to do with a box that crosses the antimeridian.
    public var antimeridian: BoundingBox.AntimeridianRule = .split

    public init(predicate: WellPredicate? = nil, sortDescriptors: [WellSortDescriptor] = [], region: Region? = nil, within: Area? = nil,
                limit: Int? = nil, offset: Int? = nil) {
        self.predicate = predicate
        self.sortDescriptors = sortDescriptors
        self.region = region
        self.within = within
        self.limit = limit
        self.offset = offset
    }
}

/// An area to fetch from; every form uses the R*Tree.
public enum Region: Sendable, Equatable {
    /// Wells in a box, edges included.
    case box(BoundingBox)
    /// Wells in a rectangle of another CRS, such as Alberta 10-TM metres (EPSG:3400).
    ///
    /// A projected rectangle is not a longitude/latitude rectangle. Its edges are densified
    /// (64 points each) and transformed to find an enclosing EPSG:4326 box for the R*Tree;
    /// each candidate is then transformed back and kept only if it lies in the rectangle.
    case projectedBox(crs: String, minX: Double, minY: Double, maxX: Double, maxY: Double)
    /// Wells within `meters` (geodesic, WGS 84) of a point.
    case radius(latitude: Double, longitude: Double, meters: Double)

    /// Wells within `meters` (geodesic, WGS 84) of `center`: ``radius(latitude:longitude:meters:)``.
    public static func radius(around center: Coordinate, meters: Double) -> Region {
        .radius(latitude: center.latitude, longitude: center.longitude, meters: meters)
    }

    /// The center of a radius; nil for the other regions.
    public var center: Coordinate? {
        if case .radius(let latitude, let longitude, _) = self { Coordinate(latitude: latitude, longitude: longitude) } else { nil }
    }
}

/// A sort on one field or unmapped column, such as `detail.spud_date:desc` or `extra.DRILLER`.
public struct WellSortDescriptor: Sendable, Equatable {
    public var field: WellAttribute
    public var ascending: Bool

    public init(_ field: WellAttribute, ascending: Bool = true) {
        self.field = field
        self.ascending = ascending
    }

    /// Parses `field`, `field:asc` or `field:desc`, where the field may be a key path like
    /// `detail.spud_date` or an unmapped column, `extra.NAME` (sorted as text).
    public init(parsing text: String) throws {
        let parts = text.split(separator: ":", maxSplits: 1).map(String.init)
        field = try WellAttribute(keyPath: parts.first ?? "")
        switch parts.count > 1 ? parts[1].lowercased() : "asc" {
        case "asc", "ascending": ascending = true
        case "desc", "descending": ascending = false
        default: throw QueryError(.invalidDirection, "sort \"\(text)\": the direction must be asc or desc", subject: .sortDescriptor, text: text, token: parts[1], offset: parts[0].count + 2, field: field.field)
        }
    }
}

extension WellField {
    /// Resolves a field name or key path: `spud_date`, `detail.spud_date`, `details.spud_date`, `pin.name`.
    ///
    /// - Throws: ``QueryError`` listing the valid names when the name is not a field.
    public init(keyPath: String) throws {
        var name = keyPath
        for prefix in ["detail.", "details.", "pin.", "pins.", "well."] where name.hasPrefix(prefix) {
            name.removeFirst(prefix.count)
        }
        let aliases = ["latitude": "lat", "longitude": "lon", "identifier": "uwi", "api": "uwi", "wellkit_id": "id"]
        guard let field = WellField(rawValue: aliases[name] ?? name) else {
            throw QueryError(.unknownField, "unknown field \"\(keyPath)\"; valid fields: \(WellField.allCases.map(\.rawValue).joined(separator: ", ")) (details fields may be written detail.NAME), or extra.NAME for a source column no field maps", subject: .fieldName, text: keyPath, token: keyPath, offset: 1)
        }
        if keyPath.hasPrefix("pin") && field.table != .pins {
            throw QueryError(.detailField, "\"\(keyPath)\": \(field.rawValue) is a detail field; write detail.\(field.rawValue)", subject: .fieldName, text: keyPath, token: keyPath, offset: 1, field: field)
        }
        self = field
    }
}
