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
