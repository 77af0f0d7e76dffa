/// Which source column feeds each ``WellField``.
///
/// For example:
///
/// ```swift
/// let mapping = try ColumnMapping(header: ["API#", "WELL NAME", "LAT", "LONG"])
/// mapping.column(for: .identifier)  // "API#"
/// ```
///
/// Automatic mapping compares header names after lower-casing them and dropping everything
/// but letters and digits, so `API WELL NUMBER`, `api_well_number` and `ApiWellNumber` match alike.
/// Each field has an ordered list of synonyms; the first synonym found in the header wins.
/// Columns that map to no field are kept, as JSON, in `details.extra`.
package struct ColumnMapping: Sendable, Equatable, CustomStringConvertible {
    /// The source header, as read.
    package let header: [String]
    /// The header index of each mapped field.
    package private(set) var indices: [WellField: Int]

    /// Maps `header` automatically, then applies `overrides` (field name → column name).
    ///
    /// - Throws: ``ImportError`` for an unknown field or a column not in the header,
    ///   and for a header without latitude and longitude columns unless `requireCoordinates` is false.
    package init(header: [String], overrides: [String: String] = [:], requireCoordinates: Bool = true, file: String? = nil) throws {
        self.header = header
        let normalized = header.map(Self.normalize)
        var indices: [WellField: Int] = [:]
        var taken = Set<Int>()
        // Depths and elevations are also matched without their unit words (`Well Depth (ft)` as `Well Depth`).
        let unitless = header.map { Self.normalize(LengthUnits.withoutUnit($0)) }
        for field in WellField.mappable {
            for names in LengthUnits.fields.contains(field) ? [normalized, unitless] : [normalized] where indices[field] == nil {
                for synonym in Self.synonyms[field] ?? [] {
                    if let index = names.firstIndex(of: synonym), !taken.contains(index) {
                        indices[field] = index
                        taken.insert(index)
                        break
                    }
                }
            }
        }
        for (name, column) in overrides.sorted(by: { $0.key < $1.key }) {
            guard let field = WellField(rawValue: name), field != .id else {
                throw ImportError(
                    .unknownField,
                    "unknown field \"\(name)\"", remedy: .chooseField(given: name),
                    file: file)
            }
            if column.isEmpty {
                indices[field] = nil
                continue
            }
            guard let index = header.firstIndex(of: column) ?? normalized.firstIndex(of: Self.normalize(column)) else {
                throw ImportError(
                    .unknownColumn,
                    "no such column", remedy: .chooseColumn(.mapping(field: name), given: column), header: header,
                    file: file)
            }
            for (other, otherIndex) in indices where otherIndex == index && other != field { indices[other] = nil }
            indices[field] = index
        }
        self.indices = indices
        if requireCoordinates && (indices[.latitude] == nil || indices[.longitude] == nil) {
            let missing = [WellField.latitude, .longitude].filter { indices[$0] == nil }.map(\.rawValue)
            throw ImportError(
                .noCoordinateColumns,
                "no \(missing.joined(separator: "/")) column in decimal degrees among: \(ImportError.listing(header)).",
                remedy: .mapColumns, header: header,
                file: file)
        }
    }

    /// The same mapping with `field` fed by no column.
    func without(_ field: WellField) -> ColumnMapping {
        var copy = self
        copy.indices[field] = nil
        return copy
    }

    /// The source column that feeds `field`, if any.
    package func column(for field: WellField) -> String? {
        indices[field].map { header[$0] }
    }

    /// Header indices that feed no field, in header order.
    package var unmappedIndices: [Int] {
        let mapped = Set(indices.values)
        return header.indices.filter { !mapped.contains($0) }
    }

    /// The mapping as field name → column name, for the `loads` table and `--dry-run`.
    package var fieldColumns: [(field: String, column: String)] {
        WellField.mappable.compactMap { field in column(for: field).map { (field.rawValue, $0) } }
    }

    package var description: String {
        Self.describe(fieldColumns, extra: unmappedIndices.map { header[$0] })
    }

    /// The mapping as `--dry-run` prints it: a line per field (`  field ← Column`), then the columns kept as JSON.
    static func describe(_ fieldColumns: [(field: String, column: String)], extra: [String]) -> String {
        var lines = fieldColumns.map { "  \($0.field.padding(toLength: 17, withPad: " ", startingAt: 0)) ← \($0.column)" }
        if !extra.isEmpty { lines.append("  (kept as JSON)    ← \(extra.joined(separator: ", "))") }
        return lines.joined(separator: "\n")
    }

    /// Lower-cases and keeps only ASCII letters and digits: `"API WELL NUMBER"` → `"apiwellnumber"`.
    static func normalize(_ name: String) -> String {
        String(String.UnicodeScalarView(name.lowercased().unicodeScalars.filter {
            ("a"..."z").contains($0) || ("0"..."9").contains($0)
        }))
    }

    /// Synonyms per field, normalised, best first.
    static let synonyms: [WellField: [String]] = [
        .identifier: ["uwi", "api", "apinum", "apino", "apinumber", "apiwellnumber", "api10", "api12", "api14",
                      "apiwellno", "uwinumber", "wellid", "wellidentifier", "siteno", "siteid", "wellkey", "id", "objectid"],
        .name: ["wellname", "name", "stationnm", "stationname", "wellnm", "sitename", "leasename", "lease"],
        .latitude: ["latitude", "lat", "surfacelatitude", "surfacelat", "declatva", "latdd", "latdecimal",
                    "latitudedecimal", "latitudenad83", "latnad83", "wgs84latitude", "lat83", "ylat", "lat27"],
        .longitude: ["longitude", "lon", "long", "lng", "surfacelongitude", "surfacelong", "surfacelon", "declongva",
                     "londd", "longdd", "londecimal", "longitudedecimal", "longitudenad83", "longnad83", "wgs84longitude",
                     "long83", "lon83", "xlong", "long27", "lon27"],
        .operator: ["operator", "operatorname", "currentoperator", "licensee", "licenseename", "company", "companyname"],
        .status: ["status", "wellstatus", "currentstatus", "statusdesc", "statuscode"],
        .type: ["welltype", "type", "typedesc", "wellclass"],
        .fluid: ["fluid", "fluidtype", "product", "producttype", "welltypefluid"],
        .field: ["field", "fieldname", "fieldnm"],
        .formation: ["formation", "formationname", "producingformation", "pool", "poolname", "zone"],
        .county: ["county", "countyname", "countynm", "region", "parish"],
        .state: ["state", "stusps", "province", "stateprovince", "stateabbr", "statecd", "prov"],
        .licence: ["licence", "licencenumber", "licenceno", "license", "licensenumber", "licenseno", "permit",
                   "permitnumber", "permitno", "permitnum"],
        .spudDate: ["spuddate", "spud", "dtspud", "spuddt"],
        .completionDate: ["completiondate", "completeddate", "finaldrilldate", "compdate", "completed", "rigreleasedate"],
        .plugDate: ["plugdate", "pluggeddate", "plugdt", "abandonmentdate", "abandoneddate"],
        .totalDepth: ["totaldepth", "totaldepthm", "totaldepthft", "td", "dtd", "welldepth", "welldepthva", "holedepthva",
                      "depth", "md", "tvd"],
        .groundElevation: ["groundelevation", "groundelevationm", "groundelev", "grelev", "elevgl", "glelev", "elevation",
                           "altva", "elev"],
        .kbElevation: ["kbelevation", "kbelevationm", "kbelev", "elevkb", "kb"],
    ]
}
