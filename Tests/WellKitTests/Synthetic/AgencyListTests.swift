import Foundation
import Testing
import WellsTestSupport
@testable import WellKit
@testable import WellKitSynthetic

/// Checks `AgencyList` files against their answer keys with independent, deliberately naive parsing.
@Suite struct AgencyListTests {
    typealias Key = AgencyList.AnswerKey

    /// The physical lines of `bytes` as text, without their LF (a CR before it is kept).
    static func lines(_ bytes: [UInt8]) -> [String] {
        bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).dropLast()
            .map { String(decoding: $0, as: UTF8.self) }
    }

    /// The records of a CSV file that has no line break inside a field, CRs removed, header first.
    static func csvRecords(_ bytes: [UInt8]) -> [[String]] {
        WellGeneratorTests.NaiveCSV(bytes.filter { $0 != UInt8(ascii: "\r") }).records
    }

    /// The clean Alberta-like rows the agency lists are drawn from, header dropped.
    static func albertaRows(count: Int, seed: UInt64) -> [[String]] {
        var bytes: [UInt8] = []
        WellGenerator(count: count, seed: seed).write { bytes.append(contentsOf: $0) }
        return Array(WellGeneratorTests.NaiveCSV(bytes).records.dropFirst())
    }

    @Test(.lane(.slow), arguments: AgencyList.Layout.allCases)
    func sameArgumentsGiveSameBytesAndOtherSeedDiffers(layout: AgencyList.Layout) {
        let first = AgencyList(layout: layout, count: 2000, seed: 7).renderBytes()
        let again = AgencyList(layout: layout, count: 2000, seed: 7).renderBytes()
        #expect(first.bytes == again.bytes)
        #expect(first.key == again.key)
        #expect(first.bytes != AgencyList(layout: layout, count: 2000, seed: 8).renderBytes().bytes)
        #expect(AgencyList(layout: layout, count: 2000, seed: 7).render().text == String(decoding: first.bytes, as: UTF8.self))
        #expect(first.key.layout == layout.rawValue && first.key.records == 2000)
    }

    @Test func nwisKeyMatchesTheFile() throws {
        let (count, seed) = (3000, UInt64(11))
        let (bytes, key) = AgencyList(layout: .nwisDMS, count: count, seed: seed).renderBytes()
        #expect(!bytes.contains(UInt8(ascii: "\r")))
        let lines = Self.lines(bytes)
        let comments = lines.prefix { $0.hasPrefix("#") }.count
        #expect(key.commentLines == comments && (6...10).contains(comments))
        #expect(lines.prefix(comments).contains("#") && lines.first == "# US Geological Survey")
        #expect(lines[comments] == AgencyList.nwisHeader.joined(separator: "\t"))
        #expect(lines[comments + 1] == "5s\t15s\t50s\t11s\t12s\t10s\t2s\t20s\t8n")
        let rows = lines.dropFirst(comments + 2).map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
        #expect(key.records == rows.count && rows.count == count)
        #expect(rows.allSatisfy { $0.count == 9 && $0[0] == "USGS" && $0[6] == "US" && !$0[7].isEmpty })
        #expect(rows.allSatisfy { $0[2].count <= 50 && $0[7].count <= 20 && $0[8].count <= 8 }, "widths of the format line")
        #expect(key.delimiter == "tab" && key.datumColumn == "coord_datum_cd" && key.suspects.isEmpty)
        #expect(key.latitude == .init(column: "lat_va", format: "compact DMS"))
        #expect(key.longitude == .init(column: "long_va", format: "compact DMS", hemisphere: "west"))

        let sites = rows.map { $0[1] }
        #expect(sites.allSatisfy { $0.count == 15 && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) })
        #expect(Set(sites).count == count)
        let leadingZeros = sites.filter { $0.hasPrefix("0") }.count
        #expect((count * 2 / 5...count * 3 / 5).contains(leadingZeros), "site_no with a leading 0: \(leadingZeros)")

        let blank = rows.indices.filter { rows[$0][3].isEmpty && rows[$0][4].isEmpty }
        #expect(key.rejects.map(\.line) == blank.map { $0 + comments + 3 })
        #expect(key.rejects.allSatisfy { $0.kind == .missingCoordinates } && (20...40).contains(blank.count))
        let alberta = Self.albertaRows(count: count, seed: seed)
        var datums: [String: Int] = [:]
        for (index, row) in rows.enumerated() where !blank.contains(index) {
            #expect(row[3].wholeMatch(of: /\d{6}\.\d{1,2}/) != nil && row[4].wholeMatch(of: /\d{7}\.\d{2}/) != nil, "\(row)")
            let latitude = try DMS.parse(row[3], impliedHemisphere: .north)
            let longitude = try DMS.parse(row[4], impliedHemisphere: .west)
            #expect((34...45).contains(latitude) && (-120...(-110)).contains(longitude), "\(row)")
            // the Alberta-like well, 15° south; DMS to 0.1" is within 3 m
            #expect(abs(latitude - (Double(alberta[index][2])! - 15)) < 2e-5 && abs(longitude - Double(alberta[index][3])!) < 2e-5)
            datums[row[5], default: 0] += 1
        }
        #expect(key.datums == datums && Set(datums.keys) == ["NAD27", "NAD83", "WGS84"])
        #expect(blank.allSatisfy { rows[$0][5].isEmpty })
        let located = Double(count - blank.count)
        #expect(abs(Double(datums["NAD27"]!) / located - 0.4) < 0.05 && abs(Double(datums["WGS84"]!) / located - 0.1) < 0.03)
    }

    @Test func damagedIDsKeyMatchesTheFile() throws {
        let count = 4000
        let (bytes, key) = AgencyList(layout: .damagedIDs, count: count, seed: 5).renderBytes()
        let lines = Self.lines(bytes)
        #expect(lines.allSatisfy { $0.utf8.last == UInt8(ascii: "\r") && $0.utf8.dropLast().allSatisfy { $0 != UInt8(ascii: "\r") } })
        let records = Self.csvRecords(bytes)
        #expect(records.first == ["Well API", "Well Name", "Operator", "Latitude", "Longitude", "County", "State", "Spud Date", "Total Depth"])
        let rows = records.dropFirst()
        #expect(key.records == rows.count && rows.count == count && rows.allSatisfy { $0.count == 9 })
        // The State column names the state each well lies in, by the outlines loads check against.
        let places = try #require(Places.shared)
        #expect(rows.count { $0[6].isEmpty } * 100 < rows.count, "at most 1% of the wells lie outside every county's outline")
        for row in rows.prefix(200) where !row[6].isEmpty {
            let state = try #require(USState.named(row[6], fips: false), "row \(row)")
            #expect(places.contains(any: places.stateByFIPS[state.fips].map { [$0] } ?? [], longitude: Double(row[4])!, latitude: Double(row[3])!))
        }
        #expect(key.rejects.isEmpty && key.suspects.isEmpty && key.identifier.column == "Well API" && !key.identifier.isKey)

        var apiCounts: [String: Int] = [:]
        for row in rows { apiCounts[row[0], default: 0] += 1 }
        #expect(key.identifier.distinct == apiCounts.count && (5...12).contains(apiCounts.count))
        let top = try #require(key.identifier.mostRepeated)
        #expect(apiCounts[top.value] == top.count && top.count == apiCounts.values.max() && top.count * 4 >= count)
        let scientific = apiCounts.keys.allSatisfy { $0.wholeMatch(of: /4\.2\d{0,4}E\+13/) != nil }
        let plain = apiCounts.keys.allSatisfy { $0.wholeMatch(of: /42\d{4}0{8}/) != nil }
        #expect(scientific != plain, "one rounding style per file: \(apiCounts.keys.sorted())")

        for row in rows {
            #expect(row[3].wholeMatch(of: /\d{2}\.\d{6}/) != nil && row[4].wholeMatch(of: /-\d{3}\.\d{6}/) != nil, "\(row)")
            if let date = row[7].wholeMatch(of: /([1-9]\d?)\/([1-9]\d?)\/(\d{4})/) {
                let parts = DateComponents(calendar: Calendar(identifier: .gregorian), year: Int(date.3), month: Int(date.1), day: Int(date.2))
                #expect(parts.isValidDate, "\(row[7])")
            } else {
                #expect(row[7].isEmpty, "\(row[7])")
            }
            #expect(row[8].isEmpty || row[8].wholeMatch(of: /[1-9]\d{0,2}(,\d{3})*/) != nil, "\(row[8])")
        }
        #expect(lines.dropFirst().filter { $0.contains(",\"") && $0.hasSuffix("\"\r") }.count > count / 2, "quoted depths")

        // Duplicates are exactly the lines that repeat an earlier line.
        let duplicates = try #require(key.duplicates)
        #expect((15...25).contains(duplicates.count))
        for duplicate in duplicates {
            #expect(duplicate.sameAs < duplicate.line && lines[duplicate.line - 1] == lines[duplicate.sameAs - 1])
        }
        var firstLine: [String: Int] = [:]
        var repeats: [Key.Duplicate] = []
        for (index, line) in lines.enumerated() {
            if let earlier = firstLine[line] { repeats.append(.init(line: index + 1, sameAs: earlier)) } else { firstLine[line] = index + 1 }
        }
        #expect(repeats == duplicates)
    }

    @Test func coordinateErrorsKeyMatchesTheFile() throws {
        let count = 4000
        let (bytes, key) = AgencyList(layout: .coordinateErrors, count: count, seed: 3).renderBytes()
        #expect(!bytes.contains(UInt8(ascii: "\r")))
        let records = Self.csvRecords(bytes)
        #expect(records.first == ["API Number", "Well Name", "Operator", "Latitude", "Longitude", "County", "State", "Status"])
        let rows = Array(records.dropFirst())
        #expect(key.records == rows.count && rows.count == count && rows.allSatisfy { $0.count == 8 })
        #expect(key.identifier == .init(column: "API Number", isKey: true) && key.rejects.isEmpty && key.duplicates == nil)
        #expect(rows.allSatisfy { $0[0].wholeMatch(of: /42-\d{3}-\d{5}/) != nil } && Set(rows.map { $0[0] }).count == count)

        #expect(key.suspects.map(\.line) == key.suspects.map(\.line).sorted() && key.suspects.count == count / 100)
        let reasons = Key.Suspect.Reason.allCases
        #expect(key.suspects.enumerated().allSatisfy { $0.element.reason == reasons[$0.offset % reasons.count] })
        let suspectLines = Set(key.suspects.map(\.line))
        for suspect in key.suspects {
            let row = rows[suspect.line - 2]
            let (latitude, longitude) = (try #require(Double(row[3])), try #require(Double(row[4])))
            #expect(row[0] == suspect.identifier)
            switch suspect.reason {
            case .longitudeSign: #expect(longitude > 0 && (110...120).contains(longitude) && (34...45).contains(latitude), "\(row)")
            case .lostDigit: #expect(longitude < 0 && abs(longitude) < 100 && (34...45).contains(latitude), "\(row)")
            case .latitudeSign: #expect((-45...(-34)).contains(latitude) && (-120...(-110)).contains(longitude), "\(row)")
            case .farFromTheOthers: #expect(latitude > 55 && longitude > -60 && longitude < 0, "\(row)")
            }
        }
        for (index, row) in rows.enumerated() where !suspectLines.contains(index + 2) {
            let (latitude, longitude) = (Double(row[3]) ?? .nan, Double(row[4]) ?? .nan)
            #expect((34...45).contains(latitude) && (-120...(-110)).contains(longitude), "\(row)")
        }
    }

    @Test func answerKeyUsesTheDocumentedFieldNamesAndRoundTrips() throws {
        let expected: [AgencyList.Layout: Set<String>] = [
            .nwisDMS: ["layout", "records", "commentLines", "delimiter", "identifier", "latitude", "longitude",
                       "datumColumn", "datums", "rejects", "suspects"],
            .damagedIDs: ["layout", "records", "identifier", "duplicates", "rejects", "suspects"],
            .coordinateErrors: ["layout", "records", "identifier", "rejects", "suspects"],
            .lostSigns: ["layout", "records", "identifier", "rejects", "suspects", "stateColumn", "placement"],
            .statePlaneFeet: ["layout", "records", "identifier", "rejects", "suspects", "stateColumn", "placement"],
            .datumSpellings: ["layout", "records", "commentLines", "delimiter", "identifier", "latitude", "longitude",
                              "datumColumn", "datums", "rejects", "suspects"],
            .export1252: ["layout", "records", "identifier", "rejects", "suspects", "stateColumn", "text"],
            .blankHeaders: ["layout", "records", "identifier", "rejects", "suspects", "wells"],
            .excelGuarded: ["layout", "records", "identifier", "rejects", "suspects", "wells"],
            .depthsFeet: ["layout", "records", "identifier", "rejects", "suspects", "wells"],
            .depthsMetres: ["layout", "records", "identifier", "rejects", "suspects", "wells"],
            .antimeridian: ["layout", "records", "identifier", "rejects", "suspects", "wells"],
        ].merging([AgencyList.Layout.dayMonthYear, .oracleDates, .excelSerials, .mixedDates].map {
            ($0, ["layout", "records", "identifier", "rejects", "suspects", "dateColumns", "wells"])
        }, uniquingKeysWith: { a, _ in a })
        for layout in AgencyList.Layout.allCases {
            let key = AgencyList(layout: layout, count: 500, seed: 2).renderBytes().key
            let data = try key.jsonData()
            let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            #expect(Set(object.keys) == expected[layout], "\(layout)")
            #expect(try JSONDecoder().decode(Key.self, from: data) == key)
            #expect(try key.jsonData() == data)
        }
        let damaged = try JSONSerialization.jsonObject(with: AgencyList(layout: .damagedIDs, count: 500, seed: 2).renderBytes().key.jsonData())
        let identifier = try #require((damaged as? [String: Any])?["identifier"] as? [String: Any])
        #expect(Set(identifier.keys) == ["column", "isKey", "distinct", "mostRepeated"])
    }

    @Test func writeToFileMatchesRender() throws {
        let directory = try Fixtures.temporaryDirectory()
        let list = AgencyList(layout: .damagedIDs, count: 700, seed: 9)
        let path = directory.appendingPathComponent("damaged.csv").path
        let key = try list.write(toFileAt: path)
        let rendered = list.renderBytes()
        #expect(try Array(Data(contentsOf: URL(fileURLWithPath: path))) == rendered.bytes && key == rendered.key)
        let keyPath = directory.appendingPathComponent("damaged.key.json").path
        try key.write(toFileAt: keyPath)
        #expect(try JSONDecoder().decode(Key.self, from: Data(contentsOf: URL(fileURLWithPath: keyPath))) == key)
    }

    @Test func compactDMSRoundsSecondsAndCarries() {
        func dms(_ microdegrees: Int, degreeDigits: Int, decimals: Int) -> String {
            var text = AgencyList.Text(capacity: 16)
            text.append(compactDMS: microdegrees, degreeDigits: degreeDigits, decimals: decimals)
            return String(decoding: text.bytes, as: UTF8.self)
        }
        #expect(dms(34_753_417, degreeDigits: 2, decimals: 1) == "344512.3")     // 34°45'12.3012"
        #expect(dms(-114_535_420, degreeDigits: 3, decimals: 2) == "1143207.51") // 114°32'07.512"
        #expect(dms(34_999_999, degreeDigits: 2, decimals: 1) == "350000.0")     // 59.9964" carries
        #expect(dms(-119_999_990, degreeDigits: 3, decimals: 2) == "1195959.96")
        #expect(dms(44_016_666, degreeDigits: 2, decimals: 2) == "440100.00")    // 59.9976" carries to 1'
    }

    @Test func lostDigitNeverKeepsTheIntegerPart() {
        let written = (0..<3).map { position in
            var text = AgencyList.Text(capacity: 16)
            AgencyList.appendLosingDigit(-114_523_456, position: position, to: &text)
            return String(decoding: text.bytes, as: UTF8.self)
        }
        #expect(written == ["-14.523456", "-14.523456", "-11.523456"])
    }
}
