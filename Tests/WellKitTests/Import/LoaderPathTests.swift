import Foundation
import GRDB
import Testing
import WellsTestSupport
@testable import WellKit
@testable import WellKitSynthetic

/// The loader reads the mapped file in place: it splits it on two cores, and builds each row from
/// field spans. These tests hold that path to the streaming ``CSVReader`` and the `String` parsers.
@Suite struct LoaderPathTests {
    // MARK: - Random well lists

    /// A placeholder that ``randomWellList(seed:rows:)`` writes as the byte 0xE9: é in Latin-1, invalid as UTF-8.
    private static let latin1: Unicode.Scalar = "\u{FFFD}"

    /// A well list with quoted fields, doubled quotes, line breaks in quotes, Latin-1 bytes, padding,
    /// CRLF, values that do not parse, bad rows and repeated identifiers.
    private static func randomWellList(seed: UInt64, rows: Int) -> [UInt8] {
        var rng = SeededRandom(seed: seed)
        func pick(_ options: [String]) -> String { options[Int.random(in: 0..<options.count, using: &rng)] }
        let names = ["Smith 1", "  padded  ", "\"Quoted, with comma\"", "\"Say \"\"hi\"\"\"", "\"two\nlines\"", "Müller #2",
                     "Caf\(latin1) 3", "", "\"\"", "\t tabbed"]
        let operators = ["Acme", "\"Acme, Inc.\"", "", "Ölfeld GmbH", "\"multi\r\nline\""]
        let dates = ["2001-01-12", "1/12/2001", "20010112", "2001-01-12T08:00:00", "2001-13-01", "NA", "", "2000-02-29", "2001-02-29"]
        let depths = ["1234.5", "1,234.5", "NA", "", " 12 ", "-3", "1e3", "0x10", "36.46955600000007"]
        let comments = ["", "plain", "\"long comment\nover\nthree lines, with \"\"quotes\"\"\"", "Caf\(latin1)", "\"a,b\""]
        var out = "API,WELL NAME,LAT,LONG,OPERATOR,SPUD DATE,TOTAL DEPTH,COMMENTS\r\n"
        for k in 0..<rows {
            let uwi = Int.random(in: 0..<100, using: &rng) < 2 ? "W\(Int.random(in: 0..<max(1, k), using: &rng))" : (k % 17 == 0 ? "" : "W\(k)")
            let lat = String(format: "%.6f", Double.random(in: 30...50, using: &rng))
            let lon = String(format: "%.6f", Double.random(in: -110 ... -80, using: &rng))
            var fields = [uwi, pick(names), lat, lon, pick(operators), pick(dates), pick(depths), pick(comments)]
            switch Int.random(in: 0..<100, using: &rng) {
            case 0: fields[2] = "NA"
            case 1: fields.removeLast()
            case 2: fields[3] = "0"; fields[2] = "0"
            default: break
            }
            out += fields.joined(separator: ",") + (k % 3 == 0 ? "\r\n" : "\n")
        }
        return out.unicodeScalars.flatMap { $0 == latin1 ? [UInt8(0xE9)] : Array(String($0).utf8) }
    }

    private static func write(_ bytes: [UInt8]) throws -> String {
        let url = try Fixtures.temporaryDirectory().appendingPathComponent("wells.csv")
        try Data(bytes).write(to: url)
        return url.path
    }

    // MARK: - Tests

    /// The two-core split gives exactly the records and rejects of one sequential pass, wherever
    /// the second half starts: inside a quoted field that spans lines too.
    @Test(.lane(.slow), arguments: [1, 2, 3] as [UInt64])
    func partitionedParseEqualsOneSequentialPass(seed: UInt64) throws {
        let path = try Self.write(Self.randomWellList(seed: seed, rows: 40 + Int(seed) * 7))
        let reader = try CSVReader(path: path)
        let header = try #require(try reader.next())
        let mapping = try ColumnMapping(header: header.fields)
        let file = try MappedFile(path: path)
        let validator = RecordValidator(mapping: mapping, file: path)
        func parse(guess: Int?) -> PartitionedParse.Part {
            PartitionedParse.run(file: file, from: reader.offset, line: reader.line, delimiter: reader.delimiter,
                                 validator: validator, options: LoadOptions(), guess: guess)
        }
        let sequential = parse(guess: nil)
        #expect(sequential.count == (try Fixtures.naiveRecordCount(path)))
        #expect(sequential.rejects.count > 0)
        for guess in stride(from: reader.offset, to: file.bytes.count, by: 5) {
            let split = parse(guess: guess)
            let records = (split.records.map(Self.key), sequential.records.map(Self.key))
            let firstDifference = records.0.indices.first { $0 >= records.1.count || records.0[$0] != records.1[$0] }
            #expect(split.count == sequential.count && records.0.count == records.1.count && firstDifference == nil,
                    "guess \(guess): \(split.count) records, \(records.0.count) located, first difference at \(firstDifference ?? -1)")
            #expect(split.rejects == sequential.rejects, "guess \(guess)")
            #expect(split.sha256 == sequential.sha256)
            if firstDifference != nil || split.rejects != sequential.rejects { break }
        }
    }

    /// The second half's first line number: line feeds found by `memchr` where a stretch has no
    /// carriage return, each byte tested where it has one, and a CRLF split between two stretches
    /// counted once; against a count of every byte, at every offset, with stretches of 1 to 9 bytes.
    @Test func lineBreaksAreCountedAsTheScannerNumbersLines() throws {
        let texts = ["a,b\nc,d\n\ne\n", "a\r\nb\r\n\r\nc\rd\n\re\r", "x\n\r\n\r\r\n\n", "no break at all", "\n\n\r"]
        for text in texts {
            let bytes = Array(text.utf8)
            let file = try MappedFile(path: Self.write(bytes))
            for offset in 0...bytes.count {
                var expected = 0, previousCR = false
                for b in bytes[..<offset] {
                    if b == 0x0A { if !previousCR { expected += 1 } } else if b == 0x0D { expected += 1 }
                    previousCR = b == 0x0D
                }
                for chunk in 1...9 {
                    let counted = PartitionedParse.lineBreaks(in: file, before: offset, chunk: chunk)
                    #expect(counted == expected, "\(text.debugDescription) before \(offset), stretches of \(chunk): \(counted), expected \(expected)")
                }
            }
        }
    }

    private static func key(_ record: ScannedRecord) -> [String] {
        ["\(record.range)", "\(record.line)", "\(record.lat)", "\(record.lon)", "\(record.hash)",
         "\(record.identifier.map { "\($0.start)-\($0.end)-\($0.escaped)" } ?? "generated")"]
    }

    /// Every stored value is what the streaming reader reads and the `String` parsers make of it.
    @Test(arguments: [11, 12, 13] as [UInt64])
    func storedRowsMatchTheStreamingReader(seed: UInt64) throws {
        let path = try Self.write(Self.randomWellList(seed: seed, rows: 3000))
        let store = try Fixtures.makeStore()
        let summary = try store.load(csvAt: path)
        #expect(summary.loaded > 2500)

        // The oracle: every record through CSVReader, the first of each identifier kept.
        let reader = try CSVReader(path: path)
        let header = try #require(try reader.next()).fields
        var expected: [String: [String: String]] = [:]
        var badValues = 0
        var tag: String?
        while let record = try reader.next() {
            var f = record.fields
            // A row without its trailing empty fields loads with them empty.
            if record.issue == nil, f.count < header.count { f += Array(repeating: "", count: header.count - f.count) }
            // Generated identifiers are FILE@TAG:LINE, the tag from the header and the first record.
            if tag == nil { tag = RecordValidator.fileTag(header: header, firstRecord: record.fields) }
            guard record.issue == nil, f.count == header.count, let lat = Double(f[2]), let lon = Double(f[3]), !(lat == 0 && lon == 0)
            else { continue }
            let uwi = f[0].isEmpty ? "wells.csv@\(tag!):\(record.line)" : f[0]
            guard expected[uwi] == nil else { continue }
            var row: [String: String] = ["lat": String(lat), "lon": String(lon)]
            var extra: [String: String] = [:]
            if !f[1].isEmpty { row["name"] = f[1] }
            if !f[4].isEmpty { row["operator"] = f[4] }
            if !f[5].isEmpty {
                if let date = ValueParsing.date(f[5]) { row["spud_date"] = date } else { extra[header[5]] = f[5]; badValues += 1 }
            }
            if !f[6].isEmpty {
                if let depth = ValueParsing.number(f[6]) { row["total_depth"] = String(depth) } else { extra[header[6]] = f[6]; badValues += 1 }
            }
            if !f[7].isEmpty { extra[header[7]] = f[7] }
            if !extra.isEmpty { row["extra"] = String(decoding: try JSONEncoder.sorted.encode(extra), as: UTF8.self) }
            expected[uwi] = row
        }
        #expect(summary.loaded == expected.count)
        #expect(summary.badValues == badValues)

        let stored = try store.pool.read { db in
            try Row.fetchAll(db, sql: """
                SELECT uwi, name, lat, lon, operator, spud_date, total_depth, extra FROM wells
                """)
        }
        #expect(stored.count == expected.count)
        for row in stored {
            let uwi: String = row["uwi"]
            var got: [String: String] = ["lat": String(row["lat"] as Double), "lon": String(row["lon"] as Double)]
            for column in ["name", "operator", "spud_date"] { if let text = row[column] as String? { got[column] = text } }
            if let depth = row["total_depth"] as Double? { got["total_depth"] = String(depth) }
            if let json = row["extra"] as String? {
                let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: String])
                got["extra"] = String(decoding: try JSONEncoder.sorted.encode(object), as: UTF8.self)
            }
            #expect(got == expected[uwi], "\(uwi)")
        }
    }

    /// A big file's path (its pages given back as it is read, each row read with `pread` in spatial
    /// order, ``MappedFile/releaseThreshold``) stores exactly what the mapped path stores: a random
    /// list (quotes, line breaks, Latin-1, duplicates, rejects), a reload of it (every well matched
    /// and updated), and a projected list, whose records keep the file's coordinates apart.
    @Test func bigFilePathStoresWhatTheMappedPathStores() throws {
        let path = try Self.write(Self.randomWellList(seed: 21, rows: 4000))
        var projected = LoadOptions()
        projected.coordinates = CoordinateOptions(crs: "EPSG:26916", xColumn: "Utmx", yColumn: "Utmy")
        let queries = [
            "SELECT * FROM pins ORDER BY id", "SELECT * FROM details ORDER BY pin_id", "SELECT id, AsText(geom) FROM pins ORDER BY id",
            "SELECT * FROM idx_pins_geom ORDER BY pkid", "SELECT load_id, line, \"column\", reason, raw FROM rejects ORDER BY load_id, line",
            "SELECT * FROM suspects ORDER BY pin_id",
            "SELECT file, sha256, records, inserted, updated, rejected, bad_values, duplicates, crs, transformation FROM loads ORDER BY id",
        ]
        var dumps: [[String]] = []
        for threshold in [MappedFile.releaseThreshold, 0] {
            let store = try Fixtures.makeStore()
            var summaries: [LoadSummary] = []
            try MappedFile.$releaseThreshold.withValue(threshold) {
                summaries.append(try store.load(csvAt: path))
                summaries.append(try store.load(csvAt: path))
                summaries.append(try store.load(csvAt: Fixtures.sharedData("in-igs-orphan-wells-utm16n.csv"), options: projected))
            }
            #expect(summaries[0].inserted > 3000 && summaries[0].rejected > 0 && summaries[0].duplicates > 0)
            #expect(summaries[1].updated == summaries[0].inserted && summaries[1].inserted == 0)
            #expect(summaries[2].inserted == 492)
            dumps.append(try store.pool.read { db in
                try queries.flatMap { sql in try Row.fetchAll(db, sql: sql).map(\.description) }
            })
        }
        #expect(dumps[0].count > 2 * 4000)
        #expect(dumps[0] == dumps[1])
    }

    /// A big file's records are read for the row builder by whichever pipeline thread is free
    /// (``ChunkSources``): a chunk read ahead (by the writer) and one the builder reads itself each
    /// hold their records' bytes, one after another, and nothing is read ahead into a buffer whose
    /// chunk's batch may not be written yet.
    @Test func chunksReadAheadHoldTheirRecords() throws {
        var text: [UInt8] = []
        var ranges: [Range<Int>] = []
        for k in 0..<90 {
            let start = text.count
            text += Array("well \(k),\(String(repeating: "x", count: k % 13))\n".utf8)
            ranges.append(start..<text.count)
        }
        let file = try MappedFile.$releaseThreshold.withValue(0) { try MappedFile(path: try Self.write(text)) }
        #expect(file.releases)
        // Nine chunks of ten records in a shuffled order, as a spatial order reads a file.
        var rng = SeededRandom(seed: 5)
        let order = Array(0..<90).shuffled(using: &rng)
        let records = (0..<9).map { c in
            order[(c * 10)..<(c * 10 + 10)].map { ScannedRecord(range: ranges[$0], line: $0 + 1, lat: 0, lon: 0, identifier: nil, hash: 0, source: nil) }
        }
        func expected(_ c: Int) -> [UInt8] { records[c].flatMap { text[$0.range] } }
        let sources = ChunkSources(file: file, chunks: records.count, ring: RowPipeline.depth + 2)
        // The writer, before its first batch: chunks 0 to 5 fit the ring, the seventh does not.
        var readAhead = 0
        while sources.readAhead(before: 0 + sources.ring, { records[$0] }) { readAhead += 1 }
        #expect(readAhead == sources.ring)
        for c in 0..<sources.ring { #expect(Array(sources.take(c, records[c])) == expected(c), "chunk \(c), read ahead") }
        // Chunks 0 to 5 written: the builder reads chunk 6 itself; the writer then reads 7 and 8, and no further.
        #expect(Array(sources.take(6, records[6])) == expected(6))
        #expect(sources.readAhead(before: 6 + sources.ring, { records[$0] }))
        #expect(sources.readAhead(before: 6 + sources.ring, { records[$0] }))
        #expect(!sources.readAhead(before: 6 + sources.ring, { records[$0] }))
        for c in 7..<9 { #expect(Array(sources.take(c, records[c])) == expected(c), "chunk \(c), read ahead") }
    }

    /// The decimal parser agrees with `Double.init` bit for bit, on its fast path and off it.
    @Test func decimalMatchesDoubleInit() {
        var rng = SeededRandom(seed: 99)
        func digits(_ range: ClosedRange<Int>) -> String {
            String((0..<Int.random(in: range, using: &rng)).map { _ in Character(String(Int.random(in: 0...9, using: &rng))) })
        }
        var fast = 0
        for _ in 0..<20_000 {
            var text = ["", "-", "+"][Int.random(in: 0...2, using: &rng)] + digits(0...18)
            if Bool.random(using: &rng) { text += "." + digits(0...24) }
            if Int.random(in: 0..<10, using: &rng) == 0 { text += "e" + ["", "-", "+"][Int.random(in: 0...2, using: &rng)] + digits(0...3) }
            let expected = Double(text).flatMap { $0.isFinite ? $0 : nil }
            var copy = text
            let got = copy.withUTF8 { ValueParsing.decimal($0) }
            #expect(got?.bitPattern == expected?.bitPattern, "\(text)")
            if text.filter(\.isNumber).count <= 15 && !text.contains("e") { fast += 1 }
        }
        #expect(fast > 2000)
    }
}
