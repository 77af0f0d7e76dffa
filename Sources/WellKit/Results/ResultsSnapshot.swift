/// One section of fetched results: the section key's value and where its rows lie.
public struct ResultsSection: Sendable, Hashable {
    /// The section key's value as text; nil when the key is NULL, and for the one section of unsectioned results.
    public var name: String?
    /// The offset of the section's first row in ``ResultsSnapshot/ids``.
    public var offset: Int
    /// The number of rows in the section.
    public var count: Int

    public init(name: String?, offset: Int, count: Int) {
        self.name = name
        self.offset = offset
        self.count = count
    }

    /// The title for a section index: the name's first character, upper-cased, or `#` when it has none.
    public var indexTitle: String {
        guard let first = name?.first else { return "#" }
        return String(first).uppercased()
    }
}

/// The ordered ids of fetched results and their section boundaries: all a fetch keeps.
///
/// For example:
///
/// ```swift
/// try results.performFetch()
/// let snapshot = results.snapshot!
/// for section in snapshot.sections { print(section.name ?? "—", snapshot.ids(in: section).count) }
/// ```
///
/// Sections tile ``ids`` in order, so a snapshot costs one `Int64` per well plus one
/// ``ResultsSection`` per section.
public struct ResultsSnapshot: Sendable, Equatable {
    /// Every fetched id, in sort order.
    public var ids: [Int64]
    /// The sections, in sort order; unsectioned results have exactly one, even when empty.
    public var sections: [ResultsSection]

    public init(ids: [Int64], sections: [ResultsSection]) {
        self.ids = ids
        self.sections = sections
    }

    /// The snapshot of an id query read in order: `starts` holds each section's name and first
    /// offset, and each count runs to the next start (or to the end); nil for unsectioned results,
    /// which get one section of every id.
    package init(ids: [Int64], sectionStarts starts: [ResultsSection]?) {
        guard var sections = starts else {
            self.init(ids: ids, sections: [ResultsSection(name: nil, offset: 0, count: ids.count)])
            return
        }
        for k in sections.indices {
            sections[k].count = (k + 1 < sections.count ? sections[k + 1].offset : ids.count) - sections[k].offset
        }
        self.init(ids: ids, sections: sections)
    }

    /// The ids of one section.
    public func ids(in section: ResultsSection) -> ArraySlice<Int64> {
        ids[section.offset ..< section.offset + section.count]
    }

    /// The sections as name and ids, for tests and printing.
    public var nested: [(name: String?, ids: [Int64])] {
        sections.map { ($0.name, Array(ids(in: $0))) }
    }

    /// The section holding the row at `offset` in ``ids``, by binary search.
    public func sectionIndex(ofOffset offset: Int) -> Int {
        var low = 0, high = sections.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if sections[middle].offset <= offset { low = middle } else { high = middle - 1 }
        }
        return low
    }

    /// The index path of the row at `offset` in ``ids``: pages of a flat list map to index paths this way.
    public func indexPath(ofOffset offset: Int) -> ResultsIndexPath {
        let section = sectionIndex(ofOffset: offset)
        return ResultsIndexPath(section: section, item: offset - sections[section].offset)
    }
}

/// What happened to a row or a section between two fetches.
public enum ChangeType: String, Sendable, Hashable {
    case insert, delete, move, update
}

/// The changes between two snapshots of fetched results, in Core Data's order.
///
/// For example:
///
/// ```swift
/// if let diff = try results.checkForChanges() {
///     for change in diff.rowChanges { print(change.type, change.id, change.indexPath ?? change.newIndexPath!) }
/// }
/// ```
///
/// ``sectionChanges`` holds section deletes (old indices, descending), then section inserts
/// (new indices, ascending). ``rowChanges`` holds row deletes (old index paths, descending),
/// then inserts (new index paths, ascending), then moves (old to new), then updates. A row
/// in a deleted section is reported deleted or moved too. Applied in that order to
/// ``old``, the changes give ``new``: see ``BatchedResults`` for the rules.
public struct ResultsDiff: Sendable, Equatable {
    /// A change to one row.
    public struct RowChange: Sendable, Hashable {
        public var type: ChangeType
        /// The well's id.
        public var id: Int64
        /// The old index path; nil for an insert.
        public var indexPath: ResultsIndexPath?
        /// The new index path; nil for a delete.
        public var newIndexPath: ResultsIndexPath?

        public init(type: ChangeType, id: Int64, indexPath: ResultsIndexPath?, newIndexPath: ResultsIndexPath?) {
            self.type = type
            self.id = id
            self.indexPath = indexPath
            self.newIndexPath = newIndexPath
        }
    }

    /// A section inserted or deleted.
    public struct SectionChange: Sendable, Hashable {
        public var type: ChangeType
        /// The old index of a deleted section, the new index of an inserted one.
        public var index: Int
        public var section: ResultsSection
    }

    public var old: ResultsSnapshot
    public var new: ResultsSnapshot
    public var sectionChanges: [SectionChange]
    public var rowChanges: [RowChange]

    /// True when neither sections nor rows changed.
    public var isEmpty: Bool { sectionChanges.isEmpty && rowChanges.isEmpty }

    /// The row changes of one type, in reporting order.
    public func rows(_ type: ChangeType) -> [RowChange] { rowChanges.filter { $0.type == type } }
}
