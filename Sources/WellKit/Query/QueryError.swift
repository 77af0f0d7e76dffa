import Foundation

/// An error in an argument that involves no store: a predicate, a sort descriptor, a field name,
/// a box, a point, a distance, a limit or an offset.
///
/// It carries what was parsed (``subject``), the input (``text``), the offending ``token`` and its
/// 1-based character ``offset`` in the input, and the ``field`` it concerns, where they apply.
///
/// For example:
///
/// ```swift
/// do { _ = try WellPredicate(parsing: "depth > 10") }
/// catch let error as QueryError where error.code == .unknownField {
///     print(error.token ?? "", error.offset ?? 0)   // depth 1
/// }
/// ```
public struct QueryError: Error, CustomStringConvertible, Sendable, Equatable {
    /// What went wrong, in a form that `switch` and `catch` can match.
    public enum Code: String, Sendable {
        /// The text does not follow the grammar: an unclosed quote, a missing operator or value.
        case syntax
        /// A name that is not a ``WellField``.
        case unknownField
        /// A detail field written as a pin field (`pin.spud_date`).
        case detailField
        /// A value that cannot match its field, or text that is not a box, point or distance.
        case invalidValue
        /// A sort direction other than asc or desc.
        case invalidDirection
        /// A number outside its range: a coordinate, a negative limit, offset, radius or size.
        case outOfRange
        /// A predicate deeper or longer than ``WellPredicate/maximumDepth`` or ``WellPredicate/maximumTerms``.
        case tooComplex
        /// A box that crosses the antimeridian, with ``BoundingBox/AntimeridianRule/reject``.
        case crossesAntimeridian
        /// A ``BatchedResults`` over a request without sort descriptors.
        case unsortedRequest
        /// A ``BatchedResults`` read before `performFetch()`.
        case notFetched
        /// An index path outside the sections.
        case indexPathOutOfRange
    }

    /// What was being parsed or checked.
    public enum Subject: String, Sendable {
        case predicate, sortDescriptor, fieldName, boundingBox, point, distance, radius, limit, offset
        case batchSize, cacheSize, indexPath, tile, area
    }

    /// How to fix the error, as data; ``description`` says it in the API's words.
    public enum Remedy: Sendable, Equatable {
        /// Query with ``BoundingBox/AntimeridianRule/split`` to query both sides of ±180°.
        case splitAtAntimeridian
        /// Give the request a sort descriptor, such as one on this field.
        case addSortDescriptor(WellField)
    }

    public let code: Code
    /// What was being parsed or checked, when known.
    public var subject: Subject?
    /// What was wrong, without the input it was found in.
    public let reason: String
    /// The whole input, such as the predicate's text.
    public var text: String?
    /// The offending token, as written.
    public var token: String?
    /// The 1-based character offset of ``token`` in ``text``.
    public var offset: Int?
    /// The field the error concerns.
    public var field: WellField?
    public var remedy: Remedy?

    public init(_ code: Code, _ reason: String, subject: Subject? = nil, text: String? = nil, token: String? = nil,
                offset: Int? = nil, field: WellField? = nil, remedy: Remedy? = nil) {
        self.code = code
        self.reason = reason
        self.subject = subject
        self.text = text
        self.token = token
        self.offset = offset
        self.field = field
        self.remedy = remedy
    }

    /// The reason and, when there is one, the remedy in the API's words.
    public var message: String {
        switch remedy {
        case nil: reason
        case .splitAtAntimeridian: reason + "; query with AntimeridianRule.split to query both sides"
        case .addSortDescriptor(let field): reason + "; add a sort descriptor, such as request.sortDescriptors = [WellSortDescriptor(.\(field))]"
        }
    }

    public var description: String {
        if subject == .predicate, let text { return "predicate \"\(Self.shortened(text))\": \(message)" }
        return message
    }

    /// The text for a message: whole up to 80 characters, else its start and end.
    package static func shortened(_ text: String) -> String {
        text.count <= 80 ? text : "\(text.prefix(60))…\(text.suffix(15))"
    }
}

extension QueryError.Code {
    /// Lets `catch QueryError.Code.unknownField` match a thrown ``QueryError``.
    public static func ~= (code: Self, error: any Error) -> Bool {
        (error as? QueryError)?.code == code
    }
}

/// `localizedDescription` says what ``QueryError/description`` says (never `(WellKit.QueryError error 1.)`).
extension QueryError: LocalizedError {
    public var errorDescription: String? { description }
}
