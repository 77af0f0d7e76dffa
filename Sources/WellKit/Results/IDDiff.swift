/// The difference between two ordered, duplicate-free id lists with sections, as offsets,
/// and its translation to a Core Data–style ``ResultsDiff``.
///
/// The id lists are compared after trimming their common prefix and suffix. A short middle
/// goes to Swift's `CollectionDifference` (Myers' algorithm, whose time is O((n + m)·d) and
/// whose memory is O(d²) for d changes) with `inferringMoves()`; a long one to a longest
/// increasing subsequence of the common ids' old offsets in new order, O(n log n): the rows on
/// it stay, the other common rows move. A row that stays in id order but whose section does
/// not map to its old section (a key change, or a deleted or inserted section) is a move too.
struct IDDiff {
    let old: ResultsSnapshot
    let new: ResultsSnapshot
    /// Old offsets of deleted ids, ascending.
    private(set) var deleted: [Int] = []
    /// New offsets of inserted ids, ascending.
    private(set) var inserted: [Int] = []
    /// Common ids out of order: old offset to new offset.
    private(set) var moved: [(old: Int, new: Int)] = []

    init(old: ResultsSnapshot, new: ResultsSnapshot, limit: Int) {
        self.old = old
        self.new = new
        let a = old.ids, b = new.ids
        var prefix = 0
        while prefix < a.count && prefix < b.count && a[prefix] == b[prefix] { prefix += 1 }
        var suffix = 0
        while suffix < a.count - prefix && suffix < b.count - prefix && a[a.count - 1 - suffix] == b[b.count - 1 - suffix] { suffix += 1 }
        let oldMiddle = a[prefix ..< a.count - suffix], newMiddle = b[prefix ..< b.count - suffix]
        if oldMiddle.count + newMiddle.count <= limit {
            for change in newMiddle.difference(from: oldMiddle).inferringMoves() {
                switch change {
                case .remove(let offset, _, let partner): if partner == nil { deleted.append(prefix + offset) }
                case .insert(let offset, _, let partner):
                    if let partner { moved.append((prefix + partner, prefix + offset)) } else { inserted.append(prefix + offset) }
                }
            }
        } else {
            var newOffset: [Int64: Int] = [:]
            newOffset.reserveCapacity(newMiddle.count)
            for (k, id) in zip(newMiddle.indices, newMiddle) { newOffset[id] = k }
            var common: [(old: Int, new: Int)] = []
            for (k, id) in zip(oldMiddle.indices, oldMiddle) {
                if let n = newOffset[id] { common.append((k, n)) } else { deleted.append(k) }
            }
            let oldIDs = Set(oldMiddle)
            for (k, id) in zip(newMiddle.indices, newMiddle) where !oldIDs.contains(id) { inserted.append(k) }
            common.sort { $0.new < $1.new }
            let staying = Self.longestIncreasing(common.map(\.old))
            for (k, pair) in common.enumerated() where !staying.contains(k) { moved.append(pair) }
        }
        deleted.sort()
        inserted.sort()
    }

    /// The positions in `values` of one longest strictly increasing subsequence.
    static func longestIncreasing(_ values: [Int]) -> Set<Int> {
        var tails: [Int] = []             // positions: tails[l] ends the best subsequence of length l + 1
        var previous = [Int](repeating: -1, count: values.count)
        for (k, value) in values.enumerated() {
            var low = 0, high = tails.count
            while low < high {
                let middle = (low + high) / 2
                if values[tails[middle]] < value { low = middle + 1 } else { high = middle }
            }
            if low > 0 { previous[k] = tails[low - 1] }
            if low == tails.count { tails.append(k) } else { tails[low] = k }
        }
        var result = Set<Int>()
        var k = tails.last ?? -1
        while k >= 0 { result.insert(k); k = previous[k] }
        return result
    }

    /// The sections of the two snapshots: deleted old indices, inserted new indices, and the
    /// new index of each kept old section (nil when deleted), matched by name in order.
    private func sectionMapping() -> (deleted: [Int], inserted: [Int], map: [Int?]) {
        let changes = new.sections.map(\.name).difference(from: old.sections.map(\.name))
        let deleted = changes.removals.map(Self.offset).sorted(), inserted = changes.insertions.map(Self.offset).sorted()
        var map = [Int?](repeating: nil, count: old.sections.count)
        let deletedSet = Set(deleted), insertedSet = Set(inserted)
        var n = 0
        for o in old.sections.indices where !deletedSet.contains(o) {
            while insertedSet.contains(n) { n += 1 }
            map[o] = n
            n += 1
        }
        return (deleted, inserted, map)
    }

    private static func offset<T>(_ change: CollectionDifference<T>.Change) -> Int {
        switch change {
        case .remove(let offset, _, _), .insert(let offset, _, _): offset
        }
    }

    /// The Core Data–style diff; `updated` holds ids whose loaded values changed.
    func resultsDiff(updated: Set<Int64>) -> ResultsDiff {
        let sections = sectionMapping()
        var moves = moved
        var updates: [ResultsDiff.RowChange] = []
        // Walk the rows that kept their id order: the old rows not deleted or moved, against the
        // new rows not inserted or moved. They pair up one to one, in order.
        let removed = (deleted + moved.map(\.old)).sorted(), added = (inserted + moved.map(\.new)).sorted()
        var r = 0, a = 0, o = 0, n = 0, oldSection = 0, newSection = 0
        while true {
            while r < removed.count && removed[r] == o { r += 1; o += 1 }
            while a < added.count && added[a] == n { a += 1; n += 1 }
            guard o < old.ids.count && n < new.ids.count else { break }
            while o >= old.sections[oldSection].offset + old.sections[oldSection].count { oldSection += 1 }
            while n >= new.sections[newSection].offset + new.sections[newSection].count { newSection += 1 }
            if sections.map[oldSection] != newSection {
                moves.append((o, n))
            } else if updated.contains(old.ids[o]) {
                updates.append(.init(type: .update, id: old.ids[o], indexPath: old.indexPath(ofOffset: o), newIndexPath: new.indexPath(ofOffset: n)))
            }
            o += 1
            n += 1
        }
        var rows: [ResultsDiff.RowChange] = deleted.reversed().map {
            .init(type: .delete, id: old.ids[$0], indexPath: old.indexPath(ofOffset: $0), newIndexPath: nil)
        }
        rows += inserted.map { .init(type: .insert, id: new.ids[$0], indexPath: nil, newIndexPath: new.indexPath(ofOffset: $0)) }
        rows += moves.sorted { $0.new < $1.new }.map {
            .init(type: .move, id: old.ids[$0.old], indexPath: old.indexPath(ofOffset: $0.old), newIndexPath: new.indexPath(ofOffset: $0.new))
        }
        rows += updates
        let sectionChanges = sections.deleted.reversed().map { ResultsDiff.SectionChange(type: .delete, index: $0, section: old.sections[$0]) }
            + sections.inserted.map { ResultsDiff.SectionChange(type: .insert, index: $0, section: new.sections[$0]) }
        return ResultsDiff(old: old, new: new, sectionChanges: sectionChanges, rowChanges: rows)
    }
}
