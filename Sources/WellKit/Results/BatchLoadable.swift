import GRDB

/// A typed projection that ``BatchedResults`` can load a batch at a time: its SQL selection,
/// whether it needs the `details` join, and how to decode one row.
///
/// For example, a projection of four detail fields:
///
/// ```swift
/// struct Licence: BatchLoadable {
///     static let batchSelection = columns(.id, .identifier, .licence, .operator)
///     var id: Int64, uwi: String, licence: String?, licensee: String?
///     init(row: Row) { id = row[0]; uwi = row[1]; licence = row[2]; licensee = row[3] }
/// }
/// let results = try BatchedResults<Licence>(store: store, request: request)
/// ```
///
/// The selection is made of qualified SQL expressions over `p` (pins) and `d` (details);
/// ``BatchedResults`` appends `p.id` after them, so `init(row:)` decodes by position from 0.
/// Elements are `Equatable` so that a refresh can tell which loaded rows changed.
public protocol BatchLoadable: Sendable, Equatable {
    /// The qualified SQL expressions to select, such as `["p.id", "d.\"uwi\""]`.
    static var batchSelection: [String] { get }
    /// Whether the selection reads `d.` columns, so the load joins `details`.
    static var batchJoinsDetails: Bool { get }
    /// Decodes one row, its columns in the order of ``batchSelection``.
    init(row: Row) throws
}

extension BatchLoadable {
    /// True when any selected expression reads the `details` alias `d.`.
    public static var batchJoinsDetails: Bool { batchSelection.contains { $0.hasPrefix("d.") } }

    /// The qualified columns of `fields`, in order: `columns(.id, .status)` is `["p.\"id\"", "d.\"status\""]`.
    public static func columns(_ fields: WellField...) -> [String] { fields.map(\.qualifiedColumn) }
}

extension WellPin: BatchLoadable {
    public static var batchSelection: [String] { selection }
    public static var batchJoinsDetails: Bool { false }
}

extension Well: BatchLoadable {
    public static var batchSelection: [String] { selection }
    public static var batchJoinsDetails: Bool { true }
}

/// A list row: id, identifier, name, status and spud date, from one pins–details join.
///
/// For example:
///
/// ```swift
/// let results = try BatchedResults<WellSummary>(store: store, request: request, sectionKey: .status)
/// try results.performFetch()
/// print(try results.object(at: ResultsIndexPath(section: 0, item: 0)).spudDate ?? "no spud date")
/// ```
///
/// It shows that any typed projection works with ``BatchedResults``, not only pins and wells.
public struct WellSummary: BatchLoadable, Hashable, Identifiable, Codable {
    public var id: Int64
    public var identifier: String
    public var name: String?
    public var status: String?
    /// The spud date as stored: ISO 8601 text, `YYYY-MM-DD`.
    public var spudDate: String?

    public init(id: Int64, identifier: String, name: String?, status: String?, spudDate: String?) {
        self.id = id
        self.identifier = identifier
        self.name = name
        self.status = status
        self.spudDate = spudDate
    }

    public static let batchSelection = columns(.id, .identifier, .name, .status, .spudDate)

    /// Decodes by position, in the order of ``batchSelection``.
    public init(row: Row) {
        id = row[0]
        identifier = row[1]
        name = row[2]
        status = row[3]
        spudDate = row[4]
    }
}

/// A position in sectioned results: a section and an item within it, both from 0.
///
/// WellKit's own type, so that Linux needs no UIKit, and named so that it does not clash with
/// Foundation's `IndexPath` in a file that imports both.
///
/// For example:
///
/// ```swift
/// let first = try results.object(at: ResultsIndexPath(section: 0, item: 0))
/// ```
public struct ResultsIndexPath: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    public var section: Int
    public var item: Int

    public init(section: Int, item: Int) {
        self.section = section
        self.item = item
    }

    /// Orders by section, then item.
    public static func < (lhs: ResultsIndexPath, rhs: ResultsIndexPath) -> Bool {
        (lhs.section, lhs.item) < (rhs.section, rhs.item)
    }

    /// `section:item`, such as `2:14`.
    public var description: String { "\(section):\(item)" }
}
