/// A place where a load's wells landed, and their share of the wells.
public struct Landing: Sendable, Codable, Equatable, CustomStringConvertible {
    /// The wells a load's landing is judged on, evenly spread through the file, at most.
    public static let sample = 1_000
    public var place: String
    /// From 0 to 1.
    public var share: Double

    public var description: String {
        let percent = share * 100
        return "\(place) " + (percent >= 1 || percent == 0 ? "\(Int(percent.rounded()))%" : "<1%")
    }

    /// Where `points` lie, by US state, else country, else "at sea", the commonest first.
    static func of(_ points: [(lat: Double, lon: Double)], _ places: Places) -> [Landing] {
        var counts: [String: Int] = [:]
        for point in points {
            let (country, state) = places.location(longitude: point.lon, latitude: point.lat)
            counts[state.map { "\($0.name), US" } ?? country.map { places.places[$0].name } ?? "at sea", default: 0] += 1
        }
        return counts.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.map { Landing(place: $0.key, share: Double($0.value) / Double(points.count)) }
    }
}

extension ScannedFile {
    /// Where the wells landed (``LoadSummary/landed``), judged on a sample spread through the file.
    ///
    /// A file with no place evidence (no place column, `--crs` or datum column) has nothing to check
    /// its wells against, so a US list whose minus signs were lost loaded in China with exit 0 and
    /// said nothing (Tennessee's list without its state, county and API columns). The load still goes
    /// on, since nothing in the file says the wells are not where they land, but it says where they
    /// landed, and warns when nine in ten of them lie east of 0° and, read west, would lie in one US state.
    mutating func describeLanding(_ options: LoadOptions) {
        guard !records.isEmpty, let places = Places.shared else { return }
        let clock = ContinuousClock.now
        defer { summary.phases["places", default: 0] += (ContinuousClock.now - clock).seconds }
        let step = (records.count + Landing.sample - 1) / Landing.sample
        let sample = stride(from: 0, to: records.count, by: step).map { records.coordinates($0) }
        func landing(_ points: [(lat: Double, lon: Double)]) -> [Landing] { Landing.of(points, places) }
        summary.landed = landing(sample)
        let coordinates = options.coordinates
        // Nothing checked: no place column, CRS or datum column, or a datum column that names WGS 84 alone.
        guard placesChecked == 0, options.placeColumns.isEmpty, !validator.projected, !coordinates.impliedWest, !coordinates.impliedEast,
              let first = summary.landed.first, !first.place.hasSuffix(", US"),
              sample.count(where: { $0.lon > 0 }) * 10 >= sample.count * 9,
              let west = landing(sample.map { ($0.lat, -abs($0.lon)) }).first, west.place.hasSuffix(", US"), west.share >= 0.9
        else { return }
        let landed = summary.landed.prefix(3).map(\.description).joined(separator: ", ")
        let unchecked = if let column = coordinates.datumColumn {
            "every row's datum (\(column)) is one used worldwide, such as WGS 84, and nothing else in the file names a place "
                + "(no state, county, country or API number column)"
        } else if let crs = coordinates.crs {
            "the CRS given, \(crs), is used worldwide, and nothing in the file names a place (no state, county, country, API number or datum column)"
        } else {
            "nothing in the file names a place (no state, county, country, API number or datum column, and no CRS given)"
        }
        summary.warnings.append(
            "\(unchecked), so where the wells land was not checked: they land in \(landed). Read with their longitudes west, \(Int((west.share * 100).rounded()))% "
                + "of them would lie in \(west.place): if that is where they belong, their minus signs were lost; load the file again "
                + "with \(validator.describe(.impliedWest)) (its wells are updated in place)")
    }
}
