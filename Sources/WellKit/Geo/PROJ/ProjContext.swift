import CProj
import Foundation

/// Owns one PROJ threading context (`PJ_CONTEXT*`) and turns PROJ failures into `CRSError`.
///
/// A PROJ context, and every `PJ*` created with it, must only be used by one
/// thread at a time. `ProjContext` itself does no locking: its owners
/// (`CoordinateTransformer`, the static helpers) either create a private
/// context per call or serialise every use behind their own lock.
///
/// PROJ's log output is captured (instead of going to stderr) so that error
/// messages can quote it. For example:
///
/// ```swift
/// let ctx = try ProjContext()
/// let crs = try ctx.createCRS("EPSG:26916")   // throws CRSError(.unknownCRS) for "EPSG:999999"
/// ```
final class ProjContext {
    /// The `PJ_CONTEXT*`; valid for the lifetime of this object.
    let raw: OpaquePointer
    /// PROJ log lines (errors) since the last `takeError()`.
    private var log: [String] = []

    init() throws {
        _ = try loadedProj.get()
        guard let ctx = libproj.proj_context_create() else {
            throw CRSError(.projFailure, "proj_context_create failed (out of memory or no proj.db?)")
        }
        raw = ctx
        let me = Unmanaged.passUnretained(self).toOpaque()
        libproj.proj_log_func(raw, me) { data, _, message in
            guard let data, let message else { return }
            let context = Unmanaged<ProjContext>.fromOpaque(data).takeUnretainedValue()
            context.record(String(cString: message))
        }
    }

    deinit {
        // Detach the logger before destroying, so PROJ never calls back into a dying object.
        libproj.proj_log_func(raw, nil) { _, _, _ in }
        _ = libproj.proj_context_destroy(raw)
    }

    private func record(_ line: String) {
        log.append(line)
        if log.count > 8 { log.removeFirst(log.count - 8) }
    }

    /// The current PROJ error: `proj_context_errno` and its text plus captured log lines.
    ///
    /// Clears the captured log so the next failure reports only its own text.
    func takeError(errno explicit: Int32? = nil) -> (text: String, errno: Int32) {
        let number = explicit ?? libproj.proj_context_errno(raw)
        var parts = log
        log.removeAll()
        if number != 0, let cText = libproj.proj_context_errno_string(raw, number) {
            let text = String(cString: cText)
            let generic = text.hasPrefix("Unknown error")   // says nothing beyond the log line
            if !parts.contains(where: { $0.contains(text) }), !(generic && !parts.isEmpty) {
                parts.append(text)
            }
        }
        return (parts.joined(separator: "; "), number)
    }

    /// Forgets captured log lines (call before an operation whose failure will be reported).
    func resetLog() { log.removeAll() }

    /// The single failure helper: builds a `CRSError` from the current PROJ error state.
    func failure(_ code: CRSError.Code, _ what: String, crs: [String] = [],
                 errno: Int32? = nil) -> CRSError {
        let (text, number) = takeError(errno: errno)
        switch code {
        case .unknownCRS:
            return CRSError.unknownCRS(crs.first ?? what, projText: text, errno: number)
        case .noOperation where crs.count == 2:
            return CRSError.noOperation(crs[0], crs[1], projText: text, errno: number)
        default:
            let detail = text.isEmpty ? "" : ": \(text)"
            return CRSError(code, "\(what)\(detail)", crs: crs, projErrno: number)
        }
    }

    /// Unwraps a PROJ pointer result, throwing the PROJ error text when it is NULL.
    func check<T>(_ value: T?, _ code: CRSError.Code, _ what: String,
                  crs: [String] = []) throws -> T {
        guard let value else { throw failure(code, what, crs: crs) }
        return value
    }

    /// Checks a PROJ boolean return code (non-zero = success).
    func check(_ rc: Int32, _ code: CRSError.Code, _ what: String, crs: [String] = []) throws {
        if rc == 0 { throw failure(code, what, crs: crs) }
    }

    /// Wraps a freshly created `PJ*`, throwing if it is NULL.
    func own(_ pj: OpaquePointer?, _ code: CRSError.Code, _ what: String,
             crs: [String] = []) throws -> ProjObject {
        ProjObject(try check(pj, code, what, crs: crs), context: self)
    }

    /// Creates a CRS from a user string ("EPSG:4326", "4326", PROJ string, WKT, PROJJSON).
    func createCRS(_ string: String) throws -> ProjObject {
        resetLog()
        let definition = CRSString.normalize(string)
        let object = try own(libproj.proj_create(raw, definition), .unknownCRS, string, crs: [string])
        guard libproj.proj_is_crs(object.raw) != 0 else {
            throw CRSError(.notACRS,
                           "\"\(string)\" is a PROJ \(object.typeName), not a CRS; \(CRSError.codeHint)",
                           crs: [string])
        }
        // PROJ resolves a name it does not know to the first CRS whose name resembles it ("foo" is
        // Amersfoort, "wgs" is WGS 72). A name must therefore be a CRS's whole name, as it is written.
        if CRSString.isName(definition), let name = object.name,
           name.compare(definition, options: .caseInsensitive) != .orderedSame {
            throw CRSError.inexactName(string, closeMatches: closeMatches(to: definition))
        }
        return object
    }

    /// Up to `limit` CRSs whose names resemble `name`, as "EPSG:4289 Amersfoort", from PROJ's database.
    ///
    /// See [proj_create_from_name](https://proj.org/en/stable/development/reference/functions.html#c.proj_create_from_name).
    func closeMatches(to name: String, limit: Int = 5) -> [String] {
        defer { resetLog() }
        let types = [PJ_TYPE_GEOGRAPHIC_2D_CRS, PJ_TYPE_GEOGRAPHIC_3D_CRS, PJ_TYPE_PROJECTED_CRS,
                     PJ_TYPE_COMPOUND_CRS, PJ_TYPE_GEOCENTRIC_CRS]
        let list = types.withUnsafeBufferPointer {
            libproj.proj_create_from_name(raw, nil, name, $0.baseAddress, $0.count, 1, limit, nil)
        }
        guard let list else { return [] }
        defer { libproj.proj_list_destroy(list) }
        return (0..<Int(libproj.proj_list_get_count(list))).compactMap { k in
            guard let pj = libproj.proj_list_get(raw, list, Int32(k)) else { return nil }
            let object = ProjObject(pj, context: self)
            return [object.identifier, object.name].compactMap { $0 }.joined(separator: " ")
        }
    }
}

/// Owns one `PJ*` and destroys it with `proj_destroy`; keeps its context alive.
final class ProjObject {
    let raw: OpaquePointer
    let context: ProjContext

    init(_ raw: OpaquePointer, context: ProjContext) {
        self.raw = raw
        self.context = context
    }

    deinit { _ = libproj.proj_destroy(raw) }

    /// `proj_get_name`, or nil when PROJ has none.
    var name: String? { libproj.proj_get_name(raw).map { String(cString: $0) } }

    /// The first identifier as "AUTH:CODE" (e.g. "EPSG:4267"), or nil.
    var identifier: String? {
        guard let auth = libproj.proj_get_id_auth_name(raw, 0), let code = libproj.proj_get_id_code(raw, 0)
        else { return nil }
        return "\(String(cString: auth)):\(String(cString: code))"
    }

    /// A short readable name of the PROJ object type.
    var typeName: String {
        switch libproj.proj_get_type(raw) {
        case PJ_TYPE_CONVERSION: return "conversion"
        case PJ_TYPE_TRANSFORMATION: return "transformation"
        case PJ_TYPE_CONCATENATED_OPERATION: return "concatenated operation"
        case PJ_TYPE_OTHER_COORDINATE_OPERATION: return "coordinate operation"
        case PJ_TYPE_ELLIPSOID: return "ellipsoid"
        case PJ_TYPE_PRIME_MERIDIAN: return "prime meridian"
        case PJ_TYPE_GEODETIC_REFERENCE_FRAME, PJ_TYPE_DYNAMIC_GEODETIC_REFERENCE_FRAME,
             PJ_TYPE_VERTICAL_REFERENCE_FRAME, PJ_TYPE_DYNAMIC_VERTICAL_REFERENCE_FRAME,
             PJ_TYPE_DATUM_ENSEMBLE: return "datum"
        default: return "object"
        }
    }
}

/// Normalisation of user-supplied CRS strings before they reach PROJ.
enum CRSString {
    /// "4326" -> "EPSG:4326", "epsg:26916" -> "EPSG:26916", "+proj=utm ..." gains "+type=crs";
    /// anything else is trimmed and passed on.
    static func normalize(_ string: String) -> String {
        let trimmed = String(string.trimmingWhitespace())
        if !trimmed.isEmpty, trimmed.allSatisfy(\.isASCIIDigit) { return "EPSG:\(trimmed)" }
        // A bare "+proj=utm +zone=16 ..." is a CRS for the user (as in cs2cs), not an operation.
        if trimmed.hasPrefix("+proj="), !trimmed.contains("+type=crs"),
           !trimmed.contains("+proj=pipeline") {
            return trimmed + " +type=crs"
        }
        let parts = trimmed.split(separator: ":", omittingEmptySubsequences: false)
        if parts.count == 2, !parts[0].isEmpty, parts[0].allSatisfy(\.isLetter),
           !parts[1].isEmpty, parts[1].allSatisfy(\.isASCIIDigit) {
            return "\(parts[0].uppercased()):\(parts[1])"
        }
        return trimmed
    }

    /// Whether a normalised CRS string is a name ("WGS 84", "NAD83 / UTM zone 16N") rather than an
    /// authority code (EPSG:4326, IGNF:LAMB93), a URN or URL, a PROJ string, WKT or PROJJSON.
    static func isName(_ definition: String) -> Bool {
        let lower = definition.lowercased()
        if lower.hasPrefix("urn:") || lower.hasPrefix("http://") || lower.hasPrefix("https://") { return false }
        if definition.hasPrefix("+") || definition.hasPrefix("{") || lower.contains("proj=") || definition.contains("[") {
            return false
        }
        let parts = definition.split(separator: ":", omittingEmptySubsequences: false)
        let codeCharacters = { (c: Character) in c.isASCII && (c.isLetter || c.isNumber || c == "_" || c == "." || c == "-") }
        if parts.count == 2, !parts[0].isEmpty, parts[0].allSatisfy(codeCharacters),
           !parts[1].isEmpty, parts[1].allSatisfy(codeCharacters) {
            return false
        }
        return true
    }
}

extension Character {
    /// True for the ASCII digits 0-9 only (not other Unicode numerals).
    fileprivate var isASCIIDigit: Bool { isASCII && isWholeNumber }
}
