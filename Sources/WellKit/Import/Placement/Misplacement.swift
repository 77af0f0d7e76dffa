import Foundation

// When most of a file's wells lie outside the places its rows name: the usual slips tried on the
// whole file for the one that puts them back (``PlacementFix``), and the error that stops the load.

extension ScannedFile {
    /// The slip that puts most of the checked wells where their rows say, if one puts at least 80% there.
    func wholeFileFix(checked: [Int], regions: [ExpectedRegion], regionOf: [Int32], places: Places,
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
    func misplacement(checked: [Int], far: Int, what: String, regions: [ExpectedRegion], regionOf: [Int32],
                              places: Places, fix: PlacementFix?, said: String?) -> ImportError {
        let lats = checked.map { records[$0].lat }.sorted()
        let lat = lats[lats.count / 2], lon = Longitude.median(checked.map { records[$0].lon })
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
