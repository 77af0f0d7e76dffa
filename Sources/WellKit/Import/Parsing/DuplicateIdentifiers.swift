/// Finds the wells of one file that share an identifier, and settles them by the duplicate rule.
///
/// Sort-based rather than a `Dictionary<String, Int>`: the dictionary's string hashing and
/// probing were a large share of a `--dry-run`'s CPU, all of it on one thread between
/// the parse and the write. Here each identifier is hashed once with FNV-1a over its UTF-8,
/// the positions are sorted by their hashes' high halves (a radix sort, ``KeySort``), the few runs
/// that share one are grouped by the whole hash, and only positions of equal hashes are compared
/// as strings, so a hash collision never merges two different identifiers.
enum DuplicateIdentifiers {
    /// The positions to keep, in file order, and each rejected position with the position that won over it.
    ///
    /// - `.first` keeps the first of each identifier; every later one loses to it.
    /// - `.last` keeps the last, in the place of the first; each one loses to the next.
    static func resolve(_ identifiers: [String], rule: LoadOptions.DuplicateRule,
                        hash: (String) -> UInt64 = fnv1a) -> (kept: [Int], losers: [(loser: Int, winner: Int)]) {
        let (kept, losers) = resolve(count: identifiers.count, rule: rule, hash: { hash(identifiers[$0]) }, same: { identifiers[$0] == identifiers[$1] })
        return (kept ?? Array(identifiers.indices), losers)
    }

    /// The same, for `count` identifiers known by position: `hash(k)` is the k-th one's hash, and
    /// `same(j, k)` tells whether the j-th and k-th are equal (asked only when their hashes are).
    /// `kept` is nil when every position is kept (no list of every position for a load of millions).
    static func resolve(count: Int, rule: LoadOptions.DuplicateRule, hash: (Int) -> UInt64,
                        same: (Int, Int) -> Bool) -> (kept: [Int]?, losers: [(loser: Int, winner: Int)]) {
        // Each position under its hash's high half, sorted; a run of equal high halves grouped by the whole hash.
        var keyed = (0..<count).map { (hash($0) >> 32) << 32 | UInt64(truncatingIfNeeded: $0) }
        keyed.sortByHighHalves()
        var removed = [Bool](repeating: false, count: count)
        var replacement: [Int: Int] = [:]
        var losers: [(loser: Int, winner: Int)] = []
        /// Positions in file order that share a hash; split them by identifier, in case different ones share it.
        func settle(_ positions: [Int]) {
            // One pass per distinct identifier among them (almost always one): ten million copies of
            // one identifier are settled in linear time.
            var members = positions[...]
            while let first = members.first {
                var equal: [Int] = [], other: [Int] = []
                for position in members { if position == first || same(position, first) { equal.append(position) } else { other.append(position) } }
                members = other[...]
                guard equal.count > 1 else { continue }
                for position in equal.dropFirst() { removed[position] = true }
                switch rule {
                case .first:
                    losers += equal.dropFirst().map { ($0, first) }
                case .last:
                    replacement[first] = equal.last!
                    losers += zip(equal, equal.dropFirst()).map { ($0, $1) }
                }
            }
        }
        var start = 0
        while start < count {
            var end = start + 1
            while end < count && keyed[end] >> 32 == keyed[start] >> 32 { end += 1 }
            if end - start > 1 {
                // Grouping keeps each group's positions in file order; the groups' order does not matter.
                let positions = keyed[start..<end].map { Int(truncatingIfNeeded: $0 & 0xFFFF_FFFF) }
                for group in Dictionary(grouping: positions, by: hash).values where group.count > 1 { settle(group) }
            }
            start = end
        }
        guard !losers.isEmpty else { return (nil, []) }
        let kept = (0..<count).compactMap { replacement[$0] ?? (removed[$0] ? nil : $0) }
        return (kept, losers.sorted { $0.loser < $1.loser })
    }

    /// FNV-1a, 64 bits, over the UTF-8 of `text`.
    static func fnv1a(_ text: String) -> UInt64 {
        var text = text
        return text.withUTF8 { fnv1a($0) }
    }

    /// FNV-1a, 64 bits, over `bytes`.
    static func fnv1a(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
        }
        return hash
    }
}
