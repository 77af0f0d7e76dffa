#if canImport(Glibc)
import Glibc
#endif

/// Codes by name, the name given as bytes: the table a load's row builder asks eight to eleven
/// times a row for the code of an operator, a status, a field… (``CompactDetails``).
///
/// Not a `[ByteKey: Int64]`: a lookup would copy the name into the key's array (checking its
/// uniqueness and capacity), hash it with SipHash (`Hasher`: seed, bytes, finalize) and probe
/// `Dictionary`'s buckets, a large share of the builder thread, the thread that with SQLite's
/// bounds the load (`perf record`; Benchmarks/README.md's "The rows' text in one arena"). Here a
/// name is hashed where it lies, eight bytes a step, and compared with `memcmp`
/// against the one arena that holds the table's names; slots are probed linearly.
///
/// The hash is seeded from the system's random numbers per table, as `Hasher` is per process, so
/// that a file cannot be made to collide on purpose (every name of one column in one probe chain
/// would make a load quadratic).
// Not Sendable: each table belongs to the one builder thread of a load (``CompactDetails``).
final class ByteCodes {
    private struct Slot {
        /// The name's hash; 0 marks an empty slot (a hash of 0 is stored as 1).
        var hash: UInt64
        var start: Int
        var count: Int
        var code: Int64
    }

    private var slots: UnsafeMutablePointer<Slot>
    /// Slots, a power of two; the table grows at half full.
    private var capacity: Int
    private var arena: UnsafeMutablePointer<UInt8>
    private var arenaCapacity: Int
    private var arenaCount = 0
    private let seed = UInt64.random(in: .min ... .max)
    /// The names in the table.
    private(set) var count = 0

    init() {
        capacity = 16
        slots = .allocate(capacity: capacity)
        slots.initialize(repeating: Slot(hash: 0, start: 0, count: 0, code: 0), count: capacity)
        arenaCapacity = 256
        arena = .allocate(capacity: arenaCapacity)
    }

    deinit {
        slots.deallocate()
        arena.deallocate()
    }

    /// The code of `name`, if the table has it.
    @inline(__always)
    subscript(name: UnsafeBufferPointer<UInt8>) -> Int64? {
        let hash = hash(name)
        let slot = find(name, hash)
        return slots[slot].hash == 0 ? nil : slots[slot].code
    }

    /// Sets the code of `name`, adding the name if the table lacks it.
    func set(_ name: UnsafeBufferPointer<UInt8>, _ code: Int64) {
        let hash = hash(name)
        var slot = find(name, hash)
        if slots[slot].hash != 0 {
            slots[slot].code = code
            return
        }
        if (count + 1) * 2 > capacity {
            grow()
            slot = find(name, hash)
        }
        let start = store(name)
        slots[slot] = Slot(hash: hash, start: start, count: name.count, code: code)
        count += 1
    }

    /// The slot holding `name`, or the empty slot where it would go.
    @inline(__always)
    private func find(_ name: UnsafeBufferPointer<UInt8>, _ hash: UInt64) -> Int {
        let mask = capacity - 1
        var slot = Int(truncatingIfNeeded: hash) & mask
        while true {
            let candidate = slots[slot]
            if candidate.hash == 0 { return slot }
            if candidate.hash == hash, candidate.count == name.count,
               name.count == 0 || memcmp(arena + candidate.start, name.baseAddress!, name.count) == 0 {
                return slot
            }
            slot = (slot + 1) & mask
        }
    }

    /// Copies `name` into the arena; returns its offset.
    private func store(_ name: UnsafeBufferPointer<UInt8>) -> Int {
        if arenaCount + name.count > arenaCapacity {
            var newCapacity = arenaCapacity * 2
            while arenaCount + name.count > newCapacity { newCapacity *= 2 }
            let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
            grown.update(from: arena, count: arenaCount)
            arena.deallocate()
            arena = grown
            arenaCapacity = newCapacity
        }
        let start = arenaCount
        if let base = name.baseAddress { (arena + start).update(from: base, count: name.count) }
        arenaCount += name.count
        return start
    }

    private func grow() {
        let old = slots, oldCapacity = capacity
        capacity *= 2
        slots = .allocate(capacity: capacity)
        slots.initialize(repeating: Slot(hash: 0, start: 0, count: 0, code: 0), count: capacity)
        let mask = capacity - 1
        for k in 0..<oldCapacity where old[k].hash != 0 {
            var slot = Int(truncatingIfNeeded: old[k].hash) & mask
            while slots[slot].hash != 0 { slot = (slot + 1) & mask }
            slots[slot] = old[k]
        }
        old.deallocate()
    }

    /// A seeded hash of `name`, eight bytes a step, each step a full-width multiply of two words folded
    /// to 64 bits (the mixing of wyhash, public domain). Never 0, the empty slot's mark.
    @inline(__always)
    private func hash(_ name: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var h = seed ^ (UInt64(name.count) &* 0x9E37_79B9_7F4A_7C15)
        if let base = name.baseAddress {
            let raw = UnsafeRawPointer(base)
            var i = 0
            while i + 8 <= name.count {
                h = Self.mix(h ^ raw.loadUnaligned(fromByteOffset: i, as: UInt64.self))
                i += 8
            }
            if i < name.count {
                var tail: UInt64 = 0
                for j in i..<name.count { tail |= UInt64(base[j]) << UInt64((j - i) * 8) }
                h = Self.mix(h ^ tail)
            }
        }
        h = Self.mix(h ^ 0xE703_7ED1_A0B4_28DB)
        return h == 0 ? 1 : h
    }

    @inline(__always)
    private static func mix(_ x: UInt64) -> UInt64 {
        let product = x.multipliedFullWidth(by: 0xA076_1D64_78BD_642F)
        return product.high ^ product.low
    }
}
