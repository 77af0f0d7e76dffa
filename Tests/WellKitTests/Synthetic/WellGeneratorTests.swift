import Foundation
import Testing
@testable import WellKit
@testable import WellKitSynthetic

/// Checks `WellGenerator` output with an independent, deliberately naive CSV reader.
@Suite struct WellGeneratorTests {
    /// The whole file a generator writes, plus its report and the size of each chunk.
    static func generate(count: Int, seed: UInt64 = 1, dirty: Bool = false) -> (bytes: [UInt8], report: WellGenerator.DirtyReport, chunks: [Int]) {
        var bytes: [UInt8] = []
        var chunks: [Int] = []
        let report = WellGenerator(count: count, seed: seed, dirty: dirty).write { chunk in
            bytes.append(contentsOf: chunk)
            chunks.append(chunk.count)
        }
        return (bytes, report, chunks)
    }

    /// The LF-terminated lines of `bytes`, without terminators.
    static func lines(_ bytes: [UInt8]) -> [ArraySlice<UInt8>] {
        bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).dropLast().map { $0 }
    }

    @Test func sameSeedGivesSameBytesAndOtherSeedDiffers() {
        let first = Self.generate(count: 3000, seed: 7).bytes
        #expect(first == Self.generate(count: 3000, seed: 7).bytes)
        #expect(first != Self.generate(count: 3000, seed: 8).bytes)
        #expect(Self.generate(count: 3000, seed: 7, dirty: true).bytes == Self.generate(count: 3000, seed: 7, dirty: true).bytes)
    }

    @Test func headerRowCountAndColumnCount() {
        let count = 5000
        let csv = NaiveCSV(Self.generate(count: count, seed: 3).bytes)
        #expect(!csv.endsInsideQuotes)
        #expect(csv.records.count == count + 1)
        #expect(csv.records.first == WellGenerator.header)
        #expect(csv.records.allSatisfy { $0.count == 20 })
        #expect(Self.lines(Self.generate(count: 1).bytes).count == 2)
    }

    @Test func quotingFollowsRFC4180() {
        let bytes = Self.generate(count: 20000, seed: 5).bytes
        #expect(!bytes.contains(UInt8(ascii: "\r")))
        let rows = NaiveCSV(bytes).records.dropFirst()
        let names = rows.map { $0[1] }
        #expect(names.allSatisfy { (15...40).contains($0.count) })
        // ~4% of names have a comma and ~0.2% a quote; both must survive the round trip.
        let withComma = names.filter { $0.contains(",") }.count
        let withQuote = names.filter { $0.contains("\"") }.count
        #expect((400...1200).contains(withComma), "names with a comma: \(withComma)")
        #expect((10...100).contains(withQuote), "names with a quote: \(withQuote)")
        #expect(rows.contains { $0[5].contains(",") }, "some licensee should contain a comma")
        let licensees = Set(rows.map { $0[5] })
        #expect((500...2000).contains(licensees.count), "distinct licensees: \(licensees.count)")
        // A field is quoted iff it needs to be: re-encode every row and compare with the file.
        let reencoded = rows.map { row in
            row.map { field in
                field.contains { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }
                    ? "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : field
            }.joined(separator: ",")
        }
        let written = Self.lines(bytes).dropFirst().map { String(decoding: $0, as: UTF8.self) }
        let firstDifference = zip(reencoded, written).first { $0.0 != $0.1 }
        #expect(reencoded.count == written.count && firstDifference == nil, "expected / written: \(firstDifference.map { [$0.0, $0.1] } ?? [])")
    }

    @Test func uwisAreUniqueAndWellFormed() {
        let rows = NaiveCSV(Self.generate(count: 20000, seed: 11).bytes).records.dropFirst()
        let uwis = rows.map { $0[0] }
        #expect(Set(uwis).count == uwis.count)
        let digits = Set("0123456789")
        let wellFormed = uwis.allSatisfy { uwi in
            let c = Array(uwi) // 1LE/LS-SC-TWP-RGWM/ES
            guard c.count == 21, c[0] == "1", c[3] == "/", c[6] == "-", c[9] == "-", c[13] == "-",
                  c[16] == "W", c[18] == "/" else { return false }
            return [4, 5, 7, 8, 10, 11, 12, 14, 15, 17, 19, 20].allSatisfy { digits.contains(c[$0]) }
                && (1...16).contains(Int(String(c[4...5]))!) && (1...36).contains(Int(String(c[7...8]))!)
                && ["4", "5", "6"].contains(c[17])
        }
        #expect(wellFormed)
        #expect(uwis.contains { $0.hasPrefix("102/") }, "repeated locations should use location exceptions")
        let licences = rows.map { $0[4] }
        #expect(Set(licences).count == licences.count && licences.allSatisfy { $0.count == 7 && Int($0) != nil && $0 != "0000000" })
    }

    @Test func coordinatesAreInRangeWithSixDecimals() {
        let rows = NaiveCSV(Self.generate(count: 20000, seed: 2).bytes).records.dropFirst()
        let outOfBox = rows.filter { row in
            guard let lat = Double(row[2]), let lon = Double(row[3]) else { return true }
            return !((49.0...60.0).contains(lat) && (-120.0 ... -110.0).contains(lon))
        }
        #expect(outOfBox.isEmpty, "first out of the box: \(outOfBox.first ?? [])")
        let notSixDecimals = rows.filter { row in
            [row[2], row[3]].contains { $0.split(separator: ".").last?.count != 6 }
        }
        #expect(notSixDecimals.isEmpty, "first without 6 decimals: \(notSixDecimals.first ?? [])")
        let badElevations = rows.filter { row in
            guard let ground = Double(row[17]), let kb = Double(row[18]) else { return true }
            return !(170...2500).contains(ground) || !(3.4...8.1).contains(kb - ground)
                || !(row[16].isEmpty || (250...8000).contains(Double(row[16]) ?? .nan))
        }
        #expect(badElevations.isEmpty, "first bad depth or elevation: \(badElevations.first ?? [])")
        // Gaussian fields make the density very uneven: uniform points would put ~3% of the wells
        // in the busiest 1% of the 11,000 0.1-degree cells.
        var cells: [Int: Int] = [:]
        for row in rows { cells[Int(Double(row[2])! * 10) * 10000 + Int(-Double(row[3])! * 10), default: 0] += 1 }
        let busiest = cells.values.sorted(by: >).prefix(110).reduce(0, +)
        #expect(busiest > rows.count * 15 / 100, "busiest 110 of \(cells.count) cells hold \(busiest)")
    }

    @Test func datesAreValidAndOrdered() {
        let rows = NaiveCSV(Self.generate(count: 20000, seed: 4).bytes).records.dropFirst()
        let misordered = rows.filter { row in
            let (licence, spud, final) = (row[13], row[14], row[15])
            return !(Self.isValidDate(licence) && licence >= "1950-01-01" && licence <= "2025-06-30")
                || !(spud.isEmpty || (Self.isValidDate(spud) && licence <= spud && spud <= "2025-06-30"))
                || !(final.isEmpty || (Self.isValidDate(final) && licence <= final && (spud.isEmpty || spud <= final)))
        }
        #expect(misordered.isEmpty, "first bad dates: \(misordered.first ?? [])")
        let issued = rows.filter { $0[8] == "Issued" }
        #expect(!issued.isEmpty && issued.allSatisfy { $0[14].isEmpty && $0[15].isEmpty && $0[16].isEmpty })
        #expect(rows.contains { $0[14].isEmpty && $0[8] != "Issued" }, "a few drilled wells lack a spud date")
    }

    /// `true` for an existing Gregorian `yyyy-mm-dd` date.
    static func isValidDate(_ text: String) -> Bool {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard text.count == 10, parts.count == 3, let y = Int(parts[0]), let m = Int(parts[1]), let d = Int(parts[2]),
              (1...12).contains(m) else { return false }
        let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
        let days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1]
        return (1...days).contains(d)
    }

    @Test func streamsInBoundedChunksAndWritesFiles() throws {
        let (bytes, report, chunks) = Self.generate(count: 20000, seed: 9)
        #expect(report.isClean)
        #expect(chunks.count > 3 && chunks.allSatisfy { $0 > 0 && $0 <= WellGenerator.chunkSize })
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("wellgen-\(UUID().uuidString).csv").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try WellGenerator(count: 20000, seed: 9).write(toFileAt: path)
        #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: path))) == bytes)
    }

    @Test func dirtyModeCorruptsAboutOnePercentAndLeavesAQuoteOpen() {
        let count = 20000
        let clean = Self.generate(count: count, seed: 6).bytes
        let (dirty, report, _) = Self.generate(count: count, seed: 6, dirty: true)
        #expect(report.corruptedRows == count / 100 && report.unterminatedQuoteAtEnd)
        for kind in WellGenerator.DirtyKind.allCases {
            #expect(abs(report[kind] - count / 100 / 8) <= 1, "\(kind): \(report[kind])")
        }
        // Only the corrupted rows and the last row differ from the clean file.
        let cleanLines = Self.lines(clean)
        let dirtyLines = Self.lines(dirty)
        #expect(cleanLines.count == dirtyLines.count)
        let changed = zip(cleanLines, dirtyLines).enumerated().filter { $0.element.0 != $0.element.1 }.map(\.offset)
        #expect(changed.count == report.corruptedRows + 1)
        #expect(changed.last == cleanLines.count - 1)
        #expect(changed.first.map { $0 >= 2 } == true, "neither the header nor the first row is corrupted")
        let csv = NaiveCSV(dirty)
        #expect(csv.endsInsideQuotes)
        #expect(csv.records.count == count + 1)
        let rows = csv.records.dropFirst().dropLast()
        #expect(rows.filter { $0.count != 20 }.count == report[.wrongColumnCount])
        var seen = Set<String>()
        #expect(rows.filter { !seen.insert($0[0]).inserted }.count == report[.duplicateUWI])
        let badCoordinates = rows.filter { row in
            guard row.count == 20, let lat = Double(row[2]), let lon = Double(row[3]) else { return true }
            return !((49.0...60.0).contains(lat) && (-120.0 ... -110.0).contains(lon))
        }.count
        let expectedAtLeast = report[.missingLatLon] + report[.outOfRange] + report[.swappedCoordinates]
        #expect(badCoordinates >= expectedAtLeast)
        #expect(badCoordinates <= expectedAtLeast + report[.unparseableNumber] + report[.wrongColumnCount])
        #expect(dirtyLines.filter { String(decoding: $0, as: UTF8.self).contains(" 6\" CSG,") }.count == report[.bareQuote])
    }

    @Test func tinyDirtyFileOnlyHasTheOpenQuote() {
        let (bytes, report, _) = Self.generate(count: 2, dirty: true)
        #expect(report.corruptedRows == 0 && report.unterminatedQuoteAtEnd)
        #expect(NaiveCSV(bytes).endsInsideQuotes)
    }

    @Test func deterministicMathMatchesTheSystemLibrary() {
        for x in stride(from: 1e-12, through: 1e6, by: 997.3) + [1e-300, 0.5, 1, 2, 1e300] {
            #expect(abs(WellGenerator.Math.log(x) - Foundation.log(x)) <= 1e-14 * max(1, abs(Foundation.log(x))))
        }
        for x in stride(from: -50.0, through: 50.0, by: 0.37) {
            #expect(abs(WellGenerator.Math.exp(x) / Foundation.exp(x) - 1) <= 1e-14)
        }
        for x in stride(from: -1.5, through: 1.5, by: 0.01) {
            #expect(abs(WellGenerator.Math.cos(x) - Foundation.cos(x)) <= 1e-15)
        }
        // xoshiro256** reference outputs for the state {1, 2, 3, 4}.
        var random = WellGenerator.Random(state: (1, 2, 3, 4))
        #expect([random.next(), random.next(), random.next()] == [11520, 0, 1_509_978_240])
    }
}

// MARK: - NaiveCSV

extension WellGeneratorTests {
    /// A small, lenient CSV reader written independently of the generator.
    ///
    /// A quote opens a quoted field only at the start of a field; elsewhere it is literal.
    struct NaiveCSV {
        var records: [[String]] = []
        var endsInsideQuotes = false

        init(_ bytes: [UInt8]) {
            var record: [String] = []
            var field: [UInt8] = []
            var inQuotes = false
            var fieldStarted = false
            var index = 0
            while index < bytes.count {
                let byte = bytes[index]
                index += 1
                if inQuotes {
                    if byte != UInt8(ascii: "\"") {
                        field.append(byte)
                    } else if index < bytes.count && bytes[index] == UInt8(ascii: "\"") {
                        field.append(byte)
                        index += 1
                    } else {
                        inQuotes = false
                    }
                } else if byte == UInt8(ascii: "\"") && !fieldStarted {
                    inQuotes = true
                    fieldStarted = true
                } else if byte == UInt8(ascii: ",") || byte == UInt8(ascii: "\n") {
                    record.append(String(decoding: field, as: UTF8.self))
                    field = []
                    fieldStarted = false
                    if byte == UInt8(ascii: "\n") {
                        records.append(record)
                        record = []
                    }
                } else {
                    field.append(byte)
                    fieldStarted = true
                }
            }
            if inQuotes || fieldStarted || !record.isEmpty {
                record.append(String(decoding: field, as: UTF8.self))
                records.append(record)
            }
            endsInsideQuotes = inQuotes
        }
    }
}
