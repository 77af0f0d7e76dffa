/// For a file with projected x/y columns and no latitude or longitude: the CRSs the columns could
/// be in, each with its evidence (the CLI shows the exact command to load with each). It never chooses one
/// silently: the loader fails with this list, and the user picks.
///
/// For example, Indiana's orphaned-wells list has `Utmx`/`Utmy` and `x`/`y`:
///
/// ```
/// EPSG:3857 for x/y: as WGS 84 / Pseudo-Mercator the points fall around 39.1°N 86.9°W
/// EPSG:26916 for Utmx/Utmy: UTM zone 16N, where x/y put the points; agrees with x/y as EPSG:3857 within 1.3 m
/// ```
struct ProjectedCandidates {
    let header: [String]
    let sample: [[String]]
    let file: String
    /// The columns naming each row's state or country: candidates are ranked by how many sampled
    /// wells they put inside their rows' places, and one that puts most outside is never offered.
    var placeColumns: [PlaceColumn] = []
    /// The column of WKT points the candidates are for (``ofPoints(_:header:sample:file:placeColumns:decimalComma:)``),
    /// when the file has no x/y columns: its points' x and y are the last two columns of ``header``.
    var pointColumn: String?

    /// The candidates for a column of WKT points of projected values (an ArcGIS export's
    /// `geometry` in UTM metres): the same search as for x/y columns, on the points' x and y as
    /// two more columns, `COLUMN:x` and `COLUMN:y`, judged by the same place columns.
    static func ofPoints(_ index: Int, header: [String], sample: [[String]], file: String, placeColumns: [PlaceColumn],
                        decimalComma: Bool) -> ProjectedCandidates {
        let name = header[index]
        let rows = sample.map { row -> [String] in
            let point = index < row.count ? PointText.parse(row[index], decimalComma: decimalComma) : nil
            return row + [point.map { "\($0.x)" } ?? "", point.map { "\($0.y)" } ?? ""]
        }
        return ProjectedCandidates(header: header + [name + ":x", name + ":y"], sample: rows, file: file, placeColumns: placeColumns,
                                   pointColumn: name)
    }

    struct Candidate: Equatable {
        var crs: String
        var xColumn: String
        var yColumn: String
        var evidence: String
    }

    /// Column pairs whose names differ by x ↔ y (`Utmx`/`Utmy`, `X_COORD`/`Y_COORD`) or are easting/northing.
    func pairs() -> [(x: Int, y: Int)] {
        var result: [(x: Int, y: Int)] = []
        for (x, name) in header.enumerated() {
            let lower = name.lowercased()
            var partners: [String] = []
            if let r = lower.range(of: "x", options: .backwards) { partners.append(lower.replacingCharacters(in: r, with: "y")) }
            if lower.contains("easting") { partners.append(lower.replacingOccurrences(of: "easting", with: "northing")) }
            guard !partners.isEmpty,
                  let y = header.firstIndex(where: { $0.lowercased() != lower && partners.contains($0.lowercased()) }) else { continue }
            result.append((x, y))
        }
        return result
    }

    /// The numbers in a column, or nil when fewer than 90% of its non-empty values are numbers.
    private func numbers(_ index: Int) -> [Double]? {
        let values = sample.map { $0[index] }.filter { !$0.isEmpty }
        let numbers = values.compactMap(ValueParsing.number)
        guard !numbers.isEmpty, numbers.count * 10 >= values.count * 9 else { return nil }
        return numbers
    }

    /// Candidate CRSs for every x/y pair, best supported first; with a place column, only those
    /// that put at least 90% of the sampled wells inside the places their rows name, the state
    /// planes of the states named among them.
    func find() -> [Candidate] {
        let candidates = findByValues()
        guard let places = Places.shared, !placeColumns.isEmpty else { return candidates }
        let regions = sample.map { row in
            placeColumns.lazy.compactMap { $0.index < row.count ? ExpectedRegion($0, row[$0.index], places) : nil }.first
        }
        let named = regions.compactMap { $0 }
        guard !named.isEmpty else { return candidates }
        var crss: [(identifier: String, name: String, area: CRSInfo.Area?)] = []
        for state in Dictionary(named.compactMap(\.state).map { ($0.fips, ($0, 1)) }, uniquingKeysWith: { ($0.0, $0.1 + $1.1) })
            .values.sorted(by: { $0.1 > $1.1 }).prefix(2).map(\.0) {
            guard let box = places.extent(of: places.stateByFIPS[state.fips].map { [$0] } ?? []) else { continue }
            for listed in CRSInfo.projectedCRSs(intersecting: CRSInfo.Area(west: box.west, south: box.south, east: box.east, north: box.north))
            where (listed.name.hasPrefix("NAD83 / ") || listed.name.hasPrefix("NAD27 / "))
                && (listed.name.contains(" \(state.name) ") || listed.name.hasSuffix(" \(state.name)") || listed.name.contains(" UTM zone "))
                && !crss.contains(where: { $0.identifier == listed.identifier }) {
                crss.append((listed.identifier, listed.name, listed.area))
            }
        }
        var scored: [(candidate: Candidate, inside: Int, inArea: Int, order: Int)] = []
        let checked = regions.prefix(300).count { $0 != nil }
        for pair in pairs() {
            guard numbers(pair.x) != nil, numbers(pair.y) != nil else { continue }
            // A datum the columns' names give (`UTM_X_NAD27`) ranks that datum's CRSs first: NAD27 and
            // NAD83 UTM put the wells tens of metres apart, inside the same places, so the places cannot.
            let namedDatums = Set([header[pair.x], header[pair.y]].compactMap(ColumnInference.datumNamed))
            let named = namedDatums.count == 1 ? namedDatums.first : nil
            let given = candidates.filter { $0.xColumn == header[pair.x] && $0.yColumn == header[pair.y] }
            let tried = given.map { ($0.crs, $0.evidence, CRSInfo.Area?.none) } + crss.filter { c in !given.contains { $0.crs == c.identifier } }
                .map { ($0.identifier, $0.name, $0.area) }
            for (order, (crs, description, area)) in tried.enumerated() {
                guard let transformer = try? TransformCache.shared.transformer(from: crs, to: "EPSG:4326") else { continue }
                var inside = 0, inArea = 0
                for (row, region) in zip(sample.prefix(300), regions.prefix(300)) {
                    guard let region, let x = ValueParsing.number(row[pair.x]), let y = ValueParsing.number(row[pair.y]),
                          let p = try? transformer.transform(x: x, y: y), p.x.isFinite, p.y.isFinite else { continue }
                    if region.contains(places, latitude: p.y, longitude: p.x)
                        || region.distance(places, latitude: p.y, longitude: p.x) <= Places.tolerance { inside += 1 }
                    if area?.contains(longitude: p.x, latitude: p.y) ?? true { inArea += 1 }
                }
                guard inside * 10 >= checked * 9 else { continue }
                let datum = Self.datum(of: crs, description)
                let evidence = "\(description): \(grouped(inside)) of \(grouped(checked)) sampled wells inside the places their rows name"
                    + (area == nil ? "" : ", \(grouped(inArea)) inside its area of use")
                    + (named != nil && datum == named ? "; the columns' names say \(named!)" : "")
                // Without names, NAD27's last: the older datum, and the one that moves the wells if wrongly taken.
                let rank = named.map { datum == $0 ? 0 : 1_000 } ?? (datum == "NAD27" ? 1_000 : 0)
                scored.append((Candidate(crs: crs, xColumn: header[pair.x], yColumn: header[pair.y], evidence: evidence), inside, inArea, order + rank))
            }
        }
        return scored.sorted { ($1.inside, $1.inArea, $0.order) < ($0.inside, $0.inArea, $1.order) }.map(\.candidate)
    }

    /// The datum of a candidate CRS as ``ColumnInference/datumNamed(_:)`` keys it (`NAD27`, `NAD83`,
    /// `WGS84`), read the same way from its description or PROJ's name for it; nil when neither says.
    static func datum(of crs: String, _ description: String) -> String? {
        let name = description.hasPrefix("NAD") || description.hasPrefix("WGS") ? description : ((try? CRSInfo.describe(crs))?.name ?? "")
        return ColumnInference.datumNamed(name)
    }

    /// Candidate CRSs for every x/y pair from the values alone: UTM where another pair places the points, Web Mercator.
    private func findByValues() -> [Candidate] {
        var candidates: [Candidate] = []
        var webMercator: (pair: (x: Int, y: Int), lonLat: [(x: Double, y: Double)])?
        var utmPairs: [(x: Int, y: Int)] = []
        for pair in pairs() {
            guard let xs = numbers(pair.x), let ys = numbers(pair.y) else { continue }
            let (mx, my) = (median(xs), median(ys))
            if (100_000...900_000).contains(mx) && (0...10_000_000).contains(my) { utmPairs.append(pair); continue }
            guard abs(mx) > 180 || abs(my) > 90, abs(mx) <= 20_037_508.35, abs(my) <= 20_048_966.11 else { continue }
            var lonLat = rows(pair)
            guard (try? TransformCache.shared.transformer(from: "EPSG:3857", to: "EPSG:4326").transform(&lonLat)) != nil else { continue }
            let center = (lon: median(lonLat.map(\.x)), lat: median(lonLat.map(\.y)))
            webMercator = (pair, lonLat)
            candidates.append(Candidate(crs: "EPSG:3857", xColumn: header[pair.x], yColumn: header[pair.y],
                                        evidence: "as WGS 84 / Pseudo-Mercator the points fall around \(Self.place(center.lat, center.lon))"))
        }
        var utm: [Candidate] = []
        for pair in utmPairs {
            if let webMercator {
                // The zone where the other pair puts the points; the datum that agrees with it best.
                let lon = median(webMercator.lonLat.map(\.x)), lat = median(webMercator.lonLat.map(\.y))
                let zone = Int(((lon + 180) / 6).rounded(.down)) + 1
                let options = (lat >= 0 ? [26900, 32600] : [32700]).map { "EPSG:\($0 + zone)" }
                let scored = options.compactMap { crs -> (String, Double)? in
                    guard let worst = agreement(pair, crs: crs, with: webMercator.pair) else { return nil }
                    return (crs, worst)
                }.sorted { $0.1 < $1.1 }
                for (crs, worst) in scored {
                    utm.append(Candidate(
                        crs: crs, xColumn: header[pair.x], yColumn: header[pair.y],
                        evidence: "UTM zone \(zone)\(lat >= 0 ? "N" : "S"), where \(header[webMercator.pair.x])/\(header[webMercator.pair.y]) "
                            + "put the points; agrees with them as EPSG:3857 within \(worst.projDecimal(1)) m"))
                }
            } else {
                utm.append(Candidate(crs: "EPSG:269ZZ", xColumn: header[pair.x], yColumn: header[pair.y],
                                            evidence: "values look like UTM metres, but nothing in the file names the zone ZZ (NAD83; EPSG:326ZZ for WGS 84)"))
            }
        }
        // Web Mercator's reading alone, with no other pair that agrees and no place column to judge
        // it, is no evidence: state-plane feet fall in its range too (Colorado's, in Sudan).
        if utm.isEmpty && placeColumns.isEmpty { return [] }
        return utm + candidates
    }

    /// The error for a file without latitude/longitude columns: the candidates and the exact commands.
    ///
    /// A candidate is offered only with evidence that judges it: the places the rows name, or two
    /// pairs of columns that agree (UTM and Web Mercator). Without any, no candidate is offered and
    /// the reason says why: Web Mercator's reading of state-plane feet, the one candidate the values
    /// alone gave, put Colorado's wells in Sudan, and pasted it loaded them there with exit 0.
    func error() -> ImportError {
        let candidates = find()
        let columns = pointColumn.map { [$0] } ?? Array(header)
        var reason = pointColumn.map { "no latitude/longitude columns among: \(ImportError.listing(columns)); the points of \($0) are projected x/y, not degrees, in a CRS the file does not name." }
            ?? "no latitude/longitude columns among: \(ImportError.listing(header))."
        // No candidate, or only the UTM placeholder whose zone is for the user to name (EPSG:269ZZ).
        if candidates.allSatisfy({ $0.crs.hasSuffix("ZZ") }), !pairs().isEmpty {
            reason += " Nothing in the file judges which CRS its x/y are in (no column names each row's state, county, country or API number,"
                + " and the file names no CRS), so none is offered: one read wrongly puts the wells on another continent."
                + " Give the CRS the values are in, or a column naming each row's place, against which candidates are judged."
        }
        return ImportError(.noCoordinateColumns, reason,
                           remedy: .giveCRS(candidates: candidates.map {
                               let x = pointColumn ?? $0.xColumn, y = pointColumn ?? $0.yColumn
                               return ImportError.CRSCandidate(crs: $0.crs, xColumn: x, yColumn: y, evidence: $0.evidence)
                           }),
                           header: columns, file: file)
    }

    private func rows(_ pair: (x: Int, y: Int)) -> [(x: Double, y: Double)] {
        sample.compactMap { row in
            guard let x = ValueParsing.number(row[pair.x]), let y = ValueParsing.number(row[pair.y]) else { return nil }
            return (x, y)
        }
    }

    /// The worst distance, in metres, between a pair read in `crs` and the Web Mercator pair, over the sampled rows.
    private func agreement(_ pair: (x: Int, y: Int), crs: String, with other: (x: Int, y: Int)) -> Double? {
        guard let transformer = try? TransformCache.shared.transformer(from: crs, to: "EPSG:4326") else { return nil }
        var worst = 0.0
        for row in sample.prefix(200) {
            guard let x = ValueParsing.number(row[pair.x]), let y = ValueParsing.number(row[pair.y]),
                  let ox = ValueParsing.number(row[other.x]), let oy = ValueParsing.number(row[other.y]),
                  let a = try? transformer.transform(x: x, y: y),
                  let b = try? TransformCache.shared.transform(x: ox, y: oy, from: "EPSG:3857", to: "EPSG:4326") else { continue }
            worst = max(worst, Geodesic.distance(fromLatitude: a.y, longitude: a.x, toLatitude: b.y, longitude: b.x))
        }
        return worst
    }

    private func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted[sorted.count / 2]
    }

    static func place(_ lat: Double, _ lon: Double) -> String {
        "\(abs(lat).projDecimal(1))°\(lat >= 0 ? "N" : "S") \(abs(lon).projDecimal(1))°\(lon >= 0 ? "E" : "W")"
    }
}
