/// Turns the records of one file into wells ready to store, or into rejects with reasons.
///
/// A record is rejected only for what makes it unusable as a pin: malformed quoting, a wrong
/// field count, or missing, unparseable, out-of-range or 0/0 coordinates. A detail value that
/// does not parse (a depth of "NA", a date of "2001-13-45") keeps its raw text in
/// `details.extra` and is counted, but does not reject the well.
struct RecordValidator: Sendable {
    let mapping: ColumnMapping
    /// The header, in storage of this validator's own (see ``init(mapping:file:)``).
    private let header: [String]
    let file: String
    let fileLabel: String
    private let detailSlots: [(field: WellField, index: Int?)]
    private let extraIndices: [Int]
    private let latIndex: Int, lonIndex: Int
    private let idIndex: Int?, nameIndex: Int?
    private let coordinates: CoordinateOptions
    private let datumIndex: Int?

    /// Makes a validator whose strings and arrays share no storage with any other validator.
    ///
    /// Two validators run on two threads in ``PartitionedParse``; if they shared the header's
    /// string buffers, every retain and release would bounce one cache line between the cores
    /// (measured: the parallel parse was no faster than the sequential one).
    init(mapping: ColumnMapping, file: String, coordinates: CoordinateOptions = CoordinateOptions()) {
        self.mapping = mapping
        self.coordinates = coordinates
        self.header = mapping.header.map { String(decoding: Array($0.utf8), as: UTF8.self) }
        self.file = file
        self.fileLabel = file.split(separator: "/").last.map(String.init) ?? file
        detailSlots = StagedWell.detailFields.map { ($0, mapping.indices[$0]) }
        extraIndices = mapping.unmappedIndices
        // --x/--y name the coordinate columns directly; otherwise the mapped lat/lon columns.
        latIndex = coordinates.yColumn.flatMap { mapping.header.firstIndex(of: $0) } ?? mapping.indices[.latitude]!
        lonIndex = coordinates.xColumn.flatMap { mapping.header.firstIndex(of: $0) } ?? mapping.indices[.longitude]!
        datumIndex = coordinates.datumColumn.flatMap { mapping.header.firstIndex(of: $0) }
        idIndex = mapping.indices[.identifier]
        nameIndex = mapping.indices[.name]
    }

    /// Validates one record.
    func validate(_ record: CSVRecord, bytes: Range<Int>, missingIdentifier: LoadOptions.MissingIdentifierRule) -> Result<StagedWell, RejectReason> {
        if let issue = record.issue {
            return .failure(RejectReason(column: header.indices.contains(issue.field) ? header[issue.field] : nil,
                                         kind: "malformed quoting", reason: issue.description))
        }
        let fields = record.fields
        guard fields.count == header.count else {
            return .failure(RejectReason(
                column: nil, kind: "wrong field count",
                reason: "expected \(header.count) fields as in the header, found \(fields.count); quote values that contain the delimiter"))
        }
        var lat: Double, lon: Double
        let projected = coordinates.xColumn != nil
        switch (coordinate(fields, latIndex, projected ? "y" : "latitude", example: projected ? "4275692" : "36.9003", hemisphere: nil),
                coordinate(fields, lonIndex, projected ? "x" : "longitude", example: projected ? "501562" : "-85.2613",
                           hemisphere: coordinates.impliedWest ? .west : nil)) {
        case (.failure(let reason), _), (_, .failure(let reason)): return .failure(reason)
        case (.success(let la), .success(let lo)): (lat, lon) = (la, lo)
        }
        var source: (x: Double, y: Double, crs: String)?
        if coordinates.needsTransform {
            let datum = datumIndex.map { fields[$0] }
            guard let crs = coordinates.crs(forDatum: datum) else {
                return .failure(RejectReason(
                    column: datumIndex.map { header[$0] }, kind: "unknown datum",
                    reason: "datum \"\(datum ?? "")\" is not one of \(coordinates.datums.keys.sorted().joined(separator: ", ")); map it with --datum NAME=EPSG:CODE"))
            }
            if crs != "EPSG:4326" {
                do {
                    let transformer = try TransformCache.shared.transformer(from: crs, to: "EPSG:4326")
                    source = (lon, lat, crs)
                    (lon, lat) = try transformer.transform(x: lon, y: lat)
                } catch {
                    return .failure(RejectReason(
                        column: header[lonIndex], kind: "coordinates not transformable",
                        reason: "(\(fields[lonIndex]), \(fields[latIndex])) could not be converted from \(crs) to EPSG:4326: \(error)"))
                }
            }
        }
        if !(-90...90).contains(lat) {
            let swapped = (-90...90).contains(lon) && (-180...180).contains(lat)
            return .failure(RejectReason(
                column: header[latIndex], kind: swapped ? "coordinates swapped" : "latitude out of range",
                reason: "latitude \(fields[latIndex]) is outside -90…90"
                    + (swapped ? "; latitude and longitude look swapped (longitude is \(fields[lonIndex]))" : "")))
        }
        if !(-180...180).contains(lon) {
            return .failure(RejectReason(
                column: header[lonIndex], kind: "longitude out of range",
                reason: "longitude \(fields[lonIndex]) is outside -180…180; expected decimal degrees, negative west of Greenwich"))
        }
        if lat == 0 && lon == 0 {
            return .failure(RejectReason(
                column: header[latIndex], kind: "zero coordinates",
                reason: "latitude and longitude are both 0, a placeholder for an unknown location"))
        }
        var uwi = idIndex.map { fields[$0] } ?? ""
        if uwi.isEmpty {
            guard missingIdentifier == .generate else {
                return .failure(RejectReason(
                    column: idIndex.map { header[$0] }, kind: "missing identifier",
                    reason: "the identifier is empty; fill it in, or load with --on-missing-id generate"))
            }
            uwi = "\(fileLabel):\(record.line)"
        }
        var badSlots: UInt32 = 0
        var extra = ExtraJSON()
        var values = [DetailValue](repeating: .null, count: detailSlots.count)
        for (slot, (field, index)) in detailSlots.enumerated() {
            guard let index else { continue }
            let text = fields[index]
            if text.isEmpty { continue }
            switch field.kind {
            case .real:
                if let number = ValueParsing.number(text) { values[slot] = .real(number) } else { badSlots |= 1 << slot; extra.append(key: header[index], value: text) }
            case .date:
                if let date = ValueParsing.date(text) { values[slot] = .text(date) } else { badSlots |= 1 << slot; extra.append(key: header[index], value: text) }
            case .text, .integer:
                values[slot] = .text(text)
            }
        }
        for index in extraIndices where !fields[index].isEmpty {
            extra.append(key: header[index], value: fields[index])
        }
        let name = nameIndex.map { fields[$0] }
        return .success(StagedWell(
            line: record.line, bytes: bytes, uwi: uwi, name: name?.isEmpty == false ? name : nil,
            lat: lat, lon: lon, values: values, extra: extra.finished(), source: source,
            badSlots: badSlots, generatedIdentifier: idIndex.map { fields[$0].isEmpty } ?? true))
    }

    private func coordinate(_ fields: [String], _ index: Int, _ what: String, example: String, hemisphere: DMS.Hemisphere?) -> Result<Double, RejectReason> {
        let text = fields[index]
        if text.isEmpty {
            return .failure(RejectReason(column: header[index], kind: "missing coordinates",
                                         reason: "\(what) is empty; every well needs coordinates"))
        }
        if coordinates.dms {
            do {
                return .success(try DMS.parse(text, impliedHemisphere: hemisphere))
            } catch {
                return .failure(RejectReason(column: header[index], kind: "coordinate not a number",
                                             reason: "\"\(text)\" is not degrees-minutes-seconds: \(error.reason)"))
            }
        }
        guard let value = Double(text), value.isFinite else {
            return .failure(RejectReason(column: header[index], kind: "coordinate not a number",
                                         reason: "\"\(text)\" is not a number; expected decimal degrees such as \(example)"))
        }
        return .success(value)
    }
}

/// Why a record was rejected.
struct RejectReason: Error, Equatable {
    var column: String?
    var kind: String
    var reason: String
}

/// A typed detail value, bound to SQLite without going through `DatabaseValue`.
enum DetailValue: Equatable, Sendable {
    case null
    case text(String)
    case real(Double)
}

/// A validated well, waiting to be written.
///
/// A class, so that the load's passes over ~244,000 wells (partition merge, duplicate settling,
/// Hilbert sort, writing) copy one reference rather than retaining its ~20 strings each time:
/// the struct's copies were 12% of a load's CPU time in `perf`.
final class StagedWell: Sendable {
    /// The detail fields held in ``values``, in order: every detail field but the identifier.
    static let detailFields = WellField.detailFields.filter { $0 != .identifier }

    let line: Int
    /// Where the record is in the file, to fetch its raw text if it turns out to be a duplicate.
    let bytes: Range<Int>
    let uwi: String
    let name: String?
    let lat: Double
    let lon: Double
    let values: [DetailValue]
    let extra: String?
    /// The coordinates as the file gave them, when they were converted to EPSG:4326.
    let source: (x: Double, y: Double, crs: String)?
    /// Bit k is set when the value of `detailFields[k]` did not parse and went to `extra` as text.
    let badSlots: UInt32
    /// Whether the identifier was generated as FILE:LINE.
    let generatedIdentifier: Bool

    init(line: Int, bytes: Range<Int>, uwi: String, name: String?, lat: Double, lon: Double, values: [DetailValue],
         extra: String?, source: (x: Double, y: Double, crs: String)?, badSlots: UInt32 = 0, generatedIdentifier: Bool = false) {
        self.line = line
        self.bytes = bytes
        self.uwi = uwi
        self.name = name
        self.lat = lat
        self.lon = lon
        self.values = values
        self.extra = extra
        self.source = source
        self.badSlots = badSlots
        self.generatedIdentifier = generatedIdentifier
    }
}
