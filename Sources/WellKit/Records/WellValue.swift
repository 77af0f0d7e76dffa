import Foundation

/// One stored value: null, an integer, a real, text or bytes.
///
/// For example:
///
/// ```swift
/// let rows = try store.fetchDictionaries(request, properties: [.identifier, .totalDepth])
/// if case .real(let depth) = rows[0]["total_depth"] { print(depth) }
/// ```
///
/// WellKit's own type, so that the storage engine (today GRDB over SQLite) is not part of the API.
public enum WellValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)

    public var isNull: Bool { if case .null = self { true } else { false } }

    /// The value as a number: an integer or a real, else nil.
    public var double: Double? {
        switch self {
        case .integer(let n): Double(n)
        case .real(let d): d
        default: nil
        }
    }

    /// The value as an integer: an integer, or a real with no fraction, else nil.
    public var int64: Int64? {
        switch self {
        case .integer(let n): n
        case .real(let d): Int64(exactly: d)
        default: nil
        }
    }

    /// The text, or nil for any other kind.
    public var string: String? { if case .text(let s) = self { s } else { nil } }

    /// The value as plain text: numbers in their shortest form, null as nil.
    ///
    /// For example, `WellValue.real(1500)` is `"1500.0"`, as `String(Double)` writes it.
    public var description: String? {
        switch self {
        case .null: nil
        case .integer(let n): String(n)
        case .real(let d): String(d)
        case .text(let s): s
        case .blob(let data): data.base64EncodedString()
        }
    }
}

extension WellValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral, ExpressibleByNilLiteral {
    public init(stringLiteral value: String) { self = .text(value) }
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(floatLiteral value: Double) { self = .real(value) }
    public init(nilLiteral: ()) { self = .null }
}

extension WellValue {
    /// An integer.
    package init(_ value: Int64) { self = .integer(value) }
    /// A real, or null.
    package init(_ value: Double?) { self = value.map(WellValue.real) ?? .null }
    /// Text, or null.
    package init(_ value: String?) { self = value.map(WellValue.text) ?? .null }
}
