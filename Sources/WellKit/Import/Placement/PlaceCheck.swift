import Foundation

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
        /// The region is the area of use of the CRS the user gave (``insideTheZonesStates(_:places:)``).
        var zoneGiven = false
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
            zoneGiven = true
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
        // (a retain of the shared outlines per well made two threads slower than one); a region's
        // wells in two halves on the two cores.
        var byRegion = [[Int]](repeating: [], count: regions.count)
        for k in checked { byRegion[Int(regionOf[k])].append(k) }
        var outside: [Int] = []
        let records = records
        for (r, rows) in byRegion.enumerated() where !rows.isEmpty {
            if let box = regions[r].box {
                for k in rows where !box.contains(longitude: records[k].lon, latitude: records[k].lat) { outside.append(k) }
            } else {
                let membership = Places.Membership(places, regions[r].places)
                // A smaller region stays on this thread: its test takes milliseconds, little against
                // handing half of its wells to another.
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
        if zoneGiven { outside = insideTheZonesStates(outside, places: places) }
        let keptEast = Set(keepEastWhereRowsSay(outside, regions: regions, regionOf: regionOf, places: places, options: options))
        if !keptEast.isEmpty { outside.removeAll { keptEast.contains($0) } }
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

    /// The wells of `outside` (outside the area of use of the CRS the user gave) that do not lie in a
    /// US state of the wells inside it: agencies use one zone statewide (Colorado's list is in UTM
    /// zone 13N, 108°W–102°W, across the whole state, to 109°W), and 8% of its right wells were
    /// flagged outside the zone. A state counts when it holds at least a tenth of a sample of the
    /// wells inside the area, so a slip that moves a few wells out of the state still flags them.
    func insideTheZonesStates(_ outside: [Int], places: Places) -> [Int] {
        guard !outside.isEmpty, outside.count < records.count else { return outside }
        let out = Set(outside)
        let inside = records.indices.lazy.filter { !out.contains($0) }
        let step = max(1, (records.count - outside.count) / 200)
        var counts: [String: Int] = [:], sampled = 0
        for (n, k) in inside.enumerated() where n % step == 0 {
            sampled += 1
            let (lat, lon) = records.coordinates(k)
            if let state = places.state(containing: lon, latitude: lat) { counts[state.fips, default: 0] += 1 }
        }
        let states = counts.filter { $0.value * 10 >= sampled }.keys.sorted().compactMap { places.stateByFIPS[$0] }
        guard !states.isEmpty else { return outside }
        let membership = Places.Membership(places, states)
        return membership.withContains { contains in
            outside.filter { k in
                let (lat, lon) = records.coordinates(k)
                return !contains(lon, lat)
            }
        }
    }

    /// Each record's region, from its row's place cells (-1 where none is found; empty cells are
    /// not checked), as a number in the regions returned, the most specific place a row names
    /// first; the regions in the order of each one's first record.
    ///
    /// The records before `split` and those after it are resolved on two threads, each half with
    /// its own names and regions; the second half's regions are then numbered after the first's,
    /// a name both halves met keeping the first's number: the answer is the one thread's
    /// (`PlaceCheckTests`), in less time than on one (the `places` phase of a load's summary).
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
        // bytes, so that a row costs a scan and a hash rather than strings.
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
        // Only the fields up to the last place column are split: the scan stops there, and a list
        // whose place column comes early is spared the scan of the fields after it.
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

}
