// The wells whose coordinates look wrong (``SuspectCoordinates``, the place check's findings, signs
// implied into the open sea), flagged in the summary or rejected.

extension ScannedFile {
    /// Flags wells whose coordinates look wrong (``SuspectCoordinates``), or rejects them with `reject`.
    ///
    /// - Parameter placeFindings: The wells outside the places their rows name (``checkPlaces(_:)``), which take precedence.
    mutating func flagSuspects(reject: Bool, placeFindings: [SuspectCoordinates.Finding] = []) {
        // A well outside its row's place keeps the slip that would put it back; one that no slip explains
        // keeps the neighbours' reason (such as "far from the others") when they have one, with the place's detail.
        let places = Places.shared
        let countryOf = places.map { places in { (lat: Double, lon: Double) in places.country(containing: lon, latitude: lat) } }
        var byIndex = Dictionary(SuspectCoordinates.find(records.indices.map { records.coordinates($0) }, countryOf: countryOf).map { ($0.index, $0) },
                                 uniquingKeysWith: { a, _ in a })
        for finding in placeFindings {
            if finding.reason == SuspectCoordinates.outsidePlace, var other = byIndex[finding.index] {
                other.detail = finding.detail + "; " + other.detail
                byIndex[finding.index] = other
            } else {
                byIndex[finding.index] = finding
            }
        }
        let findings = byIndex.values.sorted { $0.index < $1.index }
        guard !findings.isEmpty else { return }
        for finding in findings {
            let record = records[finding.index]
            if reject {
                rejects.appendLater(Reject(line: record.line, column: mapping.column(for: .longitude), kind: RejectKind(suspect: finding.reason),
                                      reason: "coordinates look wrong (\(finding.reason)): \(finding.detail); "
                                        + "correct them, or load without \(validator.describe(.rejectSuspects)) to keep the well flagged",
                                      raw: file.text(at: record.range)))
            } else {
                summary.suspects.append(Suspect(line: record.line, identifier: identifier(of: record),
                                                reason: finding.reason, detail: finding.detail))
            }
        }
        if reject {
            let drop = Set(findings.map(\.index))
            records = records.selecting(records.indices.lazy.filter { !drop.contains($0) })
        }
    }

    /// The wells that `--implied-west` (or `--implied-south`) put in the open sea where, read east
    /// (north) as written, they lie on land or within reach of it (an atoll the outlines leave out,
    /// such as Kwajalein's Roi-Namur, 200 km from the Marshall Islands' outline): NWIS's Pacific
    /// list with its minus signs lost is loaded so (it stops, suggesting it), and the wells of Guam
    /// and Saipan, written east and rightly
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
                // On land as written (within the outlines' 2 km), or within reach of it: an atoll the 1:50m
                // outlines leave out (Kwajalein, Kosrae) is all an offshore well needs.
                guard let (a, b) = written(lat, lon), let (country, metres) = places.nearestCountry(to: b, latitude: a, within: Places.seaTolerance),
                      metres <= Places.tolerance || !openSea.contains(longitude: b, latitude: a) else { continue }
                let name = places.places[country].name
                let whereWritten = metres <= Places.tolerance ? "on land (\(name))"
                    : "\(Int((metres / 1000).rounded())) km from the outline of \(name), not in the open sea"
                findings.append(.init(
                    index: k, reason: reason,
                    detail: "in the open sea, over \(Int(Places.seaTolerance / 1000)) km from land, with \(read); "
                        + "at \(a.projDecimal(6)), \(b.projDecimal(6)) it would be \(whereWritten)"))
                break
            }
        }
        return findings
    }
}
