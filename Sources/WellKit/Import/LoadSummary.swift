/// What a load did, as printed by `wells load` and recorded in the `loads` table.
public struct LoadSummary: Sendable, Codable {
    public var file: String
    public var sha256: String
    /// The `loads.id` of this load; nil for a dry run.
    public var loadID: Int64?
    /// Data records in the file (lines of a multi-line record count once).
    public var records = 0
    /// New wells.
    public var inserted = 0
    /// Wells already in the store, updated from this file.
    public var updated = 0
    /// Wells deleted: by ``WellStore/delete(identifier:)-6qggd`` and the other edits; a load deletes none.
    public var deleted = 0
    /// Records that did not load; each is in `rejects`.
    public var rejected = 0
    /// Detail values kept as raw text because they did not parse (such as "NA" for a depth).
    public var badValues = 0
    /// Records rejected because their identifier was repeated in the file.
    public var duplicates = 0
    /// Records given a generated `FILE@TAG:LINE` identifier.
    public var generatedIdentifiers = 0
    /// Reject counts by reason kind, such as "latitude out of range".
    public var rejectReasons: [String: Int] = [:]
    /// Bad value counts by field.
    public var badValuesByField: [String: Int] = [:]
    /// The field → column mapping used.
    public var mapping: [String: String] = [:]
    /// The source columns kept as JSON.
    public var extraColumns: [String] = []
    /// The source CRS (or "per-row datum"), and the operations PROJ used to reach EPSG:4326.
    public var crs = "EPSG:4326"
    public var transformations: [Transformation] = []
    /// Warnings worth reading, such as a grid PROJ needs for a better transformation.
    public var warnings: [String] = []
    public var seconds = 0.0
    /// The journal the load committed through: "delete" (a rollback journal, for the first load
    /// into an empty store) or "wal"; nil for a dry run.
    public var journal: String?
    /// Seconds spent in each phase: `read` (of which `parse`, locating and validating the
    /// records, and `suspects`), `rows` (writing them), `identifierIndex` (building the index of
    /// identifiers, when a load adds many wells), `index` (packing the R*Tree) and `commit`.
    public var phases: [String: Double] = [:]
    /// Wells loaded, new or updated.
    public var loaded: Int { inserted + updated }
    /// For a dry run: the first records as they would be stored.
    public var preview: [[String: String]] = []
    /// Lines starting with `#` before the header, skipped (USGS NWIS RDB files have them).
    public var commentLines = 0
    /// Title lines before the header that were skipped (`Oklahoma Corporation Commission - Well Data Export`).
    public var titleLines = 0
    /// The sheets of a workbook, the members of an archive, or the features of a GeoJSON, KML or
    /// shapefile input, with what the load took from each; empty for a delimited text file.
    public var sources: [LoadSource] = []
    /// What the loader inferred about the columns, with the evidence for each.
    public var inferences: [Inference] = []
    /// Each mapped date column: the format its values were read in and how many did not fit it.
    public var dateColumns: [DateColumnReport] = []
    /// The first of the title lines skipped (cut at 200 characters), which the summary shows; nil when none were.
    public var firstTitleLine: String?
    /// Per depth or elevation field (`total_depth`, `ground_elevation`, `kb_elevation`), the unit its
    /// source column was in (`ft` or `m`); the store holds every such value in metres.
    public var units: [String: String] = [:]
    /// Identifiers in scientific notation (`5.12511E+12`), which a spreadsheet rounded; a warning names the column.
    public var scientificIdentifiers = 0
    /// Set when the identifier column turned out not to be a key for this file.
    public var identifierNotKey: IdentifierReport?
    /// For a release (``LoadOptions/release``): its source, its number and what changed in it.
    public var release: LoadedRelease?
    /// Wells whose coordinates look wrong: loaded and flagged, or rejected with `rejectSuspects`.
    public var suspects: [Suspect] = []
    /// Where the wells landed, most first: the US state (`Tennessee, US`) or the country holding
    /// them, or `at sea`, with their share of the wells (of a sample of at most ``Landing/sample``).
    public var landed: [Landing] = []
    /// The column mapping, a line per field in name order (`  field ← Column`), then the columns kept as JSON.
    public var mappingDescription: String {
        ColumnMapping.describe(mapping.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }, extra: extraColumns)
    }
    /// Suspect counts by reason.
    public var suspectReasons: [String: Int] {
        Dictionary(suspects.map { ($0.reason, 1) }, uniquingKeysWith: +)
    }
}

extension LoadSummary {
    /// Adds the counts of detail values that did not parse, per field of ``WellField/detailValueFields``.
    package mutating func count(badValues: [Int]) {
        for (field, count) in zip(WellField.detailValueFields, badValues) where count > 0 {
            badValuesByField[field.rawValue, default: 0] += count
        }
        self.badValues = badValuesByField.values.reduce(0, +)
        for k in dateColumns.indices { dateColumns[k].notFitting = badValuesByField[dateColumns[k].field] ?? 0 }
    }
}

/// A sheet, an archive member or a file of features, and what a load took from it.
public struct LoadSource: Sendable, Codable, Equatable {
    /// `sheet`, `member`, `feature` (GeoJSON), `placemark` (KML) or `record` (a shapefile).
    public var kind: String
    /// The sheet's or member's name (`Wells`, `wells.csv`); nil for a file of features.
    public var name: String?
    /// The archive member that holds the sheet, for a workbook inside an archive.
    public var member: String?
    /// Records read from it, below its header.
    public var records = 0
    /// Of them, records that are wells of this load (before duplicates of other records are settled).
    public var wells = 0
    /// Of them, records rejected, each in ``LoadSummary`` rejects with its sheet and row.
    public var rejected = 0
    /// Rows that repeat a well of an earlier sheet or member (the same identifier, no value that
    /// differs) and were merged into it: one well, with the values of both.
    public var merged = 0
    /// Why no record was taken from it (a sheet with no coordinate columns); nil when it was read.
    public var skipped: String?

    /// `sheet "Wells"`, `member "wells.csv"`, or `features`.
    public var title: String {
        (member.map { "member \"\($0)\" " } ?? "") + (name.map { "\(kind) \"\($0)\"" } ?? kind + "s")
    }
}

/// Why an identifier column is not a key for a file: its values repeat over different wells.
public struct IdentifierReport: Sendable, Codable, Equatable {
    public var column: String
    public var rows: Int
    public var distinct: Int
    public var mostRepeated: String
    public var mostRepeatedCount: Int
    /// Rows whose identifier repeats one at another location or under another name.
    public var differentWells: Int
}

/// A well whose coordinates are valid numbers but almost certainly wrong.
public struct Suspect: Sendable, Codable, Equatable {
    public var line: Int
    public var identifier: String
    /// A short reason for counting: "longitude sign", "latitude sign", "swapped", "lost digit", "far from the others".
    public var reason: String
    /// What was found, such as "with the sign flipped it lies 3 km from other wells".
    public var detail: String
}

/// A coordinate operation a load used: from which CRS, how many wells, by which PROJ operation, how accurate.
public struct Transformation: Sendable, Codable, CustomStringConvertible {
    public var source: String
    public var wells: Int
    public var operation: String
    /// PROJ's stated accuracy in metres; nil when PROJ does not know it.
    public var accuracyMeters: Double?
    /// The grid files the operation reads, such as NOAA's NADCON `us_noaa_conus.tif` for NAD27.
    public var grids: [String] = []

    public var description: String {
        "\(source) → EPSG:4326 for \(wells) wells by '\(operation)'"
            + (grids.isEmpty ? "" : " with grid \(grids.joined(separator: ", "))")
            + " (" + (accuracyMeters.map { "stated accuracy \($0) m" } ?? "accuracy unknown") + ")"
    }
}

/// The release a load was (``LoadSummary/release``).
public struct LoadedRelease: Sendable, Codable, Equatable {
    public var source: String
    public var number: Int
    public var summary: ReleaseSummary
}
