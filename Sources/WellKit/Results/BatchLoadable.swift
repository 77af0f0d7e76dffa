/// A typed projection that ``BatchedResults`` can load a batch at a time: the fields it reads
/// and how to decode one row.
///
/// For example, a projection of four fields:
///
/// ```swift
/// struct Licence: BatchLoadable {
///     static let batchFields: [WellField] = [.id, .identifier, .licence, .operator]
///     var id: Int64, uwi: String, licence: String?, licensee: String?
///     init(row: WellRow) { id = row[0]; uwi = row[1]; licence = row[2]; licensee = row[3] }
/// }
/// let results = try BatchedResults<Licence>(store: store, request: request)
/// ```
///
/// A row holds the fields' values in the order of ``batchFields``, so `init(row:)` decodes by
/// position from 0. The load joins `details` when a field lives there (``WellField/table``).
/// Elements are `Equatable` so that a refresh can tell which loaded rows changed.
public protocol BatchLoadable: Sendable, Equatable {
    /// The fields to load, in row order.
    static var batchFields: [WellField] { get }
    /// Decodes one row, its values in the order of ``batchFields``.
    init(row: WellRow) throws
}

/// A projection with a selection of its own: ``Well``'s rows hold more than its fields (source
/// coordinates, extra columns), and ``WellPin``'s keep the pin fetch's exact SQL.
package protocol FixedSelection {
    static var querySelection: QueryCompiler.Selection { get }
}

extension WellPin: BatchLoadable, FixedSelection {
    package static var querySelection: QueryCompiler.Selection { .pins }
    public static var batchFields: [WellField] { [.id, .name, .latitude, .longitude] }

    /// Decodes by position, in the order of ``batchFields``.
    public init(row: WellRow) {
        switch row.storage {
        case .sqlite(let row, _): self.init(row)
        case .values: self.init(id: row[0], name: row[1], latitude: row[2], longitude: row[3])
        }
    }
}

extension Well: BatchLoadable, FixedSelection {
    package static var querySelection: QueryCompiler.Selection { .wells }
    /// Every field; a row also holds the detail's source coordinates, CRS, extra columns and load.
    public static var batchFields: [WellField] { WellPin.batchFields + WellField.detailFields }

    public init(row: WellRow) {
        switch row.storage {
        case .sqlite(let row, _): self.init(row)
        case .values: self.init(pin: WellPin(row: row), detail: WellDetail(row: row, from: WellPin.selection.count))
        }
    }
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

    public static let batchFields: [WellField] = [.id, .identifier, .name, .status, .spudDate]

    /// Decodes by position, in the order of ``batchFields``.
    public init(row: WellRow) {
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
