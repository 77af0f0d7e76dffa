extension AgencyList {
    // MARK: - NWIS RDB

    /// The RDB header of the `nwis-dms` layout.
    static let nwisHeader = [
        "agency_cd", "site_no", "station_nm", "lat_va", "long_va", "coord_datum_cd", "country_cd",
        "county_nm", "well_depth_va",
    ]

    /// The RDB column-format line that follows the header: widths, `s` for text and `n` for numbers.
    static let nwisFormats = ["5s", "15s", "50s", "11s", "12s", "10s", "2s", "20s", "8n"]

    /// The comment lines an `nwis-dms` file may start with; a file has the first 6...10 of them.
    static let nwisComments = [
        "# US Geological Survey",
        "# retrieved: 2026-01-01 00:00:00 -05:00",
        "#",
        "# Synthetic groundwater sites written by WellKit (AgencyList, layout nwis-dms); not real data.",
        "# lat_va is DDMMSS.s or DDMMSS.ss, long_va DDDMMSS.ss west, in the datum named by coord_datum_cd.",
        "#",
        "# The Site File stores location and general information about groundwater sites.",
        "# File-format description: https://help.waterdata.usgs.gov/faq/about-tab-delimited-output",
        "#",
        "# The column-format line after the header gives each field's width and type.",
    ]

    /// The horizontal datum codes of the `nwis-dms` layout and their shares of the rows.
    static let nwisDatums: [(code: String, share: Double)] = [("NAD27", 0.4), ("NAD83", 0.5), ("WGS84", 0.1)]

    /// County names for `county_nm` (at most 20 characters), from the states the wells fall in.
    static let westernCounties = [
        "Elko County", "Humboldt County", "Washoe County", "Pershing County", "Lander County",
        "Eureka County", "White Pine County", "Nye County", "Lincoln County", "Clark County",
        "Esmeralda County", "Mineral County", "Churchill County", "Lyon County", "Mono County",
        "Inyo County", "Riverside County", "Kern County", "Mohave County", "Coconino County",
        "Washington County", "Iron County", "Beaver County", "Millard County", "Juab County",
        "Tooele County", "Box Elder County", "Cache County", "Owyhee County", "Twin Falls County",
        "Cassia County", "Malheur County", "Harney County", "Lake County", "Sevier County",
    ].map { Array($0.utf8) }

    /// Writes the `nwis-dms` layout: a USGS NWIS RDB site list with compact DMS coordinates.
    ///
    /// `site_no` is a keyed permutation of the row number written in 14 digits, after a leading
    /// `0` (half the rows) or the first digit of the latitude, so it is unique and 15 digits long.
    /// About 1% of the rows, chosen by selection sampling, have both coordinates blank (and no
    /// datum); the others draw NAD27, NAD83 or WGS84. Station names lose any double quote.
    ///
    /// With `spellings` (the `datum-spellings` layout) each datum code is written in one of the ways
    /// agencies write it (``nwisDatumSpellings``), drawn per row; the key counts them by datum.
    func renderNWIS(into text: inout Text, spellings: Bool = false) -> AnswerKey {
        var random = layoutRandom()
        var wells = SourceWells(count: count, seed: seed)
        let siteNumbers = WellGenerator.LicencePermutation(domain: 100_000_000_000_000, seed: random.next())
        let commentLines = random.int(in: 6...Self.nwisComments.count)
        for comment in Self.nwisComments.prefix(commentLines) {
            text.append(comment)
            text.endLine(crlf: false)
        }
        text.append(Self.nwisHeader.joined(separator: "\t"))
        text.endLine(crlf: false)
        text.append(Self.nwisFormats.joined(separator: "\t"))
        text.endLine(crlf: false)

        let firstLine = commentLines + 3
        let tab = UInt8(ascii: "\t")
        let datumCodes = Self.nwisDatums.map { Array($0.code.utf8) }
        var datumCounts = [Int](repeating: 0, count: datumCodes.count)
        var rejects = SelectionSampler(picks: count >= 2 ? max(1, count / 100) : 0, candidates: count)
        var key = AnswerKey(layout: layout, records: count, identifier: .init(column: "site_no", isKey: true))
        for index in 0..<count {
            let well = wells.next()
            let missing = rejects.next(&random)
            text.append("USGS\t")
            let leadingDigit = random.chance(0.5) ? 0 : well.latitude / 10_000_000
            text.append(decimal: leadingDigit)
            text.append(decimal: siteNumbers.permute(index), width: 14)
            text.append(byte: tab)
            text.append(well.name.filter { $0 != WellGenerator.ASCII.quote })
            text.append(byte: tab)
            if !missing {
                text.append(compactDMS: well.latitude, degreeDigits: 2, decimals: random.chance(0.5) ? 1 : 2)
            }
            text.append(byte: tab)
            if !missing {
                text.append(compactDMS: well.longitude, degreeDigits: 3, decimals: 2)
            }
            text.append(byte: tab)
            if !missing {
                let datum = Self.datumIndex(random.unit())
                datumCounts[datum] += 1
                if spellings {
                    let variants = Self.nwisDatumSpellings[datum]
                    text.append(variants[random.below(variants.count)])
                } else {
                    text.append(datumCodes[datum])
                }
            }
            text.append("\tUS\t")
            text.append(Self.westernCounties[Self.cell(of: well, among: Self.westernCounties.count)])
            text.append(byte: tab)
            if let feet = well.depthFeet { text.append(decimal: feet) }
            text.endLine(crlf: false)
            if missing {
                key.rejects.append(.init(line: firstLine + index, kind: .missingCoordinates))
            }
        }

        key.commentLines = commentLines
        key.delimiter = "tab"
        key.latitude = .init(column: "lat_va", format: "compact DMS")
        key.longitude = .init(column: "long_va", format: "compact DMS", hemisphere: "west")
        key.datumColumn = "coord_datum_cd"
        key.datums = Dictionary(uniqueKeysWithValues: zip(Self.nwisDatums.map(\.code), datumCounts))
        return key
    }

    /// The ways agencies write each of ``nwisDatums``, for the `datum-spellings` layout.
    static let nwisDatumSpellings = [
        ["NAD27", "NAD 27", "NAD-27", "NAD1927", "nad27", "North American Datum 1927", "EPSG:4267", "GCS_North_American_1927"],
        ["NAD83", "NAD 83", "NAD1983", "nad83", "4269", "North American Datum 1983"],
        ["WGS84", "WGS 84", "WGS 1984", "wgs84"],
    ]

    /// The ``nwisDatums`` entry a uniform draw `u` in [0, 1) falls in.
    static func datumIndex(_ u: Double) -> Int {
        var total = 0.0
        for (index, datum) in nwisDatums.enumerated() {
            total += datum.share
            if u < total { return index }
        }
        return nwisDatums.count - 1
    }

    /// A stable index in `0..<count` for the quarter-degree cell a well is in, so neighbours share a county.
    static func cell(of well: SourceWell, among count: Int) -> Int {
        let row = UInt64(well.latitude / 250_000)
        let column = UInt64(-well.longitude / 250_000)
        return Int(WellGenerator.Random.mix64(row << 32 | column) % UInt64(count))
    }
}
