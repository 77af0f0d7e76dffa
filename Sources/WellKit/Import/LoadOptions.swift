/// How ``WellStore/load(csvAt:options:rejects:)`` reads and validates a file.
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

    /// A unit of length, of the depth and elevation columns.
    public enum LengthUnit: String, Sendable, CaseIterable {
        case feet = "ft"
        case metres = "m"
    }

    /// The unit of the total depth column (`--units depth=ft`); nil to read it from the column's name
    /// (`Well Depth (ft)`, `total_depth_m`, NWIS's `well_depth_va` in feet). Depths in feet are stored in metres.
    public var depthUnit: LengthUnit?
    /// The unit of the ground and KB elevation columns (`--units elevation=ft`); nil to read it from their names.
    public var elevationUnit: LengthUnit?

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
    /// The format of date columns, by field name (`spud_date`) or source column, overriding the
    /// format inferred from their values (`--date-format spud_date=%d/%m/%Y`): ``DateFormat``.
    public var dateFormats: [String: DateFormat] = [:]
    /// The day two-digit years and Excel serials are judged against; nil for the day of the load (tests set it).
    package var today: DateFormat.Today?
    /// Which columns hold the position, in which CRS or datum, and whether as DMS text.
    public var coordinates = CoordinateOptions()
    /// The delimiter; detected from the header when nil.
    public var delimiter: UInt8?
    public var onDuplicate: DuplicateRule = .first
    public var onMissingIdentifier: MissingIdentifierRule = .generate
    /// The sheet of a workbook to load (`--sheet`); nil loads every sheet that has wells (a
    /// header whose columns hold coordinates). An archive's workbooks are read the same way.
    public var sheet: String?
    /// The member of a `.zip` archive to load (`--member`), by its path in the archive or its file
    /// name; nil loads every member that is delimited text or a workbook.
    public var member: String?
    /// The most bytes of a stream (standard input, a pipe, a FIFO) copied to the temporary file a
    /// load maps (`--spool-limit`); past it, or past 90% of the free space of the temporary folder
    /// (whichever is less), the load stops with ``ImportError/Code/tooLarge`` and removes the copy.
    /// Nil: the free space alone.
    public var spoolLimit: Int?
    /// Load the file as a release of its source: the complete current list, whose absent wells are
    /// gone, each change recorded (``WellStore/changes(_:)-7jk4o``). Nil: a plain load, which updates the
    /// wells it lists and leaves the others as they are.
    public var release: ReleaseOptions?
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
        /// Building the identifier index, then the spatial index, then committing; counted in these
        /// 3 steps: from `done` 2 on, the transaction may have committed (until then it has not).
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
