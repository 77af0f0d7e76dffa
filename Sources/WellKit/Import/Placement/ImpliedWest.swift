// `--implied-west` (``CoordinateOptions/impliedWest``) reads every unsigned longitude as west, as a
// list whose minus signs were lost needs; but a list may hold wells that are rightly east and
// unsigned: Alaska's Attu and Kiska wells at 173°E, beyond the antimeridian from the rest of the
// state. Read west they moved 800 km into the Bering Sea with no flag (at sea within
// ``Places/seaTolerance`` of Alaska, which the place check allows offshore wells).

extension ScannedFile {
    /// Among `outside` (the wells outside the places their rows name), those that `--implied-west`
    /// read west from an unsigned longitude, and whose row's place (a state, county, country or API
    /// number column) holds them as written, east, and not as read: each is put back east. Only a
    /// place column decides it: without one nothing says where a well belongs, and the wells read
    /// west into the open sea are flagged instead (``impliedSignsAtSea(_:)``).
    ///
    /// - Returns: The wells kept east, by record index.
    mutating func keepEastWhereRowsSay(_ outside: [Int], regions: [ExpectedRegion], regionOf: [Int32], places: Places,
                                       options: LoadOptions) -> [Int] {
        guard options.coordinates.impliedWest, !options.placeColumns.isEmpty, !validator.projected else { return [] }
        let candidates = outside.filter { k in
            let (lat, lon) = records.coordinates(k)
            let region = regions[Int(regionOf[k])]
            guard lon < 0, region.box == nil, !region.coarse else { return false }
            return region.distance(places, latitude: lat, longitude: -lon) <= region.tolerance
                && region.distance(places, latitude: lat, longitude: lon) > region.tolerance
        }
        // A few wells rightly east among many read west (Attu's) are kept east; when most would be,
        // the option itself is wrong for the list (given by habit to wells across India), and the
        // place check's stop says so with the command without it.
        guard !candidates.isEmpty, candidates.count * 2 < records.count else { return [] }
        // Written unsigned, not `-173.2` or `173.2W`: the record read again without the option.
        var coordinates = validator.coordinates
        coordinates.impliedWest = false
        let asWritten = RecordValidator(mapping: validator.mapping, file: validator.fileLabel, fileTag: validator.fileTag,
                                        coordinates: coordinates, describe: validator.describe)
        let scanner = CSVScanner(delimiter: delimiter)
        var spans: [FieldSpan] = [], datums = RecordValidator.DatumMemo()
        var kept: [Int] = []
        let buffer = file.bytes
        for k in candidates {
            let record = records[k]
            _ = scanner.scan(buffer, from: record.range.lowerBound, to: record.range.upperBound, atEOF: true, line: record.line, fields: &spans)
            CSVScanner.padTrailing(&spans, to: validator.header.count)
            guard case .success(let written) = asWritten.locate(RecordFields(buffer: buffer, spans: spans), issue: nil, line: record.line,
                                                                 range: record.range, missingIdentifier: .generate, datums: &datums),
                  written.lon > 0, abs(written.lon + record.lon) < 1e-9 else { continue }
            records.setCoordinates(k, lat: record.lat, lon: written.lon)
            kept.append(k)
        }
        guard let first = kept.first else { return [] }
        let lines = kept.prefix(5).map { "\(records[$0].line)" }.joined(separator: ", ") + (kept.count > 5 ? ", …" : "")
        let region = regions[Int(regionOf[first])]
        summary.warnings.append(
            "\(grouped(kept.count)) unsigned longitude\(kept.count == 1 ? "" : "s") kept east, not read west as \(validator.describe(.impliedWest)) reads "
                + "the others: \(kept.count == 1 ? "its row's place holds it" : "their rows' places hold them") as written and not read west "
                + "(line\(kept.count == 1 ? "" : "s") \(lines); \(region.listed ?? region.name)\(kept.count > 1 ? " and the like" : ""))")
        return kept
    }
}
