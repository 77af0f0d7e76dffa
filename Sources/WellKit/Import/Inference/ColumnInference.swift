/// One thing the loader inferred about a file, with its evidence and the flag that overrides it.
///
/// `wells load --dry-run` prints them; `LoadSummary.inferences` and the `loads` table keep them.
public struct Inference: Sendable, Codable, Equatable, CustomStringConvertible {
    /// What was inferred: `identifier`, `latitude`, `longitude`, `hemisphere`, `datum` or `comments`.
    public var subject: String
    /// The source column it concerns, if any.
    public var column: String?
    /// The conclusion, such as "compact DMS" or "west".
    public var value: String
    /// Why, such as "2,000 of 2,000 sampled values parse".
    public var evidence: String
    /// The flag that overrides it, such as "--map lat=COLUMN"; empty when nothing needs one.
    public var override: String

    public var description: String {
        "\(subject)\(column.map { " ← \($0)" } ?? ""): \(value) (\(evidence)\(override.isEmpty ? "" : "; override with \(override)"))"
    }
}

/// Infers, from the header and the values of the first records, which columns are the identifier
/// and the coordinates, how the coordinates are written, their hemisphere and their datum.
///
/// Names propose, values decide: a column named like a latitude must also hold latitudes, and
/// a column of values such as `NAD27`/`NAD83` is a datum column whatever its name. Options the
/// user gave are never second-guessed; each inference says which flag overrides it.
struct ColumnInference {
    let header: [String]
    /// The first records of the file, each with as many fields as the header.
    let sample: [[String]]
    let file: String
    /// Numbers are written with a decimal comma (``CoordinateOptions/decimalComma``).
    var decimalComma = false
    var inferences: [Inference] = []

    /// How many records the loader samples for inference.
    static let sampleSize = 2_000

    init(header: [String], sample: [[String]], file: String) {
        self.header = header
        self.sample = sample.filter { $0.count == header.count }
        self.file = file
    }

    /// Returns `options` completed with what the file's columns show.
    mutating func infer(_ options: LoadOptions) throws -> LoadOptions {
        var options = options
        try chooseIdentifier(&options)
        if options.infer { try preferFilledColumns(&options) }
        mapPointColumn(&options)
        if options.infer { inferPlaceColumns(&options) }
        guard options.infer, options.coordinates.xColumn == nil, options.coordinates.pointColumn == nil else { return options }
        try inferCoordinates(&options)
        return options
    }

    // MARK: - Identifier

    /// Picks the identifier among the columns whose header words name one (`Well API`, `API#`,
    /// `UWI`, `site_no`, `Permit_Number`, `WELL_ID`): the most unique in the sample, then the
    /// strongest name (API and UWI before permits and other ids, before `OBJECTID`).
    private mutating func chooseIdentifier(_ options: inout LoadOptions) throws {
        switch options.identifier {
        case .none:
            options.mapping[WellField.identifier.rawValue] = ""
            return
        case .column(let column):
            guard header.contains(column) || header.contains(where: { ColumnMapping.normalize($0) == ColumnMapping.normalize(column) }) else {
                throw ImportError(.unknownColumn, "no such column", remedy: .chooseColumn(.identifier, given: column), header: header,
                                  file: file)
            }
            options.mapping[WellField.identifier.rawValue] = column
            return
        case .automatic:
            guard options.mapping[WellField.identifier.rawValue] == nil else { return }
        }
        let candidates = header.indices.compactMap { index in Self.identifierRank(header[index]).map { (index, $0) } }
        guard !candidates.isEmpty else { return }
        let scored = candidates.map { index, rank -> (index: Int, rank: Int, unique: Double) in
            let values = sample.map { $0[index] }.filter { !$0.isEmpty }
            let unique = sample.isEmpty ? 1 : Double(Set(values).count) / Double(sample.count)
            return (index, rank, (unique * 100).rounded() / 100)
        }
        let best = scored.min { ($1.unique, $0.rank, $0.index) < ($0.unique, $1.rank, $1.index) }!
        options.mapping[WellField.identifier.rawValue] = header[best.index]
        let others = scored.filter { $0.index != best.index }.map { header[$0.index] }
        inferences.append(Inference(
            subject: "identifier", column: header[best.index], value: "text, leading zeros kept",
            evidence: "header names an identifier; \(Int(best.unique * 100))% of \(grouped(sample.count)) sampled values distinct"
                + (others.isEmpty ? "" : "; other candidates: \(others.joined(separator: ", "))"),
            override: "\(options.describeRemedy(.identifierColumn(nil))) or \(options.describeRemedy(.noIdentifier))"))
    }

    /// How strongly a header names an identifier: 0 for API/UWI/well or site numbers, 1 for permits
    /// and other ids, 2 for row ids such as `OBJECTID`; nil when it names none.
    static func identifierRank(_ name: String) -> Int? {
        let words = headerWords(name)
        guard !words.isEmpty, !words.contains(where: { ["date", "type", "status", "name", "desc", "description", "count"].contains($0) })
        else { return nil }
        let numberWords: Set<String> = ["id", "no", "num", "nbr", "number", "identifier", "key", "cd", "code"]
        if words.contains(where: { $0.hasPrefix("api") || $0.hasPrefix("uwi") }) { return 0 }
        if (words.contains("well") || words.contains("site")) && words.contains(where: numberWords.contains) { return 0 }
        if ["wellid", "siteno", "siteid", "wellno", "wellnum", "wellnumber"].contains(words.joined()) { return 0 }
        if words.contains(where: { $0.hasPrefix("permit") }) { return 1 }
        if words == ["id"] || ["objectid", "fid", "gid", "rowid", "oid", "ogcfid"].contains(words.joined()) { return 2 }
        if words.contains("id") || words.contains("identifier") { return 1 }
        return nil
    }

    /// A header split into lower-case words at punctuation, spaces and camel-case humps:
    /// `Well API#` → `well api`, `Permit_Number` → `permit number`, `siteNo` → `site no`.
    static func headerWords(_ name: String) -> [String] {
        var words: [String] = [], word = ""
        var previousLower = false
        for scalar in name.unicodeScalars {
            let isUpper = ("A"..."Z").contains(scalar), isLower = ("a"..."z").contains(scalar), isDigit = ("0"..."9").contains(scalar)
            guard isUpper || isLower || isDigit else {
                if !word.isEmpty { words.append(word.lowercased()); word = "" }
                previousLower = false
                continue
            }
            if isUpper && previousLower { words.append(word.lowercased()); word = "" }
            word.unicodeScalars.append(scalar)
            previousLower = isLower || isDigit
        }
        if !word.isEmpty { words.append(word.lowercased()) }
        return words
    }

    // MARK: - Coordinates

    /// How a column's sampled values are written.
    struct ColumnFormat: Equatable {
        enum Kind: String { case decimal = "decimal degrees", compactDMS = "compact DMS", symbolDMS = "DMS text" }
        var kind: Kind
        var parsed: Int
        var nonEmpty: Int
        /// Some value carries a sign or a hemisphere letter.
        var signed: Bool
    }

    /// Classifies a column's values as latitudes (limit 90) or longitudes (180), or nil when fewer
    /// than 90% of its non-empty values read as any one form.
    func format(ofColumn index: Int, limit: Double) -> ColumnFormat? {
        let values = sample.map { $0[index] }.filter { !$0.isEmpty }
        guard !values.isEmpty else { return nil }
        var counts: [ColumnFormat.Kind: Int] = [:]
        var signed = false
        for text in values {
            if text.contains(where: { $0 == "-" || "NSEWnsew".contains($0) }) { signed = true }
            if let value = decimalComma ? ValueParsing.decimalComma(text) : ValueParsing.number(text), abs(value) <= limit, !Self.looksCompact(text) {
                counts[.decimal, default: 0] += 1
            } else if let value = DMS.degrees(text, impliedHemisphere: limit == 90 ? .north : .east), abs(value) <= limit {
                counts[Self.looksCompact(text) ? .compactDMS : .symbolDMS, default: 0] += 1
            }
        }
        guard let (kind, parsed) = counts.max(by: { $0.value < $1.value }), parsed * 10 >= values.count * 9 else { return nil }
        return ColumnFormat(kind: kind, parsed: parsed, nonEmpty: values.count, signed: signed)
    }

    /// A plain number with 5 to 7 integer digits: `344512.3`, `0864032.17`.
    static func looksCompact(_ text: String) -> Bool {
        var digits = 0
        for (k, c) in text.enumerated() {
            if c.isASCII && c.isNumber { digits += 1 } else if c == "." { break } else if !(k == 0 && (c == "-" || c == "+")) { return false }
        }
        return (5...7).contains(digits)
    }

    private mutating func inferCoordinates(_ options: inout LoadOptions) throws {
        let named = try ColumnMapping(header: header, overrides: options.mapping, requireCoordinates: false, file: file)
        let latWords = header.indices.filter { Self.headerWords(header[$0]).contains { $0 == "lat" || $0.hasPrefix("latitude") } }
        let lonWords = header.indices.filter {
            Self.headerWords(header[$0]).contains { ["lon", "long", "lng"].contains($0) || $0.hasPrefix("longitude") }
        }
        // Columns named just X and Y come last: degrees under them are longitudes and latitudes.
        let xWords = header.indices.filter { ["x", "xcoord", "pointx", "xcoordinate"].contains(Self.headerWords(header[$0]).joined()) }
        let yWords = header.indices.filter { ["y", "ycoord", "pointy", "ycoordinate"].contains(Self.headerWords(header[$0]).joined()) }
        let latCandidates = ([named.indices[.latitude]].compactMap { $0 } + latWords + yWords).uniqued()
        let lonCandidates = ([named.indices[.longitude]].compactMap { $0 } + lonWords + xWords).uniqued()
        let lat = latCandidates.compactMap { i in format(ofColumn: i, limit: 90).map { (i, $0) } }.first
        // Longitudes from 0 to 360 (given as such) are a longitude column too, so that what follows it
        // (the datum column, the hemisphere) is inferred as for any: NWIS's Pacific list so written lost its datums.
        let lonLimit = options.coordinates.longitudes0To360 ? 360.0 : 180
        let lon = lonCandidates.compactMap { i in format(ofColumn: i, limit: lonLimit).map { (i, $0) } }.first
        guard let (latIndex, latFormat) = lat, let (lonIndex, lonFormat) = lon else {
            if named.indices[.latitude] == nil || named.indices[.longitude] == nil {
                if try inferPointColumn(&options) { return }
                throw ProjectedCandidates(header: header, sample: sample, file: file, placeColumns: options.placeColumns).error()
            }
            return  // named columns whose values read as nothing: the loader rejects each row with its reason
        }
        let userNamed = options.mapping["lat"] != nil || options.mapping["lon"] != nil
        options.mapping["lat"] = header[latIndex]
        options.mapping["lon"] = header[lonIndex]
        let dms = latFormat.kind != .decimal || lonFormat.kind != .decimal
        if dms && !options.coordinates.dms { options.coordinates.dms = true }
        let splitInference = dms ? nil : inferMinutesAndSeconds(&options, latIndex: latIndex, lonIndex: lonIndex)
        let split = options.coordinates.minutesAndSeconds != nil  // inferred, or given
        for (subject, index, format) in [("latitude", latIndex, latFormat), ("longitude", lonIndex, lonFormat)] {
            inferences.append(Inference(
                subject: subject, column: header[index], value: split ? "whole degrees" : format.kind.rawValue,
                evidence: "\(grouped(format.parsed)) of \(grouped(format.nonEmpty)) sampled values parse"
                    + (userNamed ? "; column given in the mapping" : ""),
                override: options.describeRemedy(.mapField(subject == "latitude" ? "lat" : "lon")) + ", "
                    + options.describeRemedy(format.kind == .decimal ? .parseDMS : .noInference)))
        }
        let datum = inferDatumColumn(&options)
        if datum.isEmpty { inferDatumFromNames(&options, latColumn: header[latIndex], lonColumn: header[lonIndex]) }
        if let splitInference { inferences.append(splitInference) }
        if (dms || split) && !lonFormat.signed && !options.coordinates.impliedWest && !options.coordinates.impliedEast {
            try inferHemisphere(&options, lonColumn: header[lonIndex], datum: datum)
        }
    }

    /// `--map lat=COLUMN` (and `lon`) onto one column whose values are points: that column is the point column.
    ///
    /// What the user says wins: the column is the point column when more of its values are points
    /// than plain numbers, however many cannot be read (Alaska's `unknown` and legal descriptions);
    /// those rows are rejected, each with its own reason, and the mapping stands.
    private mutating func mapPointColumn(_ options: inout LoadOptions) {
        let given = Set([options.mapping["lat"], options.mapping["lon"]].compactMap { $0 })
        guard given.count == 1, let column = given.first,
              let index = header.firstIndex(of: column) ?? header.firstIndex(where: { ColumnMapping.normalize($0) == ColumnMapping.normalize(column) })
        else { return }
        let values = sample.map { $0[index] }.filter { !$0.isEmpty }
        let points = values.count { PointText.parse($0, decimalComma: decimalComma) != nil }
        let numbers = values.count { (decimalComma ? ValueParsing.decimalComma($0) : ValueParsing.number($0)) != nil }
        guard points > 0, points > numbers else { return }
        options.mapping["lat"] = nil
        options.mapping["lon"] = nil
        options.coordinates.pointColumn = header[index]
        inferences.append(Inference(subject: "coordinates", column: header[index], value: describePoints(values),
                                    evidence: "mapped to lat/lon; \(grouped(points)) of \(grouped(values.count)) sampled values are points"
                                        + (points < values.count ? "; rows whose value is not a point are rejected, each with its reason" : ""),
                                    override: ""))
    }

    /// Finds a column whose sampled values are mostly points (``PointText``), for a file without
    /// latitude and longitude columns: more than half of them, so that a list whose pairs are
    /// interleaved with `unknown` and legal descriptions (Alaska's) loads the rows it can.
    ///
    /// - Throws: For WKT points of projected values (metres or feet, not degrees: an ArcGIS export's
    ///   `geometry`) whose CRS neither the file (an EWKT SRID) nor the options give, the candidate
    ///   search of x/y columns (``ProjectedCandidates``), judged by the file's place columns.
    private mutating func inferPointColumn(_ options: inout LoadOptions) throws -> Bool {
        for index in header.indices {
            let values = sample.map { $0[index] }.filter { !$0.isEmpty }
            guard !values.isEmpty else { continue }
            let points = values.compactMap { PointText.parse($0, decimalComma: decimalComma) }
            guard points.count * 2 > values.count else { continue }
            let parsed = points.count
            let srids = Set(points.compactMap(\.srid))
            if options.coordinates.crs == nil, srids.isEmpty, points.allSatisfy({ $0.form == .wkt }),
               points.count(where: { abs($0.x) > 180 || abs($0.y) > 90 }) * 2 > points.count {
                throw ProjectedCandidates.ofPoints(index, header: header, sample: sample, file: file, placeColumns: options.placeColumns,
                                                   decimalComma: decimalComma).error()
            }
            options.coordinates.pointColumn = header[index]
            if options.coordinates.crs == nil, srids.count == 1, let srid = srids.first, srid != 4326 {
                options.coordinates.crs = "EPSG:\(srid)"
            }
            inferences.append(Inference(
                subject: "coordinates", column: header[index], value: describePoints(values),
                evidence: "\(grouped(parsed)) of \(grouped(values.count)) sampled values are points"
                    + (srids.isEmpty ? "" : "; SRID \(srids.sorted().map(String.init).joined(separator: ", "))")
                    + (parsed < values.count ? "; rows whose value is not a point are rejected, each with its reason" : ""),
                override: options.describeRemedy(.mapField("lat"))))
            return true
        }
        return false
    }

    /// How a column's points are written: "WKT points (x y)", and so on.
    private func describePoints(_ values: [String]) -> String {
        let forms = Dictionary(values.compactMap { PointText.parse($0, decimalComma: decimalComma)?.form.rawValue }.map { ($0, 1) }, uniquingKeysWith: +)
        return forms.sorted { $0.value > $1.value }.map(\.key).joined(separator: ", ")
    }

    /// Finds a column whose values are datum names (NAD27, NAD83, WGS84, OLDHI, …) and applies it per row.
    /// Returns the datums seen, most common first.
    private mutating func inferDatumColumn(_ options: inout LoadOptions) -> [String] {
        guard options.coordinates.crs == nil else { return [] }
        let lookup = options.coordinates.datumLookup
        func known(_ value: String) -> Bool { lookup[CoordinateOptions.datumKey(value)] != nil }
        let given = options.coordinates.datumColumn.flatMap { header.firstIndex(of: $0) }
        for index in given.map({ [$0] }) ?? Array(header.indices) {
            // A quick look at a few values first: most columns are plainly not datums.
            let first = sample.lazy.map { $0[index] }.filter { !$0.isEmpty }.prefix(20)
            guard given != nil || first.contains(where: known)
            else { continue }
            let values = sample.map { $0[index].trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            guard !values.isEmpty else { continue }
            // Counted by datum, each spelling (`NAD 27`, `nad27`) under its key (`NAD27`).
            let counts = Dictionary(values.map { (known($0) ? CoordinateOptions.datumKey($0) : $0, 1) }, uniquingKeysWith: +)
            let spellings = Set(values.filter(known)).count
            let matching = counts.filter { known($0.key) }.values.reduce(0, +)
            // Mostly datum names: a value it does not know rejects its row, naming the value and the fix.
            guard given != nil || matching * 100 >= values.count * 60 else { continue }
            let ranked = counts.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.map(\.key)
            if given == nil { options.coordinates.datumColumn = header[index] }
            if options.coordinates.emptyDatum == nil, let common = ranked.first(where: known),
               values.count < sample.count {
                options.coordinates.emptyDatum = common
            }
            let empties = sample.count - values.count
            inferences.append(Inference(
                subject: "datum", column: header[index], value: "per row: " + ranked.prefix(4).map { "\($0) \(grouped(counts[$0]!))" }.joined(separator: ", "),
                evidence: given != nil ? "given as the datum column"
                    : "\(grouped(matching)) of \(grouped(values.count)) sampled values name a datum"
                    + (spellings > counts.count { known($0.key) } ? " (\(spellings) spellings)" : "")
                    + (matching < values.count ? "; rows with another value are rejected with it" : "")
                    + (empties > 0 && options.coordinates.emptyDatum != nil ? "; \(grouped(empties)) empty cells taken as \(options.coordinates.emptyDatum!)" : ""),
                override: "\(options.describeRemedy(.datumColumn)), or \(options.describeRemedy(.oneCRS)) for one CRS"))
            return ranked
        }
        return []
    }

    /// Finds the minutes and seconds of whole-degree latitude and longitude columns in columns of their
    /// own (`LAT_DEG`, `LAT_MIN`, `LAT_SEC`; `LongDegrees`, `LongMinutes`; `DEG_LAT`, `MIN_LAT`),
    /// as older agency lists write DMS: names whose words differ only in the degrees word propose,
    /// values decide (whole degrees, minutes and seconds from 0 to under 60, on 90% of the sample).
    /// Read as the degrees alone, such a list put every well on a whole-degree corner, up to a degree
    /// from where it is: 16,464 Tennessee wells on 17 points.
    ///
    /// - Returns: The inference, when it found them (and set ``CoordinateOptions/minutesAndSeconds``).
    private func inferMinutesAndSeconds(_ options: inout LoadOptions, latIndex: Int, lonIndex: Int) -> Inference? {
        guard options.coordinates.minutesAndSeconds == nil, options.coordinates.degreeDivisor == nil else { return nil }
        func share(_ index: Int, _ test: (Double) -> Bool) -> Double {
            let values = sample.map { $0[index] }.filter { !$0.isEmpty }
            guard !values.isEmpty else { return 0 }
            return Double(values.count { text in (decimalComma ? ValueParsing.decimalComma(text) : ValueParsing.number(text)).map(test) ?? false })
                / Double(values.count)
        }
        func parts(of index: Int, limit: Double) -> (minutes: Int, seconds: Int?)? {
            let words = Self.headerWords(header[index])
            guard let k = words.firstIndex(where: ["d", "deg", "degs", "degree", "degrees"].contains) else { return nil }
            func sibling(_ names: Set<String>) -> Int? {
                header.indices.first { i in
                    let other = Self.headerWords(header[i])
                    return i != index && other.count == words.count && other.indices.allSatisfy { $0 == k ? names.contains(other[$0]) : other[$0] == words[$0] }
                }
            }
            guard let minutes = sibling(["m", "min", "mins", "minute", "minutes"]),
                  share(index, { $0 == $0.rounded(.towardZero) && abs($0) <= limit }) >= 0.9, share(minutes, { $0 >= 0 && $0 < 60 }) >= 0.9
            else { return nil }
            let seconds = sibling(["s", "sec", "secs", "second", "seconds"]).flatMap { share($0, { $0 >= 0 && $0 < 60 }) >= 0.9 ? $0 : nil }
            return (minutes, seconds)
        }
        guard let lat = parts(of: latIndex, limit: 90), let lon = parts(of: lonIndex, limit: 180) else { return nil }
        options.coordinates.minutesAndSeconds = CoordinateOptions.MinutesAndSeconds(
            latitudeMinutes: header[lat.minutes], longitudeMinutes: header[lon.minutes],
            latitudeSeconds: lat.seconds.map { header[$0] }, longitudeSeconds: lon.seconds.map { header[$0] })
        func sum(_ degrees: Int, _ parts: (minutes: Int, seconds: Int?)) -> String {
            "\(header[degrees]) + \(header[parts.minutes]) / 60" + (parts.seconds.map { " + \(header[$0]) / 3600" } ?? "")
        }
        return Inference(
            subject: "minutes and seconds", column: header[latIndex], value: "latitude \(sum(latIndex, lat)), longitude \(sum(lonIndex, lon))",
            evidence: "the columns' names differ only in degrees, minutes and seconds; the sampled degrees are whole, the minutes and seconds from 0 to under 60",
            override: "\(options.describeRemedy(.minutesAndSeconds)) for other columns, or \(options.describeRemedy(.noInference))")
    }

    /// The datum the coordinate columns' names give (`LAT_NAD27`, `Long NAD 1927`, `lat27`), as
    /// agencies name them when a list carries its coordinates in more than one datum. Read as WGS 84,
    /// NAD27 degrees put Tennessee's wells 9–15 m off, and no place check sees a slip that small;
    /// so a NAD27 (or Old Hawaiian) the names agree on is the CRS of every row, transformed and
    /// reported like `--crs EPSG:4267`. Names of NAD83 or WGS 84, a metre or two apart, change nothing.
    private mutating func inferDatumFromNames(_ options: inout LoadOptions, latColumn: String, lonColumn: String) {
        guard options.coordinates.crs == nil, options.coordinates.datumColumn == nil else { return }
        let named = [latColumn, lonColumn].map(Self.datumNamed)
        guard let key = named.compactMap({ $0 }).first, named.allSatisfy({ $0 == nil || $0 == key }),
              ["NAD27", "OLDHI"].contains(key), let crs = options.coordinates.datumLookup[key]
        else { return }
        options.coordinates.crs = crs
        inferences.append(Inference(
            subject: "datum", column: named[0] != nil ? latColumn : lonColumn, value: "\(key) (\(crs)) for every row",
            evidence: "the coordinate columns' names say so: " + zip([latColumn, lonColumn], named).filter { $0.1 != nil }.map(\.0).joined(separator: ", "),
            override: "\(options.describeRemedy(.oneCRS)) (EPSG:4326 if they are WGS 84)"))
    }

    /// The datum a coordinate column's name gives, as a ``CoordinateOptions/datumKey(_:)`` of the
    /// default datums: `LAT_NAD27`, `Latitude (NAD 1927)` and `long27` give NAD27; `Lat_NAD83` NAD83;
    /// nil for none. Any run of the name's words that the datum column's lookup knows names it, so
    /// the spellings are that lookup's (`North American Datum 1927`, `NAD 27`, `WGS 1984`, …).
    static func datumNamed(_ column: String) -> String? {
        let words = headerWords(column)
        for start in words.indices {
            for end in start..<words.count {
                let key = CoordinateOptions.datumKey(words[start...end].joined())
                if defaultDatumKeys.contains(key) { return key }
            }
        }
        // A bare year on a coordinate word: `lat27`, `long_27`, `latitude83`.
        let name = ColumnMapping.normalize(column)
        for (year, key) in [("27", "NAD27"), ("83", "NAD83")] where name.hasSuffix(year) {
            if ["lat", "latitude", "lon", "long", "longitude", "lng"].contains(String(name.dropLast(2))) { return key }
        }
        return nil
    }

    /// The keys of ``CoordinateOptions/defaultDatums`` (`NAD27`, `NAD83`, `WGS84`, `OLDHI`, …), not their EPSG codes.
    private static let defaultDatumKeys = Set(CoordinateOptions.defaultDatums.keys.map(CoordinateOptions.datumKey))

    /// Decides whether unsigned DMS longitudes are west or east from a country, state or datum
    /// column; without evidence, asks the user.
    private mutating func inferHemisphere(_ options: inout LoadOptions, lonColumn: String, datum: [String]) throws {
        let americas: Set<String> = ["US", "USA", "UNITED STATES", "CA", "CAN", "CANADA", "MX", "MEX", "MEXICO"]
        var evidence: String?
        for index in header.indices {
            let words = Self.headerWords(header[index])
            let values = sample.map { $0[index].trimmingCharacters(in: .whitespaces).uppercased() }.filter { !$0.isEmpty }
            guard !values.isEmpty else { continue }
            if words.contains(where: { $0.hasPrefix("country") }) {
                let hits = values.count { americas.contains($0) }
                if hits * 10 >= values.count * 9 { evidence = "\(header[index]) is \(Set(values).sorted().prefix(3).joined(separator: "/")) on \(grouped(hits)) of \(grouped(values.count)) sampled rows"; break }
            }
            if words.contains(where: { $0 == "state" || $0 == "stusps" || $0 == "province" || $0 == "prov" }) {
                let hits = values.count { Self.northAmericanRegions.contains($0) }
                if hits * 10 >= values.count * 9 { evidence = "\(header[index]) names US states or Canadian provinces on \(grouped(hits)) of \(grouped(values.count)) sampled rows"; break }
            }
        }
        // The place columns found by their values: a US state or Canadian province (by name, postal code
        // or FIPS code), a US county or an API number.
        if evidence == nil, let column = options.placeColumns.first(where: { $0.kind != .country }) {
            evidence = "\(column.column) names \(column.kind == .apiNumber ? "US API numbers" : column.kind == .county ? "US counties" : "US states or Canadian provinces")"
        }
        if evidence == nil, let first = datum.first, ["NAD27", "NAD83", "OLDHI"].contains(where: { first.hasPrefix($0) }) {
            evidence = "the datum column names \(first), a North American datum"
        }
        guard let evidence else {
            throw ImportError(.ambiguousCoordinates,
                "longitudes in \"\(lonColumn)\" are DMS without a sign or hemisphere letter, and no country, state or datum column says "
                    + "which hemisphere they are in", remedy: .impliedHemisphere, file: file, column: lonColumn)
        }
        options.coordinates.impliedWest = true
        inferences.append(Inference(subject: "hemisphere", column: lonColumn, value: "west (unsigned longitudes negated)",
                                    evidence: evidence, override: options.describeRemedy(.impliedEast)))
    }

    /// US state and Canadian province abbreviations.
    static let northAmericanRegions: Set<String> = Set((
        "AL AK AZ AR CA CO CT DE DC FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH NJ NM NY NC ND OH OK OR PA RI SC SD "
            + "TN TX UT VT VA WA WV WI WY PR GU AS VI MP AB BC MB NB NL NS NT NU ON PE QC SK YT").split(separator: " ").map(String.init))
}

extension Array where Element: Hashable {
    /// The elements in order, each only the first time it appears.
    func uniqued() -> [Element] {
        var seen = Set<Element>()
        return filter { seen.insert($0).inserted }
    }
}
