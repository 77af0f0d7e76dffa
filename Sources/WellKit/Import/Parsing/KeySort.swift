/// A radix sort for the load's keys: 64-bit numbers whose low 32 bits are a record's position, in
/// ascending order as they are made, under a 32-bit key (a Hilbert key, a hash's high half).
///
/// Two stable passes over the high halves, 16 bits each, sort such an array as `sort()` does
/// (`KeySortTests`), several times faster (Benchmarks/README.md's "Loading"). A load sorts twice
/// (the identifiers' hashes to find duplicates, the Hilbert keys for the write order), between
/// the parse and the write, on one thread while the other core waits, so the sort's time is the
/// whole load's.
extension Array where Element == UInt64 {
    /// Sorts the array by the elements' high 32 bits, keeping the order of those with equal high
    /// halves: in ascending order, the result of `sort()`, when the low halves ascended along it.
    package mutating func sortByHighHalves() {
        guard count > 1 else { return }
        var other = [UInt64](repeating: 0, count: count)
        var counts = [Int](repeating: 0, count: 1 << 16)
        for shift: UInt64 in [32, 48] {
            withUnsafeBufferPointer { source in
                other.withUnsafeMutableBufferPointer { target in
                    counts.withUnsafeMutableBufferPointer { counts in
                        for k in counts.indices { counts[k] = 0 }
                        for key in source { counts[Int(truncatingIfNeeded: key >> shift) & 0xFFFF] += 1 }
                        var total = 0
                        for k in counts.indices { (counts[k], total) = (total, total + counts[k]) }
                        for key in source {
                            let digit = Int(truncatingIfNeeded: key >> shift) & 0xFFFF
                            target[counts[digit]] = key
                            counts[digit] += 1
                        }
                    }
                }
            }
            swap(&self, &other)
        }
    }
}
