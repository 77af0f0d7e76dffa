import CProj
import Foundation

/// A description of a coordinate reference system from PROJ's database.
///
/// For example:
///
/// ```swift
/// let nad27 = try CRSInfo.describe("EPSG:4267")
/// print(nad27.name, nad27.kind, nad27.areaOfUse?.name ?? "")   // NAD27 geographic 2D North America ...
/// let report = try nad27.accuracyReport()                        // to EPSG:4326
/// if let warning = report.warning { print(warning) }
/// ```
public struct CRSInfo: Sendable, Hashable {
    /// The broad kind of CRS.
    public enum Kind: String, Sendable, Hashable {
        case geographic2D = "geographic 2D"
        case geographic3D = "geographic 3D"
        case geocentric
        case projected
        case vertical
        case compound
        case bound
        case engineering
        case temporal
        case other
    }

    /// A longitude/latitude box in degrees (west may exceed east across the antimeridian).
    public struct Area: Sendable, Hashable {
        public var west: Double
        public var south: Double
        public var east: Double
        public var north: Double
        /// A readable description, e.g. "United States (USA) - Indiana.".
        public var name: String?

        /// Creates an area from its bounds in degrees.
        public init(west: Double, south: Double, east: Double, north: Double, name: String? = nil) {
            self.west = west
            self.south = south
            self.east = east
            self.north = north
            self.name = name
        }

        /// `proj_get_area_of_use` of a CRS or operation; nil when PROJ does not know it.
        init?(of object: OpaquePointer, context: ProjContext) {
            var west = 0.0, south = 0.0, east = 0.0, north = 0.0
            var name: UnsafePointer<CChar>?
            guard libproj.proj_get_area_of_use(context.raw, object, &west, &south, &east, &north, &name) != 0,
                  west > -1000, south > -1000, east > -1000, north > -1000
            else { return nil }
            self.init(west: west, south: south, east: east, north: north,
                      name: name.map { String(cString: $0) })
        }

        /// Whether a longitude/latitude point lies inside (handles antimeridian crossing).
        public func contains(longitude: Double, latitude: Double) -> Bool {
            guard latitude >= south, latitude <= north else { return false }
            if west <= east { return longitude >= west && longitude <= east }
            return longitude >= west || longitude <= east
        }
    }

    /// The string this description was made from, as given.
    public let definition: String
    /// The CRS name, e.g. "NAD83 / UTM zone 16N".
    public let name: String
    /// The authority, e.g. "EPSG"; nil for ad-hoc PROJ strings / WKT without an ID.
    public let authority: String?
    /// The code within the authority, e.g. "26916".
    public let code: String?
    /// The kind of CRS.
    public let kind: Kind
    /// Where the CRS is meant to be used, when known.
    public let areaOfUse: Area?
    /// The (horizontal) datum name, e.g. "North American Datum 1927", when PROJ reports one.
    public let datumName: String?
    /// The CRS as a PROJ string, when expressible.
    public let projString: String?

    /// "EPSG:26916", or the definition when the CRS has no identifier.
    public var identifier: String {
        guard let authority, let code else { return definition }
        return "\(authority):\(code)"
    }

    /// True for geographic (longitude/latitude) CRSs.
    public var isGeographic: Bool { kind == .geographic2D || kind == .geographic3D }

    /// Describes a CRS given as "EPSG:4267", "4267", a PROJ string or WKT.
    ///
    /// Throws `CRSError(.unknownCRS)` with PROJ's text when the CRS is unknown.
    ///
    /// For example:
    ///
    /// ```swift
    /// let utm = try CRSInfo.describe("26916")
    /// assert(utm.kind == .projected && utm.identifier == "EPSG:26916")
    /// ```
    public static func describe(_ code: String) throws -> CRSInfo {
        let context = try ProjContext()
        let crs = try context.createCRS(code)
        return CRSInfo(crs, definition: code)
    }

    init(_ crs: ProjObject, definition: String) {
        let context = crs.context
        let ctx = context.raw
        self.definition = definition
        name = crs.name ?? definition
        authority = libproj.proj_get_id_auth_name(crs.raw, 0).map { String(cString: $0) }
        code = libproj.proj_get_id_code(crs.raw, 0).map { String(cString: $0) }
        kind = Self.kind(of: libproj.proj_get_type(crs.raw))
        areaOfUse = Area(of: crs.raw, context: context)
        var datum = libproj.proj_crs_get_datum_forced(ctx, crs.raw)
        if datum == nil { datum = libproj.proj_crs_get_horizontal_datum(ctx, crs.raw) }
        datumName = datum.flatMap { libproj.proj_get_name($0).map { String(cString: $0) } }
        if let datum { _ = libproj.proj_destroy(datum) }
        projString = libproj.proj_as_proj_string(ctx, crs.raw, PJ_PROJ_5, nil).map { String(cString: $0) }
        context.resetLog()   // e.g. "not a CRS with a datum" for compound CRSs
    }

    private static func kind(of type: PJ_TYPE) -> Kind {
        switch type {
        case PJ_TYPE_GEOGRAPHIC_2D_CRS: return .geographic2D
        case PJ_TYPE_GEOGRAPHIC_3D_CRS: return .geographic3D
        case PJ_TYPE_GEOCENTRIC_CRS, PJ_TYPE_GEODETIC_CRS: return .geocentric
        case PJ_TYPE_PROJECTED_CRS: return .projected
        case PJ_TYPE_VERTICAL_CRS: return .vertical
        case PJ_TYPE_COMPOUND_CRS: return .compound
        case PJ_TYPE_BOUND_CRS: return .bound
        case PJ_TYPE_ENGINEERING_CRS: return .engineering
        case PJ_TYPE_TEMPORAL_CRS: return .temporal
        default: return .other
        }
    }

    /// Compares the best operation to `target` PROJ knows with the one it can run now.
    ///
    /// "Best" is PROJ's first choice if every grid were installed; "used" is its first
    /// choice among operations runnable now (installed grids, or the CDN when
    /// `PROJ_NETWORK=ON`). A transformer picks per point among the runnable ones, so
    /// pass the data's bounding box as `area` for a report specific to it.
    ///
    /// For example:
    ///
    /// ```swift
    /// let indiana = CRSInfo.Area(west: -88.1, south: 37.8, east: -84.8, north: 41.8)
    /// let report = try CRSInfo.describe("EPSG:4267").accuracyReport(area: indiana)
    /// print(report)   // multi-line summary; report.warning is nil when nothing is missing
    /// ```
    public func accuracyReport(to target: String = "EPSG:4326",
                               area: Area? = nil) throws -> AccuracyReport {
        let context = try ProjContext()
        let sourceCRS = try context.createCRS(definition)
        let targetCRS = try context.createCRS(target)
        let crs = [definition, target]
        let all = try OperationInfo.search(source: sourceCRS, target: targetCRS,
                                           grids: .ignored, area: area, crs: crs)
        let runnable = try OperationInfo.search(source: sourceCRS, target: targetCRS,
                                                grids: .available, area: area, crs: crs)
        return AccuracyReport(
            source: identifier, sourceName: name,
            target: CRSString.normalize(target), targetName: targetCRS.name ?? target,
            area: area, candidates: all, used: runnable.first,
            networkEnabled: libproj.proj_context_is_network_enabled(context.raw) != 0)
    }
}

extension CRSInfo {
    /// A projected CRS of PROJ's EPSG database: its identifier, name and area of use.
    struct Listed: Sendable {
        var identifier: String
        var name: String
        var area: Area
    }

    /// The EPSG projected CRSs (not deprecated) whose area of use intersects `area`, from PROJ's database.
    static func projectedCRSs(intersecting area: Area) -> [Listed] {
        guard let context = try? ProjContext() else { return [] }
        guard let params = libproj.proj_get_crs_list_parameters_create() else { return [] }
        defer { libproj.proj_get_crs_list_parameters_destroy(params) }
        var types = [PJ_TYPE_PROJECTED_CRS]
        var count: Int32 = 0
        let list: UnsafeMutablePointer<UnsafeMutablePointer<PROJ_CRS_INFO>?>? = types.withUnsafeMutableBufferPointer { buffer in
            params.pointee.types = UnsafePointer(buffer.baseAddress)
            params.pointee.typesCount = 1
            params.pointee.bbox_valid = 1
            params.pointee.crs_area_of_use_contains_bbox = 0
            params.pointee.west_lon_degree = area.west
            params.pointee.south_lat_degree = area.south
            params.pointee.east_lon_degree = area.east
            params.pointee.north_lat_degree = area.north
            params.pointee.allow_deprecated = 0
            return libproj.proj_get_crs_info_list_from_database(context.raw, "EPSG", params, &count)
        }
        guard let list else { return [] }
        defer { libproj.proj_crs_info_list_destroy(list) }
        return (0..<Int(count)).compactMap { k in
            guard let info = list[k]?.pointee, info.bbox_valid != 0 else { return nil }
            return Listed(identifier: "EPSG:" + String(cString: info.code), name: String(cString: info.name),
                          area: Area(west: info.west_lon_degree, south: info.south_lat_degree,
                                     east: info.east_lon_degree, north: info.north_lat_degree,
                                     name: info.area_name.map { String(cString: $0) }))
        }
    }
}
