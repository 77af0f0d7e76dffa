import Foundation

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
