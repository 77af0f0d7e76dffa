import CProj
import Foundation

/// A description of one PROJ coordinate operation (transformation, conversion or pipeline).
///
/// For example:
///
/// ```swift
/// let ops = try CoordinateTransformer.candidates(from: "EPSG:4267", to: "EPSG:4326")
/// for op in ops where !op.isInstantiable {
///     print(op.name, op.accuracy ?? -1, op.missingGrids.map(\.shortName))
/// }
/// ```
public struct OperationInfo: Sendable, Hashable, CustomStringConvertible {
    /// A grid file (datum shift, geoid, ...) an operation needs.
    public struct Grid: Sendable, Hashable {
        /// The name used in the operation, e.g. "us_noaa_conus.tif".
        public let shortName: String
        /// The full path when found locally, or the URL when only remote; "" when unknown.
        public let fullName: String
        /// The legacy proj-data package name, if any.
        public let packageName: String
        /// Where the grid can be downloaded, e.g. "https://cdn.proj.org/us_noaa_conus.tif".
        public let url: String
        /// Whether `url` points directly at the file (not at an archive or web page).
        public let directDownload: Bool
        /// Whether the grid is under an open licence.
        public let openLicense: Bool
        /// Whether PROJ can use it right now (installed, or reachable with networking on).
        public let available: Bool

        /// The shell command that installs this grid into the user's PROJ data directory.
        public var installCommand: String { "projsync --file \(shortName)" }
    }

    /// The operation name, e.g. "NAD27 to WGS 84 (4)" or "Inverse of UTM zone 16N + ...".
    public let name: String
    /// The first identifier, e.g. "EPSG:1173"; nil for operations PROJ composed itself.
    public let identifier: String?
    /// The PROJ pipeline definition (`proj_as_proj_string`), nil when not expressible.
    public let projString: String?
    /// Stated accuracy in metres; nil when unknown (PROJ returns -1).
    public let accuracy: Double?
    /// True when the operation contains a ballpark (datum-ignoring) step.
    public let isBallpark: Bool
    /// True when PROJ can run it now (all needed grids present or downloadable).
    public let isInstantiable: Bool
    /// The grids this operation uses; empty for purely parametric operations.
    public let grids: [Grid]
    /// Where the operation is valid, when PROJ knows.
    public let areaOfUse: CRSInfo.Area?

    /// Grids the operation needs that are not available now.
    public var missingGrids: [Grid] { grids.filter { !$0.available } }

    /// Accuracy as text: "10 m", "0.15 m" or "unknown accuracy".
    public var accuracyText: String {
        guard let accuracy else { return "unknown accuracy" }
        return "\(accuracy.projDecimal(3)) m"
    }

    public var description: String {
        var text = "'\(name)'"
        if let identifier { text += " [\(identifier)]" }
        text += ", \(accuracyText)"
        if isBallpark { text += ", ballpark" }
        if !missingGrids.isEmpty {
            text += ", missing grid(s) \(missingGrids.map(\.shortName).joined(separator: ", "))"
        }
        return text
    }

    /// Which operations to list, relative to the grids installed on this machine.
    public enum GridAvailability: Sendable, Hashable {
        /// Every operation, as if all grids were installed (find the best possible one).
        case ignored
        /// Only operations PROJ could run now: grids installed, or known to the CDN when
        /// networking is enabled. This is what `proj_create_crs_to_crs` considers.
        case available
        /// Every operation, those with missing grids sorted last (`projinfo`'s default).
        case sortMissingLast
    }

    /// Describes a PROJ operation object created in `context`.
    init(_ op: OpaquePointer, context: ProjContext) {
        let ctx = context.raw
        name = libproj.proj_get_name(op).map { String(cString: $0) } ?? "unnamed operation"
        if let auth = libproj.proj_get_id_auth_name(op, 0), let code = libproj.proj_get_id_code(op, 0) {
            identifier = "\(String(cString: auth)):\(String(cString: code))"
        } else {
            identifier = nil
        }
        projString = libproj.proj_as_proj_string(ctx, op, PJ_PROJ_5, nil).map { String(cString: $0) }
        let stated = libproj.proj_coordoperation_get_accuracy(ctx, op)
        accuracy = stated >= 0 ? stated : nil
        isBallpark = libproj.proj_coordoperation_has_ballpark_transformation(ctx, op) != 0
        isInstantiable = libproj.proj_coordoperation_is_instantiable(ctx, op) != 0
        var grids: [Grid] = []
        let count = libproj.proj_coordoperation_get_grid_used_count(ctx, op)
        for index in 0..<max(count, 0) {
            var short: UnsafePointer<CChar>?, full: UnsafePointer<CChar>?
            var package: UnsafePointer<CChar>?, url: UnsafePointer<CChar>?
            var direct: Int32 = 0, open: Int32 = 0, available: Int32 = 0
            guard libproj.proj_coordoperation_get_grid_used(ctx, op, index, &short, &full, &package,
                                                    &url, &direct, &open, &available) != 0
            else { continue }
            func text(_ p: UnsafePointer<CChar>?) -> String { p.map { String(cString: $0) } ?? "" }
            grids.append(Grid(shortName: text(short), fullName: text(full),
                              packageName: text(package), url: text(url),
                              directDownload: direct != 0, openLicense: open != 0,
                              available: available != 0))
        }
        self.grids = grids
        areaOfUse = CRSInfo.Area(of: op, context: context)
        context.resetLog()   // queries above may log harmless "not applicable" errors
    }

    /// Lists the operations PROJ knows from `source` to `target` (PROJ's preference order).
    ///
    /// Mirrors `proj_create_crs_to_crs`: partial intersection of the areas of use, optional
    /// area of interest (degrees), and the requested treatment of missing grids.
    static func search(source: ProjObject, target: ProjObject, grids: GridAvailability,
                       area: CRSInfo.Area?, crs: [String]) throws -> [OperationInfo] {
        let context = source.context
        let ctx = context.raw
        let factory = try context.check(libproj.proj_create_operation_factory_context(ctx, nil),
                                        .projFailure, "cannot create operation factory", crs: crs)
        defer { libproj.proj_operation_factory_context_destroy(factory) }
        let use: PROJ_GRID_AVAILABILITY_USE
        switch grids {
        case .ignored: use = PROJ_GRID_AVAILABILITY_IGNORED
        case .sortMissingLast: use = PROJ_GRID_AVAILABILITY_USED_FOR_SORTING
        case .available:
            use = libproj.proj_context_is_network_enabled(ctx) != 0
                ? PROJ_GRID_AVAILABILITY_KNOWN_AVAILABLE
                : PROJ_GRID_AVAILABILITY_DISCARD_OPERATION_IF_MISSING_GRID
        }
        libproj.proj_operation_factory_context_set_grid_availability_use(ctx, factory, use)
        libproj.proj_operation_factory_context_set_spatial_criterion(
            ctx, factory, PROJ_SPATIAL_CRITERION_PARTIAL_INTERSECTION)
        if let area {
            libproj.proj_operation_factory_context_set_area_of_interest(
                ctx, factory, area.west, area.south, area.east, area.north)
        }
        context.resetLog()
        let list = try context.check(libproj.proj_create_operations(ctx, source.raw, target.raw, factory),
                                     .noOperation, "no operation", crs: crs)
        defer { libproj.proj_list_destroy(list) }
        var result: [OperationInfo] = []
        for index in 0..<libproj.proj_list_get_count(list) {
            guard let op = libproj.proj_list_get(ctx, list, index) else { continue }
            defer { _ = libproj.proj_destroy(op) }
            result.append(OperationInfo(op, context: context))
        }
        return result
    }
}
