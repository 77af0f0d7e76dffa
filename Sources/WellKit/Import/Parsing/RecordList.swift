#if canImport(Glibc)
import Glibc
#endif

/// The located records of a load, in order: what a load holds per well until it commits.
///
/// A list of ``ScannedRecord`` values, stored packed and in fixed segments, because a national
/// file holds millions of them:
/// - **Packed records** (``Packed``), two thirds of a ``ScannedRecord``: the coordinates as the
///   file gave them (set only when a load converts from another CRS) are kept apart, in
///   ``sources``, and the identifier's place in its record takes 16-bit numbers (an identifier
///   that starts or ends beyond their reach into its record, which only a pathological file has,
///   is kept in ``farIdentifiers``).
/// - **Fixed segments** of ``segmentSize`` records: the list grows a segment at a time, where an
///   array doubles and copies (holding the old and the new buffer at once), and joining the
///   parse's two halves gives back each segment of the second as it is copied. A segment is
///   bigger than glibc's largest threshold for mapping an allocation of its own, so a freed one
///   goes back to the system at once, where the second half's records, made on another thread,
///   would otherwise stay in that thread's malloc arena after the join. Pages of a segment not yet
///   filled are not resident.
///
/// So a national load holds two thirds of what an array of ``ScannedRecord`` held, without the
/// peaks of its growth and of the join (`wells-bench scale`, Benchmarks/README.md's "Scaling").
package struct RecordList: RandomAccessCollection, Sendable {
    /// A record as stored.
    struct Packed {
        var lat: Double
        var lon: Double
        var hash: UInt64
        /// The record's first byte in the file (the low 48 bits) and ``ScannedRecord``'s flags (the top 8).
        var startAndFlags: UInt64
        var length: UInt32
        var line: UInt32
        /// The identifier's bytes relative to the record's start, when both fit in 16 bits.
        var identifierStart: UInt16
        var identifierLength: UInt16
        /// An index into ``sources``, or `UInt32.max` when the coordinates were not converted.
        var source: UInt32
    }

    private static let shift = 20, segmentSize = 1 << shift, mask = segmentSize - 1
    private static let noSource = UInt32.max
    /// The flags in ``Packed/startAndFlags``: the record has an identifier, it needs unescaping,
    /// and its span is in ``Storage/farIdentifiers``.
    private static let hasIdentifier: UInt8 = 1, identifierEscaped: UInt8 = 2, farIdentifier: UInt8 = 4

    /// The segments, allocated by hand: reading a record is two loads, with no reference counting
    /// (an array of arrays retained the inner array on every read, and a load reads each record
    /// several times). Shared between copies of a list until one of them changes (copy on write).
    // @unchecked Sendable: changed only through a list that holds the one reference (``makeUnique()``).
    private final class Storage: @unchecked Sendable {
        /// Room for 4,096 segments: 2³² records, as many as lines a ``ScannedRecord`` can number.
        static let maximumSegments = 1 << 12
        let segments = UnsafeMutablePointer<UnsafeMutablePointer<Packed>?>.allocate(capacity: maximumSegments)
        var segmentCount = 0
        /// The coordinates as the file gave them, for records converted to EPSG:4326.
        var sources: [ScannedRecord.Source] = []
        /// Identifier spans that do not fit ``Packed``, by their record's first byte.
        var farIdentifiers: [Int: FieldSpan] = [:]

        init() { segments.initialize(repeating: nil, count: Self.maximumSegments) }

        /// A new segment, which the kernel may back with huge pages (`MADV_HUGEPAGE`, where
        /// transparent huge pages are enabled for asking): the row builder reads the records in
        /// spatial order, at random places of the list, and with the usual small pages nearly every
        /// read missed the TLB as well as the cache (Benchmarks/README.md's "The rows' text in one arena").
        static func allocateSegment() -> UnsafeMutablePointer<Packed> {
            let segment = UnsafeMutablePointer<Packed>.allocate(capacity: segmentSize)
            let huge: UInt = 1 << 21
            let start = (UInt(bitPattern: segment) + huge - 1) & ~(huge - 1), end = UInt(bitPattern: segment + segmentSize) & ~(huge - 1)
            if end > start { _ = madvise(UnsafeMutableRawPointer(bitPattern: start), Int(end - start), MADV_HUGEPAGE) }
            return segment
        }

        deinit {
            for k in 0..<segmentCount { segments[k]?.deallocate() }
            segments.deallocate()
        }

        /// A copy of the first `count` records.
        func copy(count: Int) -> Storage {
            let copy = Storage()
            for k in 0..<segmentCount {
                guard let segment = segments[k] else { continue }
                let new = Self.allocateSegment()
                new.initialize(from: segment, count: Swift.min(segmentSize, count - k * segmentSize))
                copy.segments[k] = new
            }
            copy.segmentCount = segmentCount
            copy.sources = sources
            copy.farIdentifiers = farIdentifiers
            return copy
        }

        @inline(__always) subscript(position: Int) -> Packed {
            segments[position >> shift].unsafelyUnwrapped[position & mask]
        }
    }

    private var storage = Storage()
    /// In the list rather than in ``Storage``: a class's stored `var` is checked for exclusive
    /// access on every read, which the count is on every access of a load.
    package private(set) var count = 0

    package init() {}

    package var startIndex: Int { 0 }
    package var endIndex: Int { count }

    /// The packed record at `position`, bounds checked.
    @inline(__always) private func packed(_ position: Int) -> Packed {
        precondition(position >= 0 && position < count, "a record list's index out of range")
        return storage[position]
    }

    package subscript(position: Int) -> ScannedRecord {
        let packed = packed(position)
        let start = Int(packed.startAndFlags & 0xFFFF_FFFF_FFFF), flags = UInt8(packed.startAndFlags >> 56)
        var identifier: FieldSpan?
        if flags & Self.hasIdentifier != 0 {
            if flags & Self.farIdentifier != 0 {
                identifier = storage.farIdentifiers[start]
            } else {
                let from = start + Int(packed.identifierStart)
                identifier = FieldSpan(start: from, end: from + Int(packed.identifierLength), escaped: flags & Self.identifierEscaped != 0)
            }
        }
        return ScannedRecord(range: start..<(start + Int(packed.length)), line: Int(packed.line), lat: packed.lat, lon: packed.lon,
                             identifier: identifier, hash: packed.hash,
                             source: packed.source == Self.noSource ? nil : storage.sources[Int(packed.source)])
    }

    /// The coordinates of the record at `position`, without making the whole record.
    @inline(__always) package func coordinates(_ position: Int) -> (lat: Double, lon: Double) {
        let packed = packed(position)
        return (packed.lat, packed.lon)
    }

    /// Moves the record at `position`: a longitude that ``CoordinateOptions/impliedWest`` read west and
    /// its row's place holds east (``ScannedFile/keepEastWhereRowsSay(_:regions:regionOf:places:options:)``).
    package mutating func setCoordinates(_ position: Int, lat: Double, lon: Double) {
        precondition(position >= 0 && position < count, "a record list's index out of range")
        makeUnique()
        storage.segments[position >> Self.shift].unsafelyUnwrapped[position & Self.mask].lat = lat
        storage.segments[position >> Self.shift].unsafelyUnwrapped[position & Self.mask].lon = lon
    }

    /// The CRS the record's coordinates were converted from (an index into ``RecordValidator/crsNames``);
    /// nil when they were read in EPSG:4326.
    @inline(__always) package func sourceCRS(_ position: Int) -> Int? {
        let packed = packed(position)
        return packed.source == Self.noSource ? nil : storage.sources[Int(packed.source)].crs
    }

    /// The hash of the identifier of the record at `position` (``ScannedRecord/hash``).
    @inline(__always) package func hash(_ position: Int) -> UInt64 { packed(position).hash }

    private mutating func makeUnique() {
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy(count: count) }
    }

    /// Appends `record`.
    package mutating func append(_ record: ScannedRecord) {
        makeUnique()
        var flags: UInt8 = 0
        var identifierStart: UInt16 = 0, identifierLength: UInt16 = 0
        let start = record.range.lowerBound
        if let span = record.identifier {
            flags |= Self.hasIdentifier | (span.escaped ? Self.identifierEscaped : 0)
            if span.start - start <= Int(UInt16.max) && span.end - span.start <= Int(UInt16.max) {
                identifierStart = UInt16(span.start - start)
                identifierLength = UInt16(span.end - span.start)
            } else {
                flags |= Self.farIdentifier
                storage.farIdentifiers[start] = span
            }
        }
        var source = Self.noSource
        if let given = record.source {
            source = UInt32(storage.sources.count)
            storage.sources.append(given)
        }
        precondition(start < 1 << 48 && count < Storage.maximumSegments << Self.shift, "a file of 256 TiB or 2³² records")
        let packed = Packed(lat: record.lat, lon: record.lon, hash: record.hash, startAndFlags: UInt64(start) | UInt64(flags) << 56,
                            length: UInt32(record.range.count), line: UInt32(record.line),
                            identifierStart: identifierStart, identifierLength: identifierLength, source: source)
        let segment = count >> Self.shift
        if segment == storage.segmentCount {
            storage.segments[segment] = Storage.allocateSegment()
            storage.segmentCount += 1
        }
        (storage.segments[segment].unsafelyUnwrapped + (count & Self.mask)).initialize(to: packed)
        count += 1
    }

    /// Appends the records of `other` from position `first` on, giving back each of its segments once copied.
    package mutating func append(takingFrom other: inout RecordList, from first: Int) {
        other.makeUnique()
        for position in first..<other.count {
            append(other[position])
            if position & Self.mask == Self.mask {
                other.storage.segments[position >> Self.shift]?.deallocate()
                other.storage.segments[position >> Self.shift] = nil
            }
        }
        other = RecordList()
    }

    /// The records at `positions` (in that order), each changed by `change`.
    package func selecting(_ positions: some Sequence<Int>, _ change: (inout ScannedRecord) -> Void = { _ in }) -> RecordList {
        var list = RecordList()
        for position in positions {
            var record = self[position]
            change(&record)
            list.append(record)
        }
        return list
    }
}
