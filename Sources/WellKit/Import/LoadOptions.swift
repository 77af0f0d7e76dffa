/// How ``WellStore/load(csvAt:options:)`` reads and validates a file.
public struct LoadOptions: Sendable {
    /// What to do when a file repeats an identifier.
    public enum DuplicateRule: String, Sendable, CaseIterable {
        /// Keep the first row; reject the later ones, naming the line that won.
        case first
        /// Keep the last row; reject the earlier ones, naming the line that replaced them.
        case last
    }

    /// What to do with a row whose identifier is empty.
    public enum MissingIdentifierRule: String, Sendable, CaseIterable {
        /// Give it the identifier `FILE@TAG:LINE`, stable across reloads of the same file.
        case generate
        /// Reject the row.
        case reject
    }

    /// Which column identifies a well.
    public enum IdentifierChoice: Sendable, Equatable {
        /// The column whose header names an identifier and whose values are the most unique; if its
        /// values repeat over clearly different wells, it is not a key, and wells get generated identifiers.
        case automatic
        /// This column, as a key: repeated values are duplicates (`--id COLUMN`).
        case column(String)
        /// No column: every well gets a generated `FILE@TAG:LINE` identifier (`--id none`).
        case none
    }

    /// Which column identifies a well (`--id`).
    public var identifier: IdentifierChoice = .automatic
    /// Infer coordinate columns, their format, hemisphere and datum from the values (`--no-infer` turns it off).
    public var infer = true
    /// Reject wells whose coordinates look wrong instead of loading and flagging them (`--reject-suspects`).
    public var rejectSuspects = false
    /// Stop a load whose wells mostly lie outside the states or countries their rows name, or
    /// outside the area of use of the CRS they were read in (``ImportError/Code/misplaced``).
    /// When false (`--no-location-check`) such a file loads, and each well outside its place is flagged.
    public var checkLocations = true
    /// The columns that name each row's state or country, found by inference.
    var placeColumns: [PlaceColumn] = []
    /// Field name → source column, overriding the automatic mapping (`--map field=Column`).
    public var mapping: [String: String] = [:]
    /// Which columns hold the position, in which CRS or datum, and whether as DMS text.
    public var coordinates = CoordinateOptions()
    /// The delimiter; detected from the header when nil.
    public var delimiter: UInt8?
    public var onDuplicate: DuplicateRule = .first
    public var onMissingIdentifier: MissingIdentifierRule = .generate
    /// Validate and report without writing anything.
    public var dryRun = false
    /// How many parsed records a dry run shows.
    public var previewCount = 5
    /// Called now and then, from the loading threads, with how far the load has got.
    public var progress: (@Sendable (LoadProgress) -> Void)?
    /// Words a ``LoadRemedy`` in the reasons of rejects, in warnings and in inferences; by default
    /// ``LoadRemedy/apiText``. `wells` names its flags instead.
    public var describeRemedy: @Sendable (LoadRemedy) -> String = { $0.apiText }

    public init() {}
}

/// How far a load has got: the file read, then the wells written.
public struct LoadProgress: Sendable, Equatable {
    public enum Phase: String, Sendable {
        /// Reading and validating the file; counted in bytes.
        case reading
        /// Writing the wells; counted in wells.
        case writing
        /// Building the identifier index, then the spatial index, then committing; counted in these 3 steps.
        case indexing
    }

    public var phase: Phase
    public var done: Int
    public var total: Int

    public init(phase: Phase, done: Int, total: Int) {
        self.phase = phase
        self.done = done
        self.total = total
    }
}

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
    /// What the loader inferred about the columns, with the evidence for each.
    public var inferences: [Inference] = []
    /// Set when the identifier column turned out not to be a key for this file.
    public var identifierNotKey: IdentifierReport?
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

/// A place where a load's wells landed, and their share of the wells.
public struct Landing: Sendable, Codable, Equatable, CustomStringConvertible {
    /// The wells a load's landing is judged on, evenly spread through the file, at most.
    public static let sample = 1_000
    public var place: String
    /// From 0 to 1.
    public var share: Double

    public var description: String {
        let percent = share * 100
        return "\(place) " + (percent >= 1 || percent == 0 ? "\(Int(percent.rounded()))%" : "<1%")
    }

    /// Where `points` lie, by US state, else country, else "at sea", the commonest first.
    static func of(_ points: [(lat: Double, lon: Double)], _ places: Places) -> [Landing] {
        var counts: [String: Int] = [:]
        for point in points {
            let (country, state) = places.location(longitude: point.lon, latitude: point.lat)
            counts[state.map { "\($0.name), US" } ?? country.map { places.places[$0].name } ?? "at sea", default: 0] += 1
        }
        return counts.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.map { Landing(place: $0.key, share: Double($0.value) / Double(points.count)) }
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

/// One rejected record: where it is, why, and its raw text.
public struct Reject: Sendable, Equatable {
    public var line: Int
    public var column: String?
    /// A short kind for counting, such as ``RejectKind/latitudeOutOfRange``.
    public var kind: RejectKind
    /// The full reason, with the value and how to fix it.
    public var reason: String
    public var raw: String
}

/// Why a row did not load, for counting and matching; the raw value is the text that
/// ``LoadSummary/rejectReasons`` counts under, such as "latitude out of range".
public enum RejectKind: String, Sendable, CaseIterable, Codable {
    case malformedQuoting = "malformed quoting"
    case wrongFieldCount = "wrong field count"
    case unknownDatum = "unknown datum"
    case notTransformable = "coordinates not transformable"
    case coordinatesSwapped = "coordinates swapped"
    case latitudeOutOfRange = "latitude out of range"
    case longitudeOutOfRange = "longitude out of range"
    case zeroCoordinates = "zero coordinates"
    case missingIdentifier = "missing identifier"
    case missingCoordinates = "missing coordinates"
    case coordinateNotANumber = "coordinate not a number"
    case duplicateIdentifier = "duplicate identifier"
    case duplicateWell = "duplicate well"
    /// ``LoadOptions/rejectSuspects``: the longitude's sign looks flipped.
    case suspectLongitudeSign = "suspect: longitude sign"
    /// ``LoadOptions/rejectSuspects``: the latitude's sign looks flipped.
    case suspectLatitudeSign = "suspect: latitude sign"
    /// ``LoadOptions/rejectSuspects``: latitude and longitude look swapped.
    case suspectSwapped = "suspect: swapped"
    /// ``LoadOptions/rejectSuspects``: a coordinate looks like it lost a digit.
    case suspectLostDigit = "suspect: lost digit"
    /// ``LoadOptions/rejectSuspects``: the well lies far from all the others.
    case suspectFarFromOthers = "suspect: far from the others"
    /// ``LoadOptions/rejectSuspects``: the well lies outside the state or country its row names, and no slip explains it.
    case suspectOutsidePlace = "suspect: outside named place"

    /// The kind for a suspect finding's reason, one of ``SuspectCoordinates``' slips.
    init(suspect reason: String) {
        guard let kind = RejectKind(rawValue: "suspect: " + reason) else {
            preconditionFailure("RejectKind: SuspectCoordinates reported \"\(reason)\", which has no case")
        }
        self = kind
    }
}
