import Foundation

// When every record of a file was rejected: the error that says why, with the reading that would
// load the rows when one does (swapped columns, scaled degrees, a decimal comma).

extension ScannedFile {
    /// The error for a file whose every record was rejected: the commonest reason, an example, and
    /// for coordinates that are all swapped, the mapping that loads them.
    func nothingLoaded() -> ImportError {
        let counts = rejects.kinds.sorted { ($0.value, $1.key.rawValue) > ($1.value, $0.key.rawValue) }
        let (kind, count) = counts[0]
        let example = rejects.first { $0.kind == kind }!
        var fix: PlacementFix?
        if kind == .coordinatesSwapped, let lat = mapping.column(for: .latitude), let lon = mapping.column(for: .longitude) {
            fix = PlacementFix(slip: "the latitude and longitude columns are swapped", fits: count, checked: rejects.count,
                               mapping: ["lat": lon, "lon": lat])
        } else if kind == .latitudeOutOfRange || kind == .longitudeOutOfRange {
            fix = scaledDegreesFix()
        } else if kind == .coordinateNotANumber {
            fix = decimalCommaFix()
        }
        return ImportError(
            .nothingLoaded,
            "none of the \(grouped(summary.records)) records loaded; the commonest reason (\(grouped(count)) rows) is \(kind.rawValue), "
                + "for example line \(example.line): \(example.reason)." + (fix.map { " It looks as if \($0.slip)." } ?? ""),
            remedy: fix.map { .relocate($0) }, file: summary.file, line: example.line, column: example.column)
    }

    /// The stop for a file most of whose rows were rejected with longitudes from 180 to 360, though
    /// some were in range: longitudes written 0–360 east, as climate and ocean data write them, of a
    /// list whose few wells between 0° and 180°E loaded while the rest (99.98% of one such list)
    /// were rejected with exit 0 and no word of ``CoordinateOptions/longitudes0To360``, which
    /// ``nothingLoaded()`` offers only when every row is rejected. nil when it is not such a file.
    func longitudes0To360Stop() -> ImportError? {
        let outOfRange = rejects.kinds[.longitudeOutOfRange] ?? 0
        guard !records.isEmpty, outOfRange * 2 > summary.records, var fix = scaledDegreesFix(), fix.longitudes0To360 else { return nil }
        fix.slip = fix.slip.replacingOccurrences(of: "sampled rows are in range",
                                                 with: "sampled rows rejected as out of range are in range")
        return ImportError(
            .misplaced,
            "\(grouped(outOfRange)) of \(grouped(summary.records)) records have a longitude over 180 (\(grouped(records.count)) loaded, in range): "
                + "it looks as if \(fix.slip).",
            remedy: .relocate(fix), file: summary.file)
    }

    /// For a file whose rows were rejected with a latitude or longitude out of range: the reading that
    /// puts at least 90% of a sample of them in range, if one does: longitudes from 0 to 360, or
    /// degrees written as whole numbers (fixed-point, as some databases keep them), divided by the
    /// smallest power of ten that brings both columns in range. Projected metres can look like the
    /// second (500000, 4000000 are 5° and 40° times 100,000), so whole numbers only, and the slip
    /// says where the wells land when read so, for the user to judge; the place check of the load
    /// with the fix checks them against the file's evidence as any load.
    func scaledDegreesFix() -> PlacementFix? {
        let coordinates = validator.coordinates
        guard !validator.projected, !coordinates.dms, validator.pointIndex == nil, coordinates.degreeDivisor == nil, coordinates.minutesAndSeconds == nil,
              !coordinates.longitudes0To360 else { return nil }
        let texts = coordinateTexts(of: [.latitudeOutOfRange, .longitudeOutOfRange])
        func number(_ text: String) -> Double? {
            Double((coordinates.decimalComma ? text.replacingOccurrences(of: ",", with: ".") : text).trimmingSpaces())
        }
        let values = texts.compactMap { text in number(text.lat).flatMap { lat in number(text.lon).map { (lat: lat, lon: $0) } } }
        guard !values.isEmpty, values.count * 10 >= texts.count * 9 else { return nil }
        func mostly(_ test: ((lat: Double, lon: Double)) -> Bool) -> Bool { values.count(where: test) * 10 >= values.count * 9 }
        var fix: PlacementFix
        let reading: ((lat: Double, lon: Double)) -> (lat: Double, lon: Double)
        if mostly({ abs($0.lat) <= 90 && $0.lon > 180 && $0.lon <= 360 }) {
            fix = PlacementFix(slip: "the longitudes run from 0 to 360 east", longitudes0To360: true)
            reading = { ($0.lat, $0.lon > 180 ? $0.lon - 360 : $0.lon) }
        } else if mostly({ Self.compactDMS($0.lat) != nil && Self.compactDMS($0.lon) != nil }) {
            // 362810 and -851541 are 36°28'10" and 85°15'41"W run together (DDMMSS), as --no-infer leaves
            // them: read as degrees times 10,000 they would land 20 to 40 km away, inside the same state.
            fix = PlacementFix(slip: "the coordinates are degrees, minutes and seconds run together (DDMMSS)", dms: true)
            reading = { (Self.compactDMS($0.lat) ?? .nan, Self.compactDMS($0.lon) ?? .nan) }
        } else if texts.count(where: { !$0.lat.contains(".") && !$0.lon.contains(".") }) * 10 >= texts.count * 9,
                  let power = (1...9).first(where: { k in
                      let divisor = pow(10, Double(k))
                      return mostly { abs($0.lat) <= 90 * divisor && abs($0.lon) <= 180 * divisor && ($0.lat != 0 || $0.lon != 0) }
                  }) {
            let divisor = pow(10, Double(power))
            fix = PlacementFix(slip: "the coordinates are degrees written as whole numbers, times \(grouped(Int(divisor)))", degreeDivisor: divisor)
            reading = { ($0.lat / divisor, $0.lon / divisor) }
        } else {
            return nil
        }
        let read = values.map(reading)
        fix.fits = read.count { abs($0.lat) <= 90 && abs($0.lon) <= 180 }
        fix.checked = values.count
        fix.slip += ": read so, \(grouped(fix.fits)) of \(grouped(fix.checked)) sampled rows are in range"
        if let places = Places.shared {
            fix.slip += " and land in " + Landing.of(read, places).prefix(3).map(\.description).joined(separator: ", ")
        }
        return fix
    }

    /// The latitude and longitude text of up to 400 of the rejects of `kinds`, spread through them, split anew from their raw text.
    private func coordinateTexts(of kinds: Set<RejectKind>) -> [(lat: String, lon: String)] {
        let scanner = CSVScanner(delimiter: delimiter)
        var spans: [FieldSpan] = []
        var texts: [(lat: String, lon: String)] = []
        let counts = rejects.kinds, matching = kinds.reduce(0) { $0 + (counts[$1] ?? 0) }
        let step = max(1, matching / 400)
        var seen = 0
        for reject in rejects where kinds.contains(reject.kind) {
            seen += 1
            guard (seen - 1) % step == 0 else { continue }
            Array(reject.raw.utf8).withUnsafeBufferPointer { bytes in
                _ = scanner.scan(bytes, from: 0, to: bytes.count, atEOF: true, line: reject.line, fields: &spans)
                let fields = RecordFields(buffer: bytes, spans: spans)
                if max(validator.latIndex, validator.lonIndex) < fields.count {
                    texts.append((fields.text(validator.latIndex), fields.text(validator.lonIndex)))
                }
            }
        }
        return texts
    }

    /// For a file whose rows were all rejected as coordinates that are not numbers: a decimal comma,
    /// when at least 90% of a sample of them read so in range. A comma-separated file gets no such
    /// inference (a comma in its numbers may as well group thousands: `1,234`), so
    /// `"36,469556","-85,261306"`, quoted as a spreadsheet exports them, stopped with no way out.
    func decimalCommaFix() -> PlacementFix? {
        let coordinates = validator.coordinates
        guard !validator.projected, !coordinates.dms, !coordinates.decimalComma, validator.pointIndex == nil else { return nil }
        let texts = coordinateTexts(of: [.coordinateNotANumber])
        let read = texts.compactMap { text -> (lat: Double, lon: Double)? in
            guard text.lat.contains(","), text.lon.contains(","), let lat = ValueParsing.decimalComma(text.lat), let lon = ValueParsing.decimalComma(text.lon),
                  abs(lat) <= 90, abs(lon) <= 180 else { return nil }
            return (lat, lon)
        }
        guard !read.isEmpty, read.count * 10 >= texts.count * 9, let example = texts.first(where: { $0.lat.contains(",") }) else { return nil }
        var fix = PlacementFix(slip: "the numbers are written with a decimal comma (\(example.lat), \(example.lon))", fits: read.count, checked: texts.count,
                               decimalComma: true)
        fix.slip += ": read so, \(grouped(read.count)) of \(grouped(texts.count)) sampled rows are in range"
        if let places = Places.shared {
            fix.slip += " and land in " + Landing.of(read, places).prefix(3).map(\.description).joined(separator: ", ")
        }
        return fix
    }

    /// A whole number of 5 to 7 digits read as degrees, minutes and seconds run together (DDMMSS,
    /// DDDMMSS) by ``DMS``, as degrees; nil when it is not one (minutes or seconds of 60 or more).
    static func compactDMS(_ value: Double) -> Double? {
        guard value == value.rounded(), (10_000..<10_000_000).contains(abs(value)) else { return nil }
        return DMS.degrees(String(Int64(value)))
    }
}
