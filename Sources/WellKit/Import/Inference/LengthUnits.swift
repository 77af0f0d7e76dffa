/// The unit of each depth and elevation column, from its name (or the user's word), and the factor
/// that stores its values in metres.
///
/// Agencies write depths in feet or metres and say so in the header, if anywhere: `Well Depth (ft)`,
/// `total_depth_m`, `Elevation (feet)`; USGS NWIS's `well_depth_va`, `hole_depth_va` and `alt_va`
/// are in feet (NWIS's site-file documentation). Stored as written, one list in feet and another
/// in metres made `count --mean total_depth` over both mean nothing; so every value whose unit is
/// known is stored in metres, and the load records the source unit (``LoadSummary/units``, and a
/// `unit` inference in the `loads` row) so `wells show` can say it. A column whose name states no
/// unit is stored as written, as before, and the dry run says so and names the option.
struct LengthUnits {
    /// The fields measured in length.
    static let fields: [WellField] = [.totalDepth, .groundElevation, .kbElevation]
    static let feet = 0.3048

    /// Per field, the source unit of its column (only the fields with a column and a known unit).
    private(set) var units: [WellField: LoadOptions.LengthUnit] = [:]
    private(set) var inferences: [Inference] = []

    init(mapping: ColumnMapping, options: LoadOptions) {
        for field in Self.fields {
            guard let index = mapping.indices[field] else { continue }
            let column = mapping.header[index]
            let given = field == .totalDepth ? options.depthUnit : options.elevationUnit
            let named = Self.unit(named: column)
            let option = options.describeRemedy(.lengthUnit(field == .totalDepth ? "depth" : "elevation"))
            guard let unit = given ?? named?.unit else {
                inferences.append(Inference(subject: "unit", column: column, value: "\(field.rawValue): unit not stated, stored as written",
                                            evidence: "the column's name says no unit (ft, feet, m, metres)", override: option))
                continue
            }
            units[field] = unit
            inferences.append(Inference(
                subject: "unit", column: column,
                value: "\(field.rawValue) in \(unit.rawValue)" + (unit == .feet ? ", stored in metres (× 0.3048)" : ", stored as metres"),
                evidence: given != nil ? "given" : named!.evidence,
                override: option))
        }
    }

    /// The factor to metres of each detail slot (as in ``WellField/detailValueFields``): 0.3048 for
    /// feet, else 1 (a multiplication by 1 is exact, so a slot needs no branch).
    var factors: [Double] {
        WellField.detailValueFields.map { units[$0] == .feet ? Self.feet : 1 }
    }

    /// The units as ``LoadSummary/units`` keeps them: field name → `ft` or `m`.
    var summary: [String: String] {
        Dictionary(uniqueKeysWithValues: units.map { ($0.key.rawValue, $0.value.rawValue) })
    }

    /// The unit a column's name states, with the words that say it.
    static func unit(named column: String) -> (unit: LoadOptions.LengthUnit, evidence: String)? {
        let words = ColumnInference.headerWords(column)
        if let word = words.first(where: feetWords.contains) { return (.feet, "the column's name says \"\(word)\"") }
        if let word = words.dropFirst().first(where: metreWords.contains) { return (.metres, "the column's name says \"\(word)\"") }
        if nwisFeet.contains(ColumnMapping.normalize(column)) { return (.feet, "USGS NWIS's \(column) is in feet") }
        return nil
    }

    /// The column's name without its unit words: `Well Depth (ft)` → `Well Depth`, for the mapping's synonyms.
    static func withoutUnit(_ column: String) -> String {
        let words = ColumnInference.headerWords(column)
        let kept = words.enumerated().filter { k, word in !feetWords.contains(word) && !(k > 0 && metreWords.contains(word)) }.map(\.element)
        return kept.count == words.count ? column : kept.joined(separator: " ")
    }

    static let feetWords: Set<String> = ["ft", "feet", "foot", "fts"]
    static let metreWords: Set<String> = ["m", "meter", "meters", "metre", "metres", "mtr", "mtrs"]
    /// NWIS site-file columns in feet: well depth, hole depth, altitude of land surface.
    static let nwisFeet: Set<String> = ["welldepthva", "holedepthva", "altva"]
}
