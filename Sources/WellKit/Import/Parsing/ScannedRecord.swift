/// A record that is a well: where it is in the file, and where it is on Earth.
///
/// Plain values only, so that the load's passes over its records copy bytes and never touch a
/// reference count. A load holds one per well until it commits, packed in a ``RecordList``
/// (``RecordList/Packed``), where a record's length and line are 32-bit: ``RecordValidator`` checks that they
/// fit before it makes one (``fits(length:line:)``).
package struct ScannedRecord: Sendable {
    /// The coordinates as the file gave them, when they were converted to EPSG:4326.
    struct Source: Sendable {
        var x: Double
        var y: Double
        /// An index into ``RecordValidator/crsNames``.
        var crs: Int
    }

    /// The record's bytes in the file, line break included.
    let range: Range<Int>
    /// The physical line the record starts on.
    let line: Int
    package var lat: Double
    package var lon: Double
    /// FNV-1a of the identifier's text, for finding duplicates.
    var hash: UInt64
    /// The identifier's field; nil when it was empty and is generated from the file and line.
    var identifier: FieldSpan?
    var source: Source?

    init(range: Range<Int>, line: Int, lat: Double, lon: Double, identifier: FieldSpan?, hash: UInt64, source: Source?) {
        precondition(Self.fits(length: range.count, line: line), "a record too long or too far down the file for ScannedRecord")
        self.range = range
        self.line = line
        self.lat = lat
        self.lon = lon
        self.hash = hash
        self.identifier = identifier
        self.source = source
    }

    /// Whether a record of `length` bytes starting on `line` can be held.
    static func fits(length: Int, line: Int) -> Bool { length <= Int(UInt32.max) && line >= 0 && line <= Int(UInt32.max) }

    var generatedIdentifier: Bool { identifier == nil }
}
