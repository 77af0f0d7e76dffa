import Foundation

// Which place a row's cell names (a county by name or FIPS code) and which place holds a point
// (its country, its US state).

extension Places {
    /// The counties' indices, for looking up the county a row names.
    struct CountyIndex: Sendable {
        /// A county's index by its state's FIPS code and ``countyKey(_:)`` of its name (`47:OVERTON`).
        var byName: [String: Int] = [:]
        /// A county's index by its 5-digit FIPS code (`47133`).
        var byFIPS: [String: Int] = [:]
    }

    /// The counties' indices, made on first use: only a file with a county column looks a county
    /// up, and the keys of the 3,222 names (``countyKey(_:)``) were a quarter of the outlines' start-up.
    var counties: CountyIndex {
        countyIndex.withLock { index in
            if let index { return index }
            var made = CountyIndex()
            for (k, place) in places.enumerated() where place.kind == .county {
                if let state = place.state { made.byName[state + ":" + Self.countyKey(place.name)] = k }
                for code in place.codes { made.byFIPS[code] = k }
            }
            index = made
            return made
        }
    }

    /// A county's name as it is looked up: without accents, case, punctuation and a trailing
    /// `County`, `Parish`, `Borough` or `Co.`, and with `Saint` as `St`: `St. Louis County` → `STLOUIS`.
    static func countyKey(_ name: String) -> String {
        var words = name.folding(options: [.diacriticInsensitive, .caseInsensitive], locale: nil).uppercased()
            .split(whereSeparator: { !$0.isLetter && !$0.isNumber }).map(String.init)
        while let last = words.last, words.count > 1, ["COUNTY", "PARISH", "BOROUGH", "CO", "CNTY", "AREA", "CENSUS", "MUNICIPALITY"].contains(last) {
            words.removeLast()
        }
        return words.map { $0 == "SAINT" ? "ST" : $0 == "SAINTE" ? "STE" : $0 }.joined()
    }

    /// The county a cell names, given its state's FIPS code (or none, for a 5-digit FIPS code).
    func county(_ text: String, state: String?) -> Int? {
        let value = text.trimmingCharacters(in: .whitespaces)
        if value.count == 5, value.allSatisfy(\.isNumber) { return counties.byFIPS[value] }
        guard let state else { return nil }
        if value.count <= 3, let number = Int(value) { return counties.byFIPS[state + String(format: "%03d", number)] }
        return counties.byName[state + ":" + Self.countyKey(value)]
    }

    /// Whether the point lies on some country's land.
    func isOnLand(longitude: Double, latitude: Double) -> Bool {
        country(containing: longitude, latitude: latitude) != nil
    }

    /// The country whose land holds the point (its index), if any.
    func country(containing longitude: Double, latitude: Double) -> Int? {
        countries.first { contains($0, longitude: longitude, latitude: latitude) }
    }

    /// Where the point lies: the country whose land holds it, and the US state when it is in the US
    /// or on no country's land (the counties' 1:20M coasts are not the countries' 1:50m ones: some
    /// of the Hawaii list's wells lie off the one and on the other). The country is tested first, so
    /// that a point elsewhere pays no state's outline (Alaska's box spans the Aleutians).
    func location(longitude: Double, latitude: Double) -> (country: Int?, state: USState?) {
        let country = country(containing: longitude, latitude: latitude)
        guard country == nil || country == countryByName["USA"] else { return (country, nil) }
        return (country, state(containing: longitude, latitude: latitude))
    }

    /// The country whose land holds the point, or else the nearest within `metres` of it.
    func country(near longitude: Double, latitude: Double, within metres: Double) -> Int? {
        nearestCountry(to: longitude, latitude: latitude, within: metres)?.index
    }

    /// ``country(near:latitude:within:)`` with its distance in metres (0 on its land).
    func nearestCountry(to longitude: Double, latitude: Double, within metres: Double) -> (index: Int, metres: Double)? {
        if let inside = country(containing: longitude, latitude: latitude) { return (inside, 0) }
        let reach = metres / 110_574, reachLongitude = metres / (111_320 * max(0.01, cos(latitude * .pi / 180)))
        return countries.filter {
            let p = places[$0]
            return latitude >= p.south - reach && latitude <= p.north + reach
                && Longitude.outside(longitude, west: p.west, east: p.east) <= reachLongitude
        }.map { (index: $0, metres: distance(to: [$0], longitude: longitude, latitude: latitude)) }
            .filter { $0.metres <= metres }.min { $0.metres < $1.metres }
    }

    /// The state (as ``USState``) whose outline contains the point, if any.
    package func state(containing longitude: Double, latitude: Double) -> USState? {
        for state in USState.all {
            if let outline = stateByFIPS[state.fips], contains(outline, longitude: longitude, latitude: latitude) { return state }
        }
        return nil
    }
}
