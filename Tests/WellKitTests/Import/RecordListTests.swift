import Testing
@testable import WellKit

/// ``RecordList`` keeps records packed (48 bytes) in segments of 2²⁰: every field of a record
/// reads back as it was appended, across segments, after a join and after a copy is changed.
@Suite struct RecordListTests {
    private static func key(_ record: ScannedRecord) -> String {
        let identifier = record.identifier.map { "\($0.start)-\($0.end)-\($0.escaped)" } ?? "generated"
        let source = record.source.map { "\($0.x),\($0.y),\($0.crs)" } ?? "none"
        return "\(record.range) \(record.line) \(record.lat.bitPattern) \(record.lon.bitPattern) \(record.hash) \(identifier) \(source)"
    }

    /// Records at the edges of what the packing holds: an identifier that starts or ends past
    /// 64 KiB into its record, one escaped, none, a record past 4 GiB into the file, the last line
    /// a record can have, and coordinates as the file gave them.
    private static let edges: [ScannedRecord] = [
        ScannedRecord(range: 0..<10, line: 2, lat: 1.5, lon: -2.5, identifier: FieldSpan(start: 3, end: 7, escaped: false), hash: 42, source: nil),
        ScannedRecord(range: 10..<30, line: 3, lat: -89.9, lon: 179.9, identifier: FieldSpan(start: 11, end: 29, escaped: true), hash: .max, source: nil),
        ScannedRecord(range: 30..<40, line: 4, lat: 0.1, lon: 0.2, identifier: nil, hash: 7, source: nil),
        ScannedRecord(range: 40..<80_040, line: 5, lat: 45, lon: -100, identifier: FieldSpan(start: 40 + 70_000, end: 40 + 70_010, escaped: false),
                      hash: 1, source: nil),
        ScannedRecord(range: 80_040..<160_040, line: 6, lat: 45, lon: -100, identifier: FieldSpan(start: 80_041, end: 80_041 + 70_000, escaped: true),
                      hash: 2, source: nil),
        ScannedRecord(range: 5_000_000_000..<5_000_000_100, line: Int(UInt32.max), lat: 12.345678901234567, lon: -98.7654321,
                      identifier: FieldSpan(start: 5_000_000_065, end: 5_000_000_100, escaped: false), hash: 3,
                      source: ScannedRecord.Source(x: 501_562.25, y: 4_275_692.5, crs: 3)),
        ScannedRecord(range: 5_000_000_100..<5_000_000_200, line: 9, lat: 1, lon: 2, identifier: nil, hash: 4,
                      source: ScannedRecord.Source(x: -1, y: -2, crs: 0)),
    ]

    @Test func everyFieldReadsBackAsAppended() {
        var list = RecordList()
        for record in Self.edges { list.append(record) }
        #expect(list.count == Self.edges.count)
        #expect(list.map(Self.key) == Self.edges.map(Self.key))
        for (k, record) in Self.edges.enumerated() {
            #expect(list.coordinates(k) == (record.lat, record.lon))
            #expect(list.hash(k) == record.hash)
        }
        #expect(MemoryLayout<RecordList.Packed>.stride == 48)
    }

    /// A record made from its position, so that any one can be checked without keeping them all.
    private static func record(_ k: Int) -> ScannedRecord {
        let start = k * 100
        return ScannedRecord(range: start..<(start + 90), line: k + 2, lat: Double(k % 180) - 89.5, lon: Double(k % 360) - 179.5,
                             identifier: k % 5 == 0 ? nil : FieldSpan(start: start + k % 7, end: start + 20, escaped: k % 3 == 0),
                             hash: UInt64(k) &* 0x9E37_79B9_7F4A_7C15,
                             source: k % 11 == 0 ? ScannedRecord.Source(x: Double(k), y: -Double(k), crs: k % 4) : nil)
    }

    /// Two halves joined past a segment's end (as the parse joins its halves), the second's first
    /// records dropped; a copy keeps its records when the original grows; a selection keeps order.
    @Test func segmentsJoinCopyAndSelect() {
        var first = RecordList(), second = RecordList()
        for k in 0..<700_000 { first.append(Self.record(k)) }
        for k in 699_995..<1_400_000 { second.append(Self.record(k)) }
        let copy = first
        first.append(takingFrom: &second, from: 5)
        #expect(second.isEmpty)
        #expect(first.count == 1_400_000)
        for k in stride(from: 0, to: 1_400_000, by: 997) + [1_048_575, 1_048_576, 1_399_999] {
            #expect(Self.key(first[k]) == Self.key(Self.record(k)), "record \(k)")
        }
        #expect(copy.count == 700_000)
        #expect(Self.key(copy[699_999]) == Self.key(Self.record(699_999)))
        var grown = copy
        grown.append(Self.record(5))
        #expect(copy.count == 700_000 && grown.count == 700_001)
        let picked = first.selecting([1_300_000, 3, 1_048_576]) { $0.identifier = nil }
        #expect(picked.map(\.line) == [1_300_002, 5, 1_048_578])
        #expect(picked.allSatisfy { $0.identifier == nil })
    }
}
