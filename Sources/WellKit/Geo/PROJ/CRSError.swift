import Foundation

/// An error from the coordinate reference system (PROJ) layer.
///
/// Every failure reported by PROJ is turned into a `CRSError` that carries
/// the PROJ error text, the PROJ error number and the CRS strings involved.
///
/// For example:
///
/// ```swift
/// do {
///     _ = try CoordinateTransformer(from: "EPSG:999999", to: "EPSG:4326")
/// } catch let error as CRSError where error.code == .unknownCRS {
///     print(error)   // unknown CRS "EPSG:999999": crs not found ...
/// }
/// ```
public struct CRSError: Error, CustomStringConvertible, Sendable, Equatable {
    /// What went wrong, in broad categories.
    public enum Code: String, Sendable, Equatable {
        /// The string does not name or define a CRS PROJ knows.
        case unknownCRS
        /// The string is a name that is not exactly the name of a CRS, though PROJ found a resembling one.
        case inexactName
        /// The string is a valid PROJ object but not a CRS (e.g. an operation).
        case notACRS
        /// PROJ found no coordinate operation between the two CRSs.
        case noOperation
        /// A coordinate could not be transformed (outside the domain, missing grid, ...).
        case transformFailed
        /// A PROJ context or object could not be created or queried.
        case projFailure
    }

    /// The broad category of the error.
    public let code: Code
    /// A human-readable explanation, including PROJ's own error text.
    public let message: String
    /// The CRS strings involved, as given by the caller (source first).
    public let crs: [String]
    /// The PROJ error number (`proj_context_errno`), 0 when PROJ set none.
    public let projErrno: Int32

    /// Creates an error; prefer the factory helpers for the common cases.
    public init(_ code: Code, _ message: String, crs: [String] = [], projErrno: Int32 = 0) {
        self.code = code
        self.message = message
        self.crs = crs
        self.projErrno = projErrno
    }

    public var description: String { message }

    /// The hint appended to every unknown-CRS message.
    static let codeHint =
        "use an authority code such as EPSG:26916 or EPSG:4267 "
        + "(see `projinfo EPSG:26916` or `projinfo -s EPSG:4267 -t EPSG:4326`)"

    /// An unknown or unparsable CRS string.
    static func unknownCRS(_ crs: String, projText: String, errno: Int32 = 0) -> CRSError {
        let detail = projText.isEmpty ? "PROJ does not know it" : projText
        return CRSError(.unknownCRS,
                        "unknown CRS \"\(crs)\": \(detail); \(codeHint)",
                        crs: [crs], projErrno: errno)
    }

    /// A name that only resembles CRS names: PROJ would pick one of them, so it is refused.
    ///
    /// For example, `"foo"` gives: `"foo" is not the name of a CRS; PROJ would take it for EPSG:4289 Amersfoort. …`
    static func inexactName(_ crs: String, closeMatches: [String]) -> CRSError {
        let shown = crs.count > 80 ? String(crs.prefix(80)) + "…" : crs
        let matches = closeMatches.isEmpty ? "" : "; names like it: " + closeMatches.joined(separator: ", ")
        return CRSError(.inexactName,
                        "\"\(shown)\" is not the name of a CRS\(matches); give an authority code such as EPSG:26916, or a CRS's exact name",
                        crs: [crs])
    }

    /// No coordinate operation between two CRSs.
    static func noOperation(_ source: String, _ target: String, projText: String,
                            errno: Int32 = 0) -> CRSError {
        let detail = projText.isEmpty ? "" : ": \(projText)"
        return CRSError(.noOperation,
                        "no coordinate operation from \"\(source)\" to \"\(target)\"\(detail)",
                        crs: [source, target], projErrno: errno)
    }
}

/// `localizedDescription` says what ``CRSError/description`` says (never `(WellKit.CRSError error 1.)`).
extension CRSError: LocalizedError {
    public var errorDescription: String? { description }
}
