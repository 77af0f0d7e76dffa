/// Turns the records of one file into wells ready to store, or into rejects with reasons.
///
/// It works in two steps, on the record's field spans over the mapped file:
///
/// - ``locate(_:issue:line:range:missingIdentifier:)`` decides whether a record is a well: it
///   reads the coordinates and the identifier, and rejects a record only for what makes it unusable
///   as a pin: malformed quoting, a wrong field count, or missing, unparseable, out-of-range or 0/0
///   coordinates (and, by rule, an empty identifier).
/// - ``RowBuilder`` makes a located record's row: the typed detail values and the JSON of the rest.
///   A detail value that does not parse (a depth of "NA", a date of "2001-13-45") keeps its raw
///   text in `details.extra` and is counted, but does not reject the well.
struct RecordValidator: Sendable {
    let mapping: ColumnMapping
    let header: [String]
    /// The file's name without its directory, the `FILE` of generated identifiers.
    let fileLabel: String
    /// Eight hex digits that tell this file's contents from another's of the same name (``fileTag(header:firstRecord:)``).
    let fileTag: String
    let detailSlots: [(field: WellField, index: Int?)]
    /// Per detail slot, the format of a date field's column (``DateColumns``, decided once per
    /// load); nil for other fields. Until decided, the unambiguous forms only.
    var dateFormats: [DateFormat?] = WellField.detailValueFields.map { $0.kind == .date ? .unambiguous : nil }
    /// The day of the load, for two-digit years.
    var today = DateFormat.Today.now
    /// Per detail slot, the factor that stores its number in metres (``LengthUnits/factors``): 0.3048 for feet, else 1.
    let lengthFactors: [Double]
    let extraIndices: [Int]
    let latIndex: Int, lonIndex: Int
    /// The column with both coordinates (``CoordinateOptions/pointColumn``); `latIndex` and `lonIndex` are it too.
    let pointIndex: Int?
    /// The minutes and seconds columns of each coordinate (``CoordinateOptions/minutesAndSeconds``), nil for none.
    let latitudeParts: Parts, longitudeParts: Parts
    typealias Parts = (minutes: Int?, seconds: Int?)
    let idIndex: Int?, nameIndex: Int?
    let coordinates: CoordinateOptions
    private let datumIndex: Int?
    /// Numbers have a decimal comma (``CoordinateOptions/decimalComma``).
    let decimalComma: Bool
    /// ``CoordinateOptions/datumLookup``, made once.
    private let datumLookup: [String: String]
    /// Every CRS a record's coordinates may be in; ``ScannedRecord/Source/crs`` indexes it.
    let crsNames: [String]
    /// Words a remedy in a reject's reason (``LoadOptions/describeRemedy``).
    let describe: @Sendable (LoadRemedy) -> String
    /// The values are projected x and y, not degrees (``CoordinateOptions/valuesAreProjected``): asked of
    /// PROJ once a load, here, for the rows and for the place check's readings.
    let projected: Bool

    /// - Parameter file: The file as the user named it: its name goes into generated identifiers.
    init(mapping: ColumnMapping, file: String, fileTag: String = "", coordinates: CoordinateOptions = CoordinateOptions(),
         lengthFactors: [Double]? = nil, describe: @escaping @Sendable (LoadRemedy) -> String = { $0.apiText }) {
        self.fileTag = fileTag
        self.lengthFactors = lengthFactors ?? Array(repeating: 1, count: WellField.detailValueFields.count)
        self.mapping = mapping
        self.describe = describe
        self.coordinates = coordinates
        self.header = mapping.header
        self.fileLabel = file.split(separator: "/").last.map(String.init) ?? file
        detailSlots = WellField.detailValueFields.map { ($0, mapping.indices[$0]) }
        extraIndices = mapping.unmappedIndices.filter { !coordinates.generatedColumns.contains(mapping.header[$0]) }
        // --x/--y name the coordinate columns directly; otherwise the mapped lat/lon columns.
        pointIndex = coordinates.pointColumn.flatMap { mapping.header.firstIndex(of: $0) }
        latIndex = pointIndex ?? coordinates.yColumn.flatMap { mapping.header.firstIndex(of: $0) } ?? mapping.indices[.latitude]!
        lonIndex = pointIndex ?? coordinates.xColumn.flatMap { mapping.header.firstIndex(of: $0) } ?? mapping.indices[.longitude]!
        let split = pointIndex == nil ? coordinates.minutesAndSeconds : nil
        func index(_ column: String?) -> Int? { column.flatMap { mapping.header.firstIndex(of: $0) } }
        latitudeParts = (index(split?.latitudeMinutes), index(split?.latitudeSeconds))
        longitudeParts = (index(split?.longitudeMinutes), index(split?.longitudeSeconds))
        datumIndex = coordinates.datumColumn.flatMap { mapping.header.firstIndex(of: $0) }
        idIndex = mapping.indices[.identifier]
        nameIndex = mapping.indices[.name]
        crsNames = Array(Set([coordinates.crs ?? "EPSG:4326"] + coordinates.datums.values)).sorted()
        datumLookup = coordinates.datumLookup
        decimalComma = coordinates.decimalComma
        projected = coordinates.valuesAreProjected
    }

    /// The datums one parser's rows named, each resolved once: its CRS, that CRS's place in
    /// ``crsNames`` and the transformer to EPSG:4326 (none for EPSG:4326 itself); nil for a datum
    /// the lookup lacks. Resolving each row's cell anew (its key, the CRS names, the transformer
    /// cache's lookup) was a large share of a load of NWIS's Pennsylvania list (`perf`).
    struct DatumMemo {
        struct Resolved {
            var crs: String
            /// The CRS's place in ``RecordValidator/crsNames`` (-1 for EPSG:4326, which needs no source kept).
            var index: Int
            var transformer: Result<CoordinateTransformer, any Error>?
        }

        /// The distinct cells kept; a file of more resolves the rest row by row.
        static let capacity = 64
        fileprivate var resolved: [String: Resolved?] = [:]
    }

    private func resolveDatum(_ datum: String?) -> DatumMemo.Resolved? {
        guard let crs = coordinates.crs(forDatum: datum, in: datumLookup) else { return nil }
        guard crs != "EPSG:4326" else { return DatumMemo.Resolved(crs: crs, index: -1, transformer: nil) }
        return DatumMemo.Resolved(crs: crs, index: crsNames.firstIndex(of: crs)!,
                                  transformer: Result { try TransformCache.shared.transformer(from: crs, to: "EPSG:4326") })
    }

    /// Decides whether a record is a well, and where it is.
    ///
    /// - Parameters:
    ///   - range: The record's bytes in the file, kept to build its row and to fetch its raw text later.
    ///   - datums: The datums this parser's rows named so far, resolved (``DatumMemo``).
    func locate(_ fields: RecordFields, issue: CSVIssue?, line: Int, range: Range<Int>,
                missingIdentifier: LoadOptions.MissingIdentifierRule, datums: inout DatumMemo) -> Result<ScannedRecord, RejectReason> {
        if let issue {
            return .failure(RejectReason(column: header.indices.contains(issue.field) ? header[issue.field] : nil,
                                         kind: .malformedQuoting, reason: issue.description))
        }
        guard fields.count == header.count else {
            return .failure(RejectReason(
                column: nil, kind: .wrongFieldCount,
                reason: "expected \(header.count) fields as in the header, found \(fields.count); quote values that contain the delimiter"))
        }
        var lat: Double, lon: Double
        if let pointIndex {
            switch point(fields, pointIndex) {
            case .failure(let reason): return .failure(reason)
            case .success(let p): (lat, lon) = (coordinates.impliedSouth && !projected && p.y > 0 ? -p.y : p.y,
                                                coordinates.impliedWest && !projected && p.x > 0 ? -p.x : p.x)
            }
        } else {
        switch (coordinate(fields, latIndex, projected ? "y" : "latitude", example: projected ? "4275692" : "36.9003",
                           hemisphere: coordinates.impliedSouth && !projected ? .south : nil, parts: latitudeParts),
                coordinate(fields, lonIndex, projected ? "x" : "longitude", example: projected ? "501562" : "-85.2613",
                           hemisphere: coordinates.impliedWest && !projected ? .west : nil, parts: longitudeParts)) {
        case (.failure(let reason), _), (_, .failure(let reason)): return .failure(reason)
        case (.success(let la), .success(let lo)): (lat, lon) = (la, lo)
        }
        }
        if !projected {
            if let divisor = coordinates.degreeDivisor { (lat, lon) = (lat / divisor, lon / divisor) }
            if coordinates.longitudes0To360 && lon > 180 && lon <= 360 { lon -= 360 }
        }
        var source: ScannedRecord.Source?
        if coordinates.needsTransform {
            let datum = datumIndex.map { fields.text($0) }
            let resolved: DatumMemo.Resolved?
            if let known = datums.resolved[datum ?? ""] {
                resolved = known
            } else {
                resolved = resolveDatum(datum)
                if datums.resolved.count < DatumMemo.capacity { datums.resolved[datum ?? ""] = resolved }
            }
            guard let resolved else {
                return .failure(RejectReason(
                    column: datumIndex.map { header[$0] }, kind: .unknownDatum,
                    reason: "datum \"\(datum ?? "")\" is not one of \(coordinates.datums.keys.sorted().joined(separator: ", ")); map it with \(describe(.mapDatum))"))
            }
            if let toWGS84 = resolved.transformer {
                do {
                    let transformer = try toWGS84.get()
                    source = ScannedRecord.Source(x: lon, y: lat, crs: resolved.index)
                    (lon, lat) = try transformer.transform(x: lon, y: lat)
                } catch {
                    return .failure(RejectReason(
                        column: header[lonIndex], kind: .notTransformable,
                        reason: "(\(fields.text(lonIndex)), \(fields.text(latIndex))) could not be converted from \(resolved.crs) to EPSG:4326: \(error)"))
                }
            }
        }
        if !(-90...90).contains(lat) {
            let swapped = (-90...90).contains(lon) && (-180...180).contains(lat)
            return .failure(RejectReason(
                column: header[latIndex], kind: swapped ? .coordinatesSwapped : .latitudeOutOfRange,
                reason: "latitude \(fields.text(latIndex))\(divided(lat)) is outside -90…90"
                    + (swapped ? "; latitude and longitude look swapped (longitude is \(fields.text(lonIndex)))" : "")))
        }
        if !(-180...180).contains(lon) {
            return .failure(RejectReason(
                column: header[lonIndex], kind: .longitudeOutOfRange,
                reason: "longitude \(fields.text(lonIndex))\(divided(lon)) is outside -180…180; expected decimal degrees, negative west of Greenwich"))
        }
        if lat == 0 && lon == 0 {
            return .failure(RejectReason(
                column: header[latIndex], kind: .zeroCoordinates,
                reason: "latitude and longitude are both 0, a placeholder for an unknown location"))
        }
        guard ScannedRecord.fits(length: range.count, line: line) else {
            // Only a quote left open for gigabytes makes a record this long.
            return .failure(RejectReason(column: nil, kind: .malformedQuoting,
                                         reason: "the record is \(range.count) bytes long; close the quote it opens"))
        }
        var record = ScannedRecord(range: range, line: line, lat: lat, lon: lon, identifier: nil, hash: 0, source: source)
        if let idIndex, !fields.isEmpty(idIndex) {
            record.identifier = fields.spans[idIndex]
            record.hash = fields.withText(idIndex) { DuplicateIdentifiers.fnv1a($0) }
        } else {
            guard missingIdentifier == .generate else {
                return .failure(RejectReason(
                    column: idIndex.map { header[$0] }, kind: .missingIdentifier,
                    reason: "the identifier is empty; fill it in, or load with \(describe(.generateMissingIdentifiers))"))
            }
            var generated = generatedIdentifier(line: line)
            record.hash = generated.withUTF8 { DuplicateIdentifiers.fnv1a($0) }
        }
        return .success(record)
    }

    /// How a coordinate out of range was read, when the load divides them (``CoordinateOptions/degreeDivisor``): " ÷ 100000 = 364.69556".
    private func divided(_ value: Double) -> String {
        guard let divisor = coordinates.degreeDivisor, !projected else { return "" }
        return " ÷ \(LoadRemedy.number(divisor)) = \(value)"
    }

    /// The same validator with the identifier column kept as an attribute: every record gets a generated identifier.
    func withoutIdentifier() -> RecordValidator {
        RecordValidator(mapping: mapping.without(.identifier), file: fileLabel, fileTag: fileTag, coordinates: coordinates,
                        lengthFactors: lengthFactors, describe: describe)
    }

    /// The identifier a record without one gets: `FILE@TAG:LINE`, stable across reloads of the same
    /// file, where the same file is one of the same name whose header and first record are the same
    /// (``fileTag(header:firstRecord:)``): two different lists both called `wells.csv`, or two
    /// different streams on standard input, get different identifiers and add up.
    func generatedIdentifier(line: Int) -> String { fileTag.isEmpty ? "\(fileLabel):\(line)" : "\(fileLabel)@\(fileTag):\(line)" }

    /// Eight hex digits of FNV-1a over the header's and the first record's fields: what tells two
    /// files of one name apart, and stays the same when later rows are corrected or appended.
    static func fileTag(header: [String], firstRecord: [String]?) -> String {
        var text = header.joined(separator: "\u{1F}") + "\u{1E}" + (firstRecord ?? []).joined(separator: "\u{1F}")
        let hash = text.withUTF8 { DuplicateIdentifiers.fnv1a($0) }
        let folded = UInt32(truncatingIfNeeded: hash ^ (hash >> 32))
        let hex = String(folded, radix: 16)
        return String(repeating: "0", count: 8 - hex.count) + hex
    }

    /// Both coordinates from one column (``PointText``), as x and y.
    private func point(_ fields: RecordFields, _ index: Int) -> Result<(x: Double, y: Double), RejectReason> {
        if fields.isEmpty(index) {
            return .failure(RejectReason(column: header[index], kind: .missingCoordinates, reason: "the point is empty; every well needs coordinates"))
        }
        let text = fields.text(index)
        guard let p = PointText.parse(text, decimalComma: decimalComma) else {
            if let unreadable = UnreadableCoordinate(text) { return .failure(unreadable.rejectReason(column: header[index])) }
            return .failure(RejectReason(column: header[index], kind: .coordinateNotANumber,
                                         reason: "\"\(text.prefix(200))\" is not a point; expected POINT (-97.5 35.4), (35.4, -97.5) or 35°24'N 97°30'W"))
        }
        if let srid = p.srid, srid != 4326, "EPSG:\(srid)" != coordinates.crs {
            return .failure(RejectReason(column: header[index], kind: .notTransformable,
                                         reason: "the point is in SRID \(srid); load with --crs EPSG:\(srid)"))
        }
        return .success((p.x, p.y))
    }

    private func coordinate(_ fields: RecordFields, _ index: Int, _ what: String, example: String, hemisphere: DMS.Hemisphere?,
                            parts: Parts) -> Result<Double, RejectReason> {
        if fields.isEmpty(index) {
            return .failure(RejectReason(column: header[index], kind: .missingCoordinates,
                                         reason: "\(what) is empty; every well needs coordinates"))
        }
        if coordinates.dms {
            let text = fields.text(index)
            do {
                return .success(try DMS.parse(text, impliedHemisphere: hemisphere))
            } catch {
                return .failure(RejectReason(column: header[index], kind: .coordinateNotANumber,
                                             reason: "\"\(text)\" is not degrees-minutes-seconds: \(error.reason)"))
            }
        }
        // Two calls rather than one with a chosen function: each inlines its parser (a function value does not).
        guard var value = decimalComma ? fields.withBytes(index, ValueParsing.decimalComma) : fields.withBytes(index, ValueParsing.decimal) else {
            if let unreadable = UnreadableCoordinate(fields.text(index)) { return .failure(unreadable.rejectReason(column: header[index])) }
            return .failure(RejectReason(column: header[index], kind: .coordinateNotANumber,
                                         reason: "\"\(fields.text(index))\" is not a number; expected "
                                            + (parts.minutes == nil ? "decimal degrees such as \(example)" : "whole degrees such as \(Int(Double(example) ?? 0))")))
        }
        if let minutes = parts.minutes {
            switch degrees(value, index, what, minutes: minutes, seconds: parts.seconds, fields) {
            case .success(let combined): value = combined
            case .failure(let reason): return .failure(reason)
            }
        }
        // --implied-west (--implied-south): a decimal longitude (latitude) without its minus sign is west (south) too.
        return .success(hemisphere?.sign == -1 && value > 0 ? -value : value)
    }
}

extension RecordValidator {
    /// Whole degrees `value` (of the column at `index`) with the minutes and seconds of their own
    /// columns: |degrees| + minutes / 60 + seconds / 3600, with the degrees' sign (`-0` keeps its minus).
    /// An empty minutes or seconds cell is 0.
    fileprivate func degrees(_ value: Double, _ index: Int, _ what: String, minutes: Int, seconds: Int?,
                             _ fields: RecordFields) -> Result<Double, RejectReason> {
        guard value == value.rounded(.towardZero) else {
            return .failure(RejectReason(column: header[index], kind: .coordinateNotANumber,
                                         reason: "\(what) degrees \"\(fields.text(index))\" have a fraction, but their minutes are in "
                                            + "\(header[minutes]); expected whole degrees beside minutes and seconds"))
        }
        var magnitude = abs(value)
        for (part, scale, name) in [(minutes, 60.0, "minutes"), (seconds ?? -1, 3_600.0, "seconds")] where part >= 0 && !fields.isEmpty(part) {
            guard let amount = decimalComma ? fields.withBytes(part, ValueParsing.decimalComma) : fields.withBytes(part, ValueParsing.decimal),
                  amount >= 0, amount < 60 else {
                return .failure(RejectReason(column: header[part], kind: .coordinateNotANumber,
                                             reason: "\(what) \(name) \"\(fields.text(part))\" are not a number from 0 to under 60"))
            }
            magnitude += amount / scale
        }
        return .success(value.sign == .minus ? -magnitude : magnitude)
    }
}

/// Why a record was rejected.
struct RejectReason: Error, Equatable {
    var column: String?
    var kind: RejectKind
    var reason: String
}

// Here, not beside UnreadableCoordinate in PointText.swift: the values fuzzer compiles that file without the validator.
extension UnreadableCoordinate {
    /// The reject: its kind and its reason, naming the column's value.
    func rejectReason(column: String?) -> RejectReason {
        switch self {
        case .missing(let text):
            RejectReason(column: column, kind: .missingCoordinates,
                         reason: "\"\(text)\" says the location is not known; every well needs coordinates")
        case .legalDescription(let text):
            RejectReason(column: column, kind: .legalDescription,
                         reason: "\"\(text.prefix(200))\" is a PLSS legal description (section, township, range), not coordinates; "
                            + "give the well's latitude and longitude, or leave the row out")
        }
    }
}
