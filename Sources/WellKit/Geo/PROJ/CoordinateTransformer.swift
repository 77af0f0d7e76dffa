import CProj
import Foundation
import Synchronization

/// Transforms 2D coordinates between two CRSs with PROJ.
///
/// Axis order is always traditional GIS order: x = longitude/easting,
/// y = latitude/northing, angles in degrees (`proj_normalize_for_visualization`).
/// CRS strings may be "EPSG:26916", bare codes such as "4326", PROJ strings or WKT.
///
/// Thread safety: PROJ contexts and `PJ*` objects are not thread safe. Each
/// transformer owns a private PROJ context, and its context and `PJ*` live inside a
/// `Mutex`, so every PROJ call is serialised and the class is `Sendable` as checked.
/// One instance can be shared (see `TransformCache.shared`); concurrent
/// callers take turns. For heavy parallel work, give each task its own instance.
///
/// For example:
///
/// ```swift
/// let toWGS84 = try CoordinateTransformer(from: "EPSG:26916", to: "EPSG:4326")
/// let (lon, lat) = try toWGS84.transform(x: 500_000, y: 4_400_000)
/// var points = [(x: 500_000.0, y: 4_400_000.0), (x: 510_000.0, y: 4_410_000.0)]
/// try toWGS84.transform(&points)          // in place, all or nothing
/// print(toWGS84.operation.name)           // "Inverse of UTM zone 16N + ..."
/// ```
public final class CoordinateTransformer: Sendable {
    /// The source CRS as given by the caller.
    public let source: String
    /// The target CRS as given by the caller.
    public let target: String

    /// The PROJ context and transformation, reachable only under the lock.
    private let proj: Mutex<ProjHandles>

    /// Creates a transformer from `source` to `target`, optionally for an area of interest.
    ///
    /// The area (degrees) lets PROJ prefer operations valid there, like `cs2cs --area`.
    public init(from source: String, to target: String, area: CRSInfo.Area? = nil) throws {
        self.source = source
        self.target = target
        proj = Mutex(try ProjHandles(from: source, to: target, area: area))
    }

    /// Transforms one point; `inverse` runs target -> source.
    ///
    /// Throws `CRSError(.transformFailed)` when PROJ returns a non-finite result.
    public func transform(x: Double, y: Double, inverse: Bool = false) throws -> (x: Double, y: Double) {
        var xs = [x], ys = [y]
        try transform(xs: &xs, ys: &ys, inverse: inverse)
        return (xs[0], ys[0])
    }

    /// Transforms points in place; on error nothing is changed and the first failure is thrown.
    public func transform(_ points: inout [(x: Double, y: Double)], inverse: Bool = false) throws {
        var xs = points.map(\.x), ys = points.map(\.y)
        try transform(xs: &xs, ys: &ys, inverse: inverse)
        for index in points.indices { points[index] = (xs[index], ys[index]) }
    }

    /// Transforms parallel coordinate arrays in place (all or nothing).
    public func transform(xs: inout [Double], ys: inout [Double], inverse: Bool = false) throws {
        precondition(xs.count == ys.count, "xs and ys must have the same length")
        guard !xs.isEmpty else { return }
        var outX = xs, outY = ys
        let stride = MemoryLayout<Double>.stride
        let direction = inverse ? PJ_INV : PJ_FWD
        try proj.withLock { handles in
            let (context, pj) = (handles.context, handles.pj)
            _ = libproj.proj_errno_reset(pj.raw)
            context.resetLog()
            _ = outX.withUnsafeMutableBufferPointer { px in
                outY.withUnsafeMutableBufferPointer { py in
                    libproj.proj_trans_generic(pj.raw, direction,
                                       px.baseAddress, stride, px.count,
                                       py.baseAddress, stride, py.count,
                                       nil, 0, 0, nil, 0, 0)
                }
            }
            if let bad = outX.indices.first(where: { !outX[$0].isFinite || !outY[$0].isFinite }) {
                let errno = libproj.proj_errno(pj.raw)
                let (from, to) = inverse ? (target, source) : (source, target)
                let failures = outX.indices.filter { !outX[$0].isFinite || !outY[$0].isFinite }.count
                let hint = Self.hint(errno: errno, finiteInput: xs[bad].isFinite && ys[bad].isFinite)
                throw context.failure(
                    .transformFailed,
                    "cannot transform point #\(bad) (x: \(xs[bad]), y: \(ys[bad])) from \"\(from)\" "
                        + "to \"\(to)\" (\(failures) of \(xs.count) point(s) failed; \(hint))",
                    crs: [from, to], errno: errno == 0 ? nil : errno)
            }
        }
        xs = outX
        ys = outY
    }

    /// A likely cause for a failed point, from PROJ's error number.
    private static func hint(errno: Int32, finiteInput: Bool) -> String {
        if !finiteInput { return "the input is not a finite number" }
        switch errno {
        case PROJ_ERR_OTHER_NETWORK_ERROR, PROJ_ERR_INVALID_OP_FILE_NOT_FOUND_OR_INVALID:
            return "a grid could not be opened or downloaded; check the network, install it with "
                + "`projsync --file <grid>`, or unset PROJ_NETWORK"
        case PROJ_ERR_COORD_TRANSFM_OUTSIDE_GRID, PROJ_ERR_COORD_TRANSFM_GRID_AT_NODATA:
            return "the point is outside the datum shift grid"
        default:
            return "outside the CRS area of use, or x/y swapped?"
        }
    }

    /// The operation PROJ used for the most recent transform (PROJ >= 9.1), or,
    /// before any transform, PROJ's preferred operation for these CRSs.
    ///
    /// With `proj_create_crs_to_crs` PROJ keeps several candidate operations and
    /// picks one per point by area of use, so this can change between calls.
    public var operation: OperationInfo {
        proj.withLock { handles in
            let (context, pj) = (handles.context, handles.pj)
            if let last = libproj.proj_trans_get_last_used_operation(pj.raw) {
                defer { _ = libproj.proj_destroy(last) }
                return OperationInfo(last, context: context)
            }
            context.resetLog()
            if libproj.proj_as_proj_string(context.raw, pj.raw, PJ_PROJ_5, nil) != nil {
                return OperationInfo(pj.raw, context: context)   // a single operation
            }
            // Several alternatives and none used yet: report PROJ's first choice.
            if let sourceCRS = try? context.createCRS(source),
               let targetCRS = try? context.createCRS(target),
               let first = try? OperationInfo.search(source: sourceCRS, target: targetCRS,
                                                     grids: .available, area: nil,
                                                     crs: [source, target]).first {
                return first
            }
            return OperationInfo(pj.raw, context: context)
        }
    }

    /// Lists every operation PROJ knows from `source` to `target`, in PROJ's preference order.
    ///
    /// With `.ignored` (the default) operations needing grids that are not installed are
    /// included and flagged (`isInstantiable == false`, `missingGrids`).
    ///
    /// For example:
    ///
    /// ```swift
    /// let all = try CoordinateTransformer.candidates(from: "EPSG:4267", to: "EPSG:4326")
    /// let runnable = try CoordinateTransformer.candidates(from: "EPSG:4267", to: "EPSG:4326",
    ///                                                     grids: .available)
    /// ```
    public static func candidates(from source: String, to target: String,
                                  grids: OperationInfo.GridAvailability = .ignored,
                                  area: CRSInfo.Area? = nil) throws -> [OperationInfo] {
        let context = try ProjContext()
        let sourceCRS = try context.createCRS(source)
        let targetCRS = try context.createCRS(target)
        return try OperationInfo.search(source: sourceCRS, target: targetCRS, grids: grids,
                                        area: area, crs: [source, target])
    }
}

/// A transformer's PROJ context and the transformation made in it; they are used together, under one lock.
private struct ProjHandles {
    let context: ProjContext
    let pj: ProjObject

    init(from source: String, to target: String, area: CRSInfo.Area?) throws {
        let context = try ProjContext()
        self.context = context
        let crs = [source, target]
        let sourceCRS = try context.createCRS(source)
        let targetCRS = try context.createCRS(target)
        var pjArea: OpaquePointer?
        if let area {
            pjArea = libproj.proj_area_create()
            libproj.proj_area_set_bbox(pjArea, area.west, area.south, area.east, area.north)
        }
        defer { if let pjArea { libproj.proj_area_destroy(pjArea) } }
        context.resetLog()
        let raw = try context.own(
            libproj.proj_create_crs_to_crs_from_pj(context.raw, sourceCRS.raw, targetCRS.raw, pjArea, nil),
            .noOperation, "no operation", crs: crs)
        pj = try context.own(libproj.proj_normalize_for_visualization(context.raw, raw.raw),
                             .noOperation, "cannot normalise axis order", crs: crs)
    }
}
