import Foundation

/// A column that names the place each row's well is in: a US state (postal code, name or FIPS
/// code; Canadian provinces too), a country (name, ISO 3166 code) or a county (name or FIPS code).
struct PlaceColumn: Sendable, Equatable {
    enum Kind: String, Sendable {
        case state, country, county
        /// A US well's API number, whose first two digits name its state (``USState/ofAPINumber(_:)``).
        case apiNumber

        /// What a stop's reason says the file gives its wells: "the state named on their rows".
        var named: String { self == .apiNumber ? "state named by their API numbers" : "\(rawValue) named on their rows" }
    }
    var kind: Kind
    var column: String
    var index: Int
    /// For a county column in a file that names no state: the states whose counties its names are
    /// (FIPS), the one state when there is one; more when the names are counties of each of them
    /// (Alabama's Lamar, Choctaw and Covington are Mississippi's too).
    var impliedStates: [String] = []
}

extension ColumnInference {
    /// Finds the columns that name each row's state, country or county, by their header and their
    /// values: a header with the word state, province, country or county, and at least 90% of its
    /// sampled values naming one. Each becomes an inference; the load checks every well against the
    /// most specific place its row names.
    mutating func inferPlaceColumns(_ options: inout LoadOptions) {
        var found: [PlaceColumn] = []
        for index in header.indices {
            let words = Self.headerWords(header[index])
            let stateName = words.contains { ["st", "stusps", "stabbr", "province", "prov"].contains($0) || $0.hasPrefix("state") }
            let countryName = words.contains { $0.hasPrefix("country") || $0 == "nation" || $0 == "cntry" }
            // The outlines are read only for a file with a column named like a place.
            guard stateName || countryName else { continue }
            guard let places = Places.shared else {
                inferences.append(Inference(subject: "places", column: header[index], value: "not checked",
                                            evidence: "the place outlines of the library's resources were not found", override: ""))
                return
            }
            let values = sample.map { $0[index].trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            guard !values.isEmpty else { continue }
            let kind: PlaceColumn.Kind = stateName ? .state : .country
            let hits = values.count { value in
                kind == .state ? USState.named(value, fips: true) != nil || CanadianProvince.names.contains(value.uppercased())
                    : places.countryByName[value.uppercased()] != nil
            }
            guard hits * 10 >= values.count * 9, !found.contains(where: { $0.kind == kind }) else { continue }
            found.append(PlaceColumn(kind: kind, column: header[index], index: index))
            let counts = Dictionary(values.map { ($0, 1) }, uniquingKeysWith: +).sorted { ($0.value, $1.key) > ($1.value, $0.key) }
            inferences.append(Inference(
                subject: kind.rawValue, column: header[index],
                value: "per row: " + counts.prefix(4).map { "\($0.key) \(grouped($0.value))" }.joined(separator: ", ")
                    + (counts.count > 4 ? ", …" : ""),
                evidence: "\(grouped(hits)) of \(grouped(values.count)) sampled values name a "
                    + (kind == .state ? "US state or Canadian province" : "country")
                    + "; every well is checked against its outline (\(Int(Places.tolerance / 1000)) km tolerance)",
                override: options.describeRemedy(.noLocationCheck)))
        }
        if let county = inferCountyColumn(state: found.first { $0.kind == .state }, options: options) { found.append(county) }
        if !found.contains(where: { $0.kind == .state }), let api = inferAPINumberColumn(options: options) { found.append(api) }
        options.placeColumns = found
    }

    /// In a file that names no state: a column whose header has the word API (`api_num`, `API Number`,
    /// `APINo`) and whose sampled values, at least 90% of them, are US well API numbers, whose first two
    /// digits name the well's state (Tennessee's list: `41-133-21968`). Every well is checked against
    /// that state's outline.
    private mutating func inferAPINumberColumn(options: LoadOptions) -> PlaceColumn? {
        for index in header.indices where Self.headerWords(header[index]).contains(where: { $0.hasPrefix("api") }) {
            let values = sample.map { $0[index] }.filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
            guard !values.isEmpty, Places.shared != nil else { continue }
            let states = values.compactMap { USState.ofAPINumber($0.utf8) }
            guard states.count * 10 >= values.count * 9 else { continue }
            let counts = Dictionary(states.map { ($0.name, 1) }, uniquingKeysWith: +).sorted { ($0.value, $1.key) > ($1.value, $0.key) }
            inferences.append(Inference(
                subject: "state", column: header[index],
                value: "per row, from the API number's state code: " + counts.prefix(4).map { "\($0.key) \(grouped($0.value))" }.joined(separator: ", ")
                    + (counts.count > 4 ? ", …" : ""),
                evidence: "\(grouped(states.count)) of \(grouped(values.count)) sampled values are US well API numbers (10, 12 or 14 digits, the first "
                    + "two a state's code); every well is checked against its state's outline (\(Int(Places.tolerance / 1000)) km tolerance)",
                override: options.describeRemedy(.noLocationCheck)))
            return PlaceColumn(kind: .apiNumber, column: header[index], index: index)
        }
        return nil
    }

    /// A column whose header names a county (`County`, `county_nm`, `Parish`) and whose sampled values,
    /// at least 90% of them, name a county of the state on their row; in a file that names no state,
    /// of the one state whose counties they name (Indiana's list has `Daviess`, `Blackford`, …), or of
    /// each of the states that name them as often (a well is then checked against its county's
    /// namesakes in those states together).
    private mutating func inferCountyColumn(state: PlaceColumn?, options: LoadOptions) -> PlaceColumn? {
        for index in header.indices {
            let words = Self.headerWords(header[index])
            guard words.contains(where: { ["county", "cnty", "parish", "borough"].contains($0) }), let places = Places.shared else { continue }
            let rows = sample.filter { !$0[index].trimmingCharacters(in: .whitespaces).isEmpty }
            guard !rows.isEmpty else { continue }
            var implied: [USState] = []
            if state == nil {
                // The one state whose counties the names are, if there is one.
                var counts: [String: Int] = [:]
                for value in Set(rows.map { $0[index] }) {
                    // A county of the candidate state itself: a 5-digit FIPS code names one county whatever the state.
                    for candidate in USState.all where places.county(value, state: candidate.fips).map({ places.places[$0].state }) == candidate.fips {
                        counts[candidate.fips, default: 0] += rows.count { $0[index] == value }
                    }
                }
                guard let best = counts.values.max(), best * 10 >= rows.count * 9 else { continue }
                implied = USState.all.filter { counts[$0.fips] == best }
            }
            let hits = rows.count { row in
                if !implied.isEmpty { return implied.contains { places.county(row[index], state: $0.fips) != nil } }
                return places.county(row[index], state: state.flatMap { USState.named(row[$0.index], fips: true)?.fips }) != nil
            }
            guard hits * 10 >= rows.count * 9 else { continue }
            let counts = Dictionary(rows.map { ($0[index], 1) }, uniquingKeysWith: +).sorted { ($0.value, $1.key) > ($1.value, $0.key) }
            inferences.append(Inference(
                subject: "county", column: header[index],
                value: "per row: " + counts.prefix(4).map { "\($0.key) \(grouped($0.value))" }.joined(separator: ", ") + (counts.count > 4 ? ", …" : ""),
                evidence: "\(grouped(hits)) of \(grouped(rows.count)) sampled values name a county of "
                    + (implied.count == 1 ? "\(implied[0].name), the only state whose counties they name (the file names no state)"
                        : implied.isEmpty ? "the state on their row"
                        : (implied.count <= 3 ? implied.map(\.name).joined(separator: " or ") : "any of \(implied.count) states")
                            + " (the file names no state, and each of these has counties of these names: a well may lie in its county in any of them)")
                    + "; every well is checked against its county's outline (\(Int(Places.countyTolerance / 1000)) km tolerance)",
                override: options.describeRemedy(.noLocationCheck)))
            return PlaceColumn(kind: .county, column: header[index], index: index, impliedStates: implied.map(\.fips))
        }
        return nil
    }
}

/// Where a load's wells should be: the places their rows name, or the area of use of the CRS they were read in.
struct ExpectedRegion {
    var name: String
    var places: [Int] = []
    var box: CRSInfo.Area?
    /// The US state, when the region is one.
    var state: USState?
    /// How far outside its outline a well may lie on land.
    var tolerance = Places.tolerance
    /// A datum's area of use, which agencies stretch (NWIS names NAD83 for wells on Guam, Saipan and
    /// the Marshall Islands): a well outside it is a suspect only when a lost sign or a swap puts it on
    /// land inside (a digit restored finds land somewhere in a box a continent wide).
    var coarse = false
    /// How a stop's reason lists the region among the places the file gives (`Oklahoma`, `Lamar
    /// County, AL or MS`, `NAD83 (EPSG:4269)`); ``name`` when nil.
    var listed: String?

    /// Metres from the point to the region (0 inside).
    func distance(_ places: Places, latitude: Double, longitude: Double) -> Double {
        if let box {
            return box.contains(longitude: longitude, latitude: latitude) ? 0 : .infinity
        }
        return places.distance(to: self.places, longitude: longitude, latitude: latitude)
    }

    /// How far outside the region the point lies when that is beyond the tolerance (``Places/tolerance``
    /// on land, ``Places/seaTolerance`` at sea); nil when it is inside or within it.
    func excess(_ places: Places, latitude: Double, longitude: Double) -> Double? {
        let distance = distance(places, latitude: latitude, longitude: longitude)
        guard distance > tolerance else { return nil }
        if box == nil, distance <= Places.seaTolerance, !places.isOnLand(longitude: longitude, latitude: latitude) { return nil }
        return distance
    }

    func contains(_ places: Places, latitude: Double, longitude: Double) -> Bool {
        if let box { return box.contains(longitude: longitude, latitude: latitude) }
        return places.contains(any: self.places, longitude: longitude, latitude: latitude)
    }
}

extension ExpectedRegion {
    /// The place a row's cell names in a place column, if the outlines have it.
    init?(_ column: PlaceColumn, _ text: String, _ places: Places) {
        let value = text.trimmingCharacters(in: .whitespaces)
        switch column.kind {
        case .state:
            if let state = USState.named(value, fips: true), let outline = places.stateByFIPS[state.fips] {
                self.init(name: "\(state.name) named on its row", places: [outline], listed: state.name)
                self.state = state
            } else if CanadianProvince.names.contains(value.uppercased()), let canada = places.countryByName["CAN"] {
                self.init(name: "Canada (\(value) named on its row)", places: [canada], listed: "Canada (\(value))")
            } else {
                return nil
            }
        case .country:
            guard let country = places.countryByName[value.uppercased()] else { return nil }
            self.init(name: "\(places.places[country].name) named on its row", places: [country], listed: places.places[country].name)
        case .apiNumber:
            guard let state = USState.ofAPINumber(value.utf8), let outline = places.stateByFIPS[state.fips] else { return nil }
            self.init(name: "\(state.name) named by its API number", places: [outline], listed: state.name)
            self.state = state
        case .county:
            return nil   // a county needs its row's state: ``init(county:state:places:)``
        }
    }

    /// The county a row names, in the state its row names, or in the states the file's names imply
    /// (its namesakes in them together).
    init?(county text: String, column: PlaceColumn, stateText: String?, _ places: Places) {
        let states: [String?] = column.impliedStates.isEmpty ? [stateText.flatMap { USState.named($0, fips: true)?.fips }] : column.impliedStates
        var indices: [Int] = []
        for state in states {
            if let index = places.county(text, state: state), !indices.contains(index) { indices.append(index) }
        }
        guard let first = indices.first else { return nil }
        let county = places.places[first]
        let postals = indices.map { index in USState.all.first { $0.fips == places.places[index].state }?.postal ?? "" }
        let listed = "\(county.name)\(county.lsad.map { " " + $0 } ?? ""), \(postals.prefix(3).joined(separator: " or "))"
            + (postals.count > 3 ? " or \(postals.count - 3) other states" : "")
        self.init(name: listed + " named on its row", places: indices, tolerance: Places.countyTolerance, listed: listed)
    }
}

extension LoadOptions {
    /// Whether the place check has something to check the wells against before it reads them: a
    /// column naming each row's place, a CRS the user gave or a column naming each row's datum (their
    /// areas of use). Without any, only a file mostly in Antarctica is checked.
    var hasPlaceEvidence: Bool {
        !placeColumns.isEmpty || coordinates.crs != nil || coordinates.datumColumn != nil
    }
}

extension ScannedFile {
    /// Checks every well against the place its row names (or, for coordinates read in a CRS the user
    /// gave and no place column, the CRS's area of use).
    ///
    /// - When at least half of the wells checked lie outside their places (beyond ``Places/tolerance``),
    ///   nothing is written: the load stops with where the wells landed, where the file says they
    ///   should be, and the fix, found by trying the usual slips on the whole file (a lost minus
    ///   sign, swapped columns, swapped x/y, US survey feet read as metres). `checkLocations` false
    ///   (`--no-location-check`) loads them anyway, flagged.
    /// - Otherwise each well outside its place is a suspect, with the slip that would put it inside when one does.
    ///
    /// - Returns: The suspects found, by record index.
    mutating func checkPlaces(_ options: LoadOptions) throws -> [SuspectCoordinates.Finding] {
        // Nothing to check against, and the outlines are not even read: no place column, no CRS of
        // the user's, and not a file mostly in Antarctica.
        let antarctic = !options.hasPlaceEvidence && options.coordinates.xColumn == nil
            && records.count(where: { $0.lat < -60 }) * 2 >= records.count
        guard !records.isEmpty, options.hasPlaceEvidence || antarctic else { return [] }
        guard let places = Places.shared else {
            summary.warnings.append("the place outlines (places.tsv and places.bin in WellKit_WellKit.resources beside the executable, "
                + "or $WELLKIT_PLACES) were not found: where the wells land was not checked")
            return []
        }
        let clock = ContinuousClock.now
        defer { summary.phases["places"] = (ContinuousClock.now - clock).seconds }
        var regions: [ExpectedRegion] = []
        var regionOf = [Int32](repeating: -1, count: records.count)
        var what: String
        /// How the reason introduces the places the file gives, when it gives them per row.
        var said: String? = ", where the file says "
        /// Stop only when a slip explains the wells outside: real Antarctic lists exist, and agencies
        /// name datums for wells outside their areas of use (NWIS's NAD83 for Guam, Saipan and American Samoa).
        var stopsOnlyOnASlip = false
        if !options.placeColumns.isEmpty {
            what = "the " + options.placeColumns.map { "\($0.kind.named) (\($0.column))" }.joined(separator: " or ")
            (regions, regionOf) = resolvePlaces(options.placeColumns, places)
        } else if let column = options.coordinates.datumColumn {
            // Each row's coordinates are in the datum its row names: checked against that datum's area
            // of use (NAD83's is North America and Hawaii). Rows in WGS 84, used worldwide, are not checked.
            var regionOfCRS: [Int: Int32] = [:]
            for k in records.indices {
                guard let crs = records.sourceCRS(k) else { continue }
                if let known = regionOfCRS[crs] {
                    regionOf[k] = known
                    continue
                }
                var number: Int32 = -1
                if let (info, area) = Self.areaOfUse(validator.crsNames[crs]) {
                    number = Int32(regions.count)
                    regions.append(ExpectedRegion(name: "the area of use of \(info.name) (\(info.identifier))", box: area, coarse: true,
                                                  listed: "\(info.name) (\(info.identifier))"))
                }
                regionOfCRS[crs] = number
                regionOf[k] = number
            }
            what = "the areas of use of the datums named on their rows (\(column))"
            said = ", where their rows' datums are used: "
            stopsOnlyOnASlip = true
        } else if let crs = options.coordinates.crs, let (info, area) = Self.areaOfUse(crs) {
            what = "the area of use of \(info.identifier) (\(info.name)" + (area.name.map { ": \($0)" } ?? "") + ")"
            regions.append(ExpectedRegion(name: "the area of use of \(info.identifier)", box: area))
            for k in regionOf.indices { regionOf[k] = 0 }
            said = nil
        } else if antarctic, let antarctica = places.countryByName["ATA"] {
            // Latitude and longitude swapped in a list of the northern mid-latitudes puts it in Antarctica.
            what = "every continent but Antarctica"
            stopsOnlyOnASlip = true
            said = nil
            regions.append(ExpectedRegion(name: "land outside Antarctica",
                                          places: places.places.indices.filter { places.places[$0].kind == .country && $0 != antarctica }))
            for k in regionOf.indices { regionOf[k] = 0 }
        } else {
            return []
        }
        let checked = regionOf.indices.filter { regionOf[$0] >= 0 }
        placesChecked = checked.count
        guard !checked.isEmpty else { return [] }
        // One region at a time through its ``Places/Membership``, which reads the outlines in place
        // (a retain of the shared outlines per well made two threads slower than one: 2,442,920
        // rows, 1.24–1.35 s against 0.60 s); a region's wells in two halves on the two cores.
        var byRegion = [[Int]](repeating: [], count: regions.count)
        for k in checked { byRegion[Int(regionOf[k])].append(k) }
        var outside: [Int] = []
        let records = records
        for (r, rows) in byRegion.enumerated() where !rows.isEmpty {
            if let box = regions[r].box {
                for k in rows where !box.contains(longitude: records[k].lon, latitude: records[k].lat) { outside.append(k) }
            } else {
                let membership = Places.Membership(places, regions[r].places)
                // A smaller region stays on this thread: 50,000 wells take about 8 ms to test
                // (2,442,920 took 0.39 s), little against handing half of them to another.
                let halves = rows.count >= 50_000 ? [rows[..<(rows.count / 2)], rows[(rows.count / 2)...]] : [rows[...]]
                let found = halves.map { _ in HandOff<[Int]>() }
                DispatchQueue.concurrentPerform(iterations: halves.count) { h in
                    found[h].value = membership.withContains { contains in
                        halves[h].filter { k in
                            let point = records.coordinates(k)
                            return !contains(point.lon, point.lat)
                        }
                    }
                }
                for half in found { outside += half.value ?? [] }
            }
        }
        outside.sort()
        guard !outside.isEmpty else { return [] }
        // Beyond the outlines' tolerance: all of them when few, else a sample decides for the file.
        let sampleStride = max(1, outside.count / 400)
        let sampled = stride(from: 0, to: outside.count, by: sampleStride).map { outside[$0] }
        let far = sampled.count { k in regions[Int(regionOf[k])].excess(places, latitude: records[k].lat, longitude: records[k].lon) != nil }
        let farEstimate = far * outside.count / max(1, sampled.count)
        if checked.count >= 3, farEstimate * 2 >= checked.count {
            let fix = wholeFileFix(checked: checked, regions: regions, regionOf: regionOf, places: places, options: options)
            if stopsOnlyOnASlip && fix == nil { return [] }
            let error = misplacement(checked: checked, far: farEstimate, what: what, regions: regions, regionOf: regionOf,
                                     places: places, fix: fix, said: said)
            guard !options.checkLocations else { throw error }
            summary.warnings.append(error.reason + " Loaded anyway (\(options.describeRemedy(.noLocationCheck))); each such well is flagged.")
        }
        var findings: [SuspectCoordinates.Finding] = []
        for k in outside {
            let record = records[k], region = regions[Int(regionOf[k])]
            guard let distance = region.excess(places, latitude: record.lat, longitude: record.lon) else { continue }
            let gap = distance.isFinite ? " (\((distance / 1000).projDecimal(1)) km)" : ""
            let detail = "outside \(region.name)\(gap)"
            // A box (an area of use) holds sea as well: a slip must put the well on land inside it.
            if let (reason, lat, lon) = SuspectCoordinates.repair((record.lat, record.lon), digits: !region.coarse, landsAmongOthers: {
                (-90...90).contains($0) && (-180...180).contains($1) && region.contains(places, latitude: $0, longitude: $1)
                    && (region.box == nil || places.isOnLand(longitude: $1, latitude: $0))
            }) {
                findings.append(.init(index: k, reason: reason,
                                      detail: detail + "; at \(lat.projDecimal(6)), \(lon.projDecimal(6)) it would be inside"))
            } else if !region.coarse {
                findings.append(.init(index: k, reason: SuspectCoordinates.outsidePlace, detail: detail))
            }
        }
        return findings
    }

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

    /// The wells that `--implied-west` (or `--implied-south`) put in the open sea where, read east
    /// (north) as written, they lie on land: NWIS's Pacific list with its minus signs lost is loaded
    /// so (it stops, suggesting it), and the wells of Guam and Saipan, written east and rightly
    /// unsigned, land 2,000 km from any island. No place column is needed: a well more than
    /// ``Places/seaTolerance`` from land is no offshore well.
    func impliedSignsAtSea(_ options: LoadOptions) -> [SuspectCoordinates.Finding] {
        let coordinates = options.coordinates
        guard coordinates.impliedWest || coordinates.impliedSouth, !validator.projected, let places = Places.shared else { return [] }
        let openSea = places.openSea
        // Each option's reading of a value as written, when the option may have signed it.
        let implied: [(applies: Bool, written: (Double, Double) -> (lat: Double, lon: Double)?, reason: String, read: String)] = [
            (coordinates.impliedWest, { lat, lon in lon < 0 ? (lat, -lon) : nil }, "longitude sign",
             "its longitude read as west (\(validator.describe(.impliedWest)))"),
            (coordinates.impliedSouth, { lat, lon in lat < 0 ? (-lat, lon) : nil }, "latitude sign",
             "its latitude read as south (\(validator.describe(.impliedSouth)))"),
        ]
        var findings: [SuspectCoordinates.Finding] = []
        for k in records.indices {
            let (lat, lon) = records.coordinates(k)
            guard lon < 0 || lat < 0, openSea.contains(longitude: lon, latitude: lat) else { continue }
            for (applies, written, reason, read) in implied where applies {
                guard let (a, b) = written(lat, lon), let country = places.country(near: b, latitude: a, within: Places.tolerance) else { continue }
                findings.append(.init(
                    index: k, reason: reason,
                    detail: "in the open sea, over \(Int(Places.seaTolerance / 1000)) km from land, with \(read); "
                        + "at \(a.projDecimal(6)), \(b.projDecimal(6)) it would be on land (\(places.places[country].name))"))
                break
            }
        }
        return findings
    }

    /// Each record's region, from its row's place cells (-1 where none is found; empty cells are
    /// not checked), as a number in the regions returned, the most specific place a row names
    /// first; the regions in the order of each one's first record.
    ///
    /// The records before `split` and those after it are resolved on two threads, each half with
    /// its own names and regions; the second half's regions are then numbered after the first's,
    /// a name both halves met keeping the first's number: the answer is the one thread's
    /// (`PlaceCheckTests`). 2,442,920 rows: the check took 0.81 s on one thread, 0.60 s on two.
    func resolvePlaces(_ columns: [PlaceColumn], _ places: Places,
                       split: Int? = nil) -> (regions: [ExpectedRegion], regionOf: [Int32]) {
        let count = records.count
        let middle = min(count, split ?? (count >= 50_000 ? count / 2 : count))
        // Fork/join, as PartitionedParse does: the group waits for the second half's thread.
        let second = HandOff<Resolved>(), group = DispatchGroup()
        if middle < count {
            let file = self
            DispatchQueue.global().async(group: group) { second.value = file.resolvePlaces(columns, places, middle..<count) }
        }
        let first = resolvePlaces(columns, places, 0..<middle)
        group.wait()
        guard let tail = second.value else { return (first.regions, first.regionOf) }
        var regions = first.regions
        var number = [Int32](repeating: -1, count: tail.regions.count)
        for (name, local) in tail.names.sorted(by: { $0.value < $1.value }) where local >= 0 {
            if let known = first.names[name], known >= 0 {
                number[Int(local)] = known
            } else {
                number[Int(local)] = Int32(regions.count)
                regions.append(tail.regions[Int(local)])
            }
        }
        return (regions, first.regionOf + tail.regionOf.map { $0 >= 0 ? number[Int($0)] : -1 })
    }

    /// The regions of some records: each record's (-1 for none) as a number in `regions`, and the
    /// number of each (column, state, value) the records name (-1 for a place not found).
    private struct Resolved {
        var names: [ByteKey: Int32] = [:]
        var regions: [ExpectedRegion] = []
        var regionOf: [Int32] = []
    }

    /// Resolves the records in `range`.
    private func resolvePlaces(_ columns: [PlaceColumn], _ places: Places, _ range: Range<Int>) -> Resolved {
        // Rows repeat a few place names: each (column, state, value) is resolved once, looked up by its
        // bytes, so that a row costs a scan and a hash rather than strings (0.24 s → 0.0x s for 244,292 rows).
        var cache: [ByteKey: Int32] = [:]
        var regions: [ExpectedRegion] = []
        var regionOf = [Int32](repeating: -1, count: range.count)
        var key = ByteKey()
        let scanner = CSVScanner(delimiter: delimiter)
        var spans: [FieldSpan] = []
        let buffer = file.bytes
        let stateColumn = columns.first { $0.kind == .state }
        // The most specific place a row names first: its county, then its state or country.
        let ordered = columns.filter { $0.kind == .county } + columns.filter { $0.kind != .county }
        // Only the fields up to the last place column are split: the scan stops there (a list whose
        // province is its 13th field of 20: the place check of 2,442,920 rows 0.68 and 0.70 s → 0.57 and 0.64 s).
        let fieldsNeeded = columns.map(\.index).max().map { $0 + 1 } ?? .max
        var release = MappedFile.ReleaseBehind(file, from: range.isEmpty ? 0 : records[range.lowerBound].range.lowerBound)
        for k in range {
            release.done(before: records[k].range.lowerBound)
            _ = scanner.scan(buffer, from: records[k].range.lowerBound, to: buffer.count, atEOF: true, line: records[k].line, fields: &spans,
                             limit: fieldsNeeded)
            for column in ordered where column.index < spans.count && !spans[column.index].isEmpty {
                let stateSpan = column.kind == .county ? stateColumn.flatMap { $0.index < spans.count ? spans[$0.index] : nil } : nil
                key.bytes.removeAll(keepingCapacity: true)
                key.bytes.append(UInt8(column.index & 0xFF))
                key.bytes.append(UInt8(column.index >> 8 & 0xFF))
                withFieldBytes(buffer, spans[column.index]) { field in
                    // An API number's state is its first two digits: one key per state, not per well.
                    if column.kind == .apiNumber, let state = USState.ofAPINumber(field) {
                        key.bytes.append(contentsOf: state.postal.utf8)
                    } else {
                        key.bytes.append(contentsOf: field)
                    }
                }
                if let stateSpan {
                    key.bytes.append(0)
                    withFieldBytes(buffer, stateSpan) { key.bytes.append(contentsOf: $0) }
                }
                var id: Int32
                if let known = cache[key] {
                    id = known
                } else {
                    let text = fieldText(buffer, spans[column.index])
                    let found = column.kind == .county
                        ? ExpectedRegion(county: text, column: column, stateText: stateSpan.map { fieldText(buffer, $0) }, places)
                        : ExpectedRegion(column, text, places)
                    id = -1
                    if let found {
                        id = Int32(regions.count)
                        regions.append(found)
                    }
                    cache[key] = id
                }
                if id >= 0 {
                    regionOf[k - range.lowerBound] = id
                    break
                }
            }
        }
        return Resolved(names: cache, regions: regions, regionOf: regionOf)
    }

    /// The slip that puts most of the checked wells where their rows say, if one puts at least 80% there.
    private func wholeFileFix(checked: [Int], regions: [ExpectedRegion], regionOf: [Int32], places: Places,
                              options: LoadOptions) -> PlacementFix? {
        let sample = stride(from: 0, to: checked.count, by: max(1, checked.count / 400)).map { checked[$0] }
        typealias Reading = (fix: PlacementFix, position: (ScannedRecord) -> (lat: Double, lon: Double)?)
        var readings: [Reading] = []
        let coordinates = options.coordinates
        if !validator.projected {
            // Degrees, under the lat/lon columns or under --x/--y in a geographic CRS such as EPSG:4267.
            // An --implied-west or --implied-south given by habit (to an Australian list, a northern one) put
            // every well in the wrong hemisphere: read back. (DMS infers --implied-west from the file's own evidence.)
            if coordinates.impliedWest && !coordinates.dms {
                readings.append((PlacementFix(slip: "the longitudes are east, not west as \(validator.describe(.impliedWest)) reads them",
                                              withoutImpliedWest: true), { ($0.lat, -$0.lon) }))
            }
            if coordinates.impliedSouth && !coordinates.dms {
                readings.append((PlacementFix(slip: "the latitudes are north, not south as \(validator.describe(.impliedSouth)) reads them",
                                              withoutImpliedSouth: true), { (-$0.lat, $0.lon) }))
            }
            readings.append((PlacementFix(slip: "the longitudes lost their minus sign", impliedWest: true),
                             { ($0.lat, $0.lon > 0 ? -$0.lon : $0.lon) }))
            // Southern lists: the latitudes' signs lost, or both (South America's).
            readings.append((PlacementFix(slip: "the latitudes lost their minus sign", impliedSouth: true),
                             { ($0.lat > 0 ? -$0.lat : $0.lat, $0.lon) }))
            readings.append((PlacementFix(slip: "the latitudes and the longitudes lost their minus signs", impliedWest: true, impliedSouth: true),
                             { (-abs($0.lat), -abs($0.lon)) }))
            // Swapped: the --x/--y given, or else the mapped columns, exchanged.
            let (x, y) = (coordinates.xColumn, coordinates.yColumn)
            let swapped = (x == nil ? mapping.column(for: .longitude) : x, y == nil ? mapping.column(for: .latitude) : y)
            // (Minutes and seconds in columns of their own would need their columns exchanged too: not offered.)
            if let lonColumn = swapped.0, let latColumn = swapped.1, coordinates.minutesAndSeconds == nil {
                func fix(_ slip: String, impliedWest: Bool = false) -> PlacementFix {
                    x == nil ? PlacementFix(slip: slip, impliedWest: impliedWest, mapping: ["lat": lonColumn, "lon": latColumn])
                             : PlacementFix(slip: slip, impliedWest: impliedWest, xColumn: latColumn, yColumn: lonColumn)
                }
                readings.append((fix("the latitude and longitude columns are swapped"),
                                 { abs($0.lon) <= 90 ? ($0.lon, $0.lat) : nil }))
                readings.append((fix("the latitude and longitude columns are swapped, and the longitudes lost their minus sign", impliedWest: true),
                                 { abs($0.lon) <= 90 ? ($0.lon, $0.lat > 0 ? -$0.lat : $0.lat) : nil }))
            }
            // A degree divisor off by a power of ten or two (1,000,000 for degrees written times 100,000).
            if let divisor = coordinates.degreeDivisor, !coordinates.needsTransform {
                for factor in [10.0, 100, 0.1, 0.01] where divisor / factor >= 1 {
                    readings.append((PlacementFix(slip: "the coordinates are degrees times \(grouped(Int(divisor / factor))), not \(grouped(Int(divisor)))",
                                                  degreeDivisor: divisor / factor), { ($0.lat * factor, $0.lon * factor) }))
                }
            }
        } else if let crs = coordinates.crs, let x = coordinates.xColumn, let y = coordinates.yColumn,
                  let transformer = try? TransformCache.shared.transformer(from: crs, to: "EPSG:4326") {
            // Each reading transforms the values as the file gives them, in another CRS or with x and y exchanged.
            func read(_ transformer: CoordinateTransformer, swap: Bool) -> (ScannedRecord) -> (lat: Double, lon: Double)? {
                { record in
                    guard let source = record.source,
                          let p = try? transformer.transform(x: swap ? source.y : source.x, y: swap ? source.x : source.y),
                          p.x.isFinite, p.y.isFinite else { return nil }
                    return (p.y, p.x)
                }
            }
            readings.append((PlacementFix(slip: "the x and y columns are swapped", xColumn: y, yColumn: x),
                             read(transformer, swap: true)))
            for unit in ["US survey feet", "international feet"] {
                guard let feet = Self.footVariant(of: crs, unit: unit),
                      let feetTransformer = try? TransformCache.shared.transformer(from: feet.crs, to: "EPSG:4326") else { continue }
                readings.append((PlacementFix(slip: "the values are in \(unit), the unit of \(feet.crs) (\(feet.name)), not in metres",
                                              crs: feet.crs, xColumn: x, yColumn: y),
                                 read(feetTransformer, swap: false)))
                readings.append((PlacementFix(slip: "the x and y columns are swapped, and the values are in \(unit) (\(feet.crs), \(feet.name))",
                                              crs: feet.crs, xColumn: y, yColumn: x),
                                 read(feetTransformer, swap: true)))
            }
        }
        /// The reading that puts the most sampled wells where their rows say, the first of equals, if it puts 80% there.
        func best(of readings: [Reading]) -> PlacementFix? {
            var best: PlacementFix?
            for (fix, position) in readings {
                let fits = sample.count { k in
                    guard let p = position(records[k]), (-90...90).contains(p.lat), (-180...180).contains(p.lon) else { return false }
                    // Where the check itself accepts a well: inside its place or near it, offshore wells
                    // out to ``Places/seaTolerance`` (a Louisiana list with its offshore wells and its
                    // minus signs lost was offered no fix).
                    return regions[Int(regionOf[k])].excess(places, latitude: p.lat, longitude: p.lon) == nil
                }
                if fits * 10 >= sample.count * 8, fits > best?.fits ?? 0 {
                    best = fix
                    best?.fits = fits
                    best?.checked = sample.count
                }
            }
            return best
        }
        if let fix = best(of: readings) { return fix }
        // Projected values that no slip above explains: another CRS of the places the rows name, such
        // as the neighbouring UTM zone or the state's plane (Indiana's UTM zone 16N list read as zone 17N).
        guard let crs = coordinates.crs, let x = coordinates.xColumn, let y = coordinates.yColumn,
              let given = try? CRSInfo.describe(crs), given.kind == .projected else { return nil }
        var zones: [Reading] = []
        for listed in Self.projectedCRSs(around: Set(sample.map { regionOf[$0] }).map { regions[Int($0)] }, places: places, besides: given) {
            guard let transformer = try? TransformCache.shared.transformer(from: listed.identifier, to: "EPSG:4326") else { continue }
            zones.append((PlacementFix(slip: "the values are in \(listed.identifier) (\(listed.name)), not in \(given.identifier) (\(given.name))",
                                       crs: listed.identifier, xColumn: x, yColumn: y),
                          { record in
                              guard let source = record.source, let p = try? transformer.transform(x: source.x, y: source.y),
                                    p.x.isFinite, p.y.isFinite else { return nil }
                              return (p.y, p.x)
                          }))
        }
        return best(of: zones)
    }

    /// The projected CRSs, UTM zones and state planes of NAD83, NAD27 and WGS 84, whose areas of use
    /// meet the regions' extent, other than `given`: those of `given`'s datum first, NAD27's last (a
    /// reading in one fits as well as in the others, a few metres apart). None for an extent wider
    /// than 20°, where they would be too many to try.
    static func projectedCRSs(around regions: [ExpectedRegion], places: Places, besides given: CRSInfo) -> [CRSInfo.Listed] {
        var extent: (west: Double, south: Double, east: Double, north: Double)?
        for region in regions {
            guard let box = region.box.map({ (west: $0.west, south: $0.south, east: $0.east, north: $0.north) })
                    ?? places.extent(of: region.places), box.west <= box.east else { return [] }
            extent = extent.map { (min($0.west, box.west), min($0.south, box.south), max($0.east, box.east), max($0.north, box.north)) } ?? box
        }
        guard let extent, extent.east - extent.west <= 20, extent.north - extent.south <= 20 else { return [] }
        let datum = given.name.components(separatedBy: " / ").first ?? ""
        let families = ["NAD83 / ", "NAD27 / ", "WGS 84 / "]
        func rank(_ name: String) -> Int { name.hasPrefix(datum + " / ") ? 0 : name.hasPrefix("NAD27 / ") ? 2 : 1 }
        return CRSInfo.projectedCRSs(intersecting: CRSInfo.Area(west: extent.west, south: extent.south, east: extent.east, north: extent.north))
            .filter { listed in listed.identifier != given.identifier && families.contains { listed.name.hasPrefix($0) } }
            .enumerated().sorted { (rank($0.element.name), $0.offset) < (rank($1.element.name), $1.offset) }.map(\.element)
    }

    /// A CRS's area of use, half a degree wider (zones are used a little past their stated areas),
    /// when it says something: not for EPSG:4326 and not for an area that spans the globe.
    static func areaOfUse(_ crs: String) -> (CRSInfo, CRSInfo.Area)? {
        guard let info = try? CRSInfo.describe(crs), !info.isGeographic || crs != "EPSG:4326",
              let area = info.areaOfUse, area.east - area.west < 300 || area.west > area.east else { return nil }
        return (info, CRSInfo.Area(west: area.west - 0.5, south: area.south - 0.5, east: area.east + 0.5, north: area.north + 0.5,
                                   name: area.name))
    }

    /// The projected CRS of the same name in feet: `NAD83 / Oklahoma North` → `NAD83 / Oklahoma North (ftUS)`, EPSG:2267.
    static func footVariant(of crs: String, unit: String) -> (crs: String, name: String)? {
        guard let info = try? CRSInfo.describe(crs), info.kind == .projected else { return nil }
        let base = info.name.replacingOccurrences(of: " (ftUS)", with: "").replacingOccurrences(of: " (ft)", with: "")
        let name = base + (unit == "US survey feet" ? " (ftUS)" : " (ft)")
        guard name != info.name, let feet = try? CRSInfo.describe(name) else { return nil }
        return (feet.identifier, feet.name)
    }

    /// The error that stops a misplaced load: where the wells landed, where the file says they should be, and the fix.
    private func misplacement(checked: [Int], far: Int, what: String, regions: [ExpectedRegion], regionOf: [Int32],
                              places: Places, fix: PlacementFix?, said: String?) -> ImportError {
        let lats = checked.map { records[$0].lat }.sorted(), lons = checked.map { records[$0].lon }.sorted()
        let lat = lats[lats.count / 2], lon = lons[lons.count / 2]
        let (country, state) = places.location(longitude: lon, latitude: lat)
        var named = Dictionary(checked.map { (regions[Int(regionOf[$0])].listed ?? regions[Int(regionOf[$0])].name, 1) }, uniquingKeysWith: +)
            .sorted { ($0.value, $1.key) > ($1.value, $0.key) }.prefix(3).map { "\($0.key) \(grouped($0.value))" }
        if regions.count > 3 { named.append("…") }
        var landed = " (no country)"
        if let country { landed = " (" + (state.map { "\($0.name), " } ?? "") + places.places[country].name + ")" }
        let counted = "\(grouped(min(far, checked.count))) of \(grouped(checked.count)) wells lie outside \(what)"
        var reason = counted + ": read as given they land around " + ProjectedCandidates.place(lat, lon) + landed
        reason += said.map { $0 + named.joined(separator: ", ") + "." } ?? "."
        if let fix {
            reason += " It looks as if \(fix.slip): read so, \(grouped(fix.fits)) of \(grouped(fix.checked)) sampled wells land "
                + (said != nil ? "where their rows say." : "inside it.")
        } else {
            reason += " No usual slip (a lost minus sign, swapped columns, swapped x/y, feet read as metres, another UTM zone or state plane) puts them there;"
                + " check the coordinate columns and their CRS."
        }
        return ImportError(.misplaced, reason, remedy: .relocate(fix), file: summary.file)
    }
}
