import Foundation

/// A deterministic synthetic agency-style well list with a known answer, for testing what a loader infers.
///
/// The wells are those of ``WellGenerator`` for the same `count` and `seed` (names, licensees,
/// positions, statuses, spud dates and depths), moved 15° south so that every well lies in the
/// conterminous US: lat 34...45, lon -120...-110. Each ``Layout`` writes them the way one kind of
/// agency file does, dirty by construction, and ``render()`` returns an ``AnswerKey`` with what a
/// loader should find: the record count, the identifier column and whether it is a key, the
/// coordinate format, and the rejected, duplicated and suspect rows by 1-based physical line.
///
/// - ``Layout/nwisDMS``: a USGS NWIS RDB file; tab-delimited, LF, 6...10 `#` comment lines, a
///   column-format line after the header, 15-digit `site_no` text (about half with a leading zero),
///   compact DMS coordinates with the west hemisphere implied, a per-row datum column
///   (NAD27 ≈ 40%, NAD83 ≈ 50%, WGS84 ≈ 10%), and about 1% of rows without coordinates.
/// - ``Layout/damagedIDs``: a comma CSV with CRLF whose `Well API` column a spreadsheet rounded to
///   5...12 distinct values (`4.21235E+13` or `42123500000000`), so it is no key; about 0.5% of the
///   records are byte-for-byte copies of an earlier one.
/// - ``Layout/coordinateErrors``: a comma CSV with LF and a unique `API Number`; about 1% of the rows
///   carry one coordinate error each, in ``AnswerKey/Suspect/Reason`` rotation.
/// - ``Layout/antimeridian``: a list across ±180°, its wells elsewhere than the conterminous US
///   (``renderAntimeridian(into:)``), every field of every well in ``AnswerKey/wells``.
/// - ``Layout/blankHeaders``, ``Layout/excelGuarded``, ``Layout/depthsFeet``, ``Layout/depthsMetres``
///   (AgencyList+Headers.swift): headers as workbooks save them, Excel's `="…"` and units in the
///   names; their keys carry every well's every field (``AnswerKey/wells``).
///
/// The output depends only on `layout`, `count` and `seed`: the rows come from ``WellGenerator``'s
/// platform-independent stream, every other choice from the same kind of generator seeded with
/// `seed` mixed with the layout, and coordinates are converted in integer arithmetic; so the same
/// arguments give the same bytes on every run and machine. The file is built in memory (about
/// 100 bytes a record).
///
/// For example:
///
/// ```swift
/// let list = AgencyList(layout: .nwisDMS, count: 1000, seed: 7)
/// let key = try list.write(toFileAt: "nwis.tsv")
/// try key.write(toFileAt: "nwis.key.json")
/// ```
public struct AgencyList: Sendable {
    /// The agency layouts, named as on the command line.
    public enum Layout: String, CaseIterable, Sendable {
        /// USGS NWIS RDB: tab-delimited, comment lines, compact DMS and a per-row datum.
        case nwisDMS = "nwis-dms"
        /// A state list whose API column a spreadsheet rounded, with exact duplicate records.
        case damagedIDs = "damaged-ids"
        /// A state list with a unique API number and about 1% of rows with a coordinate error.
        case coordinateErrors = "coordinate-errors"
        /// A list with a State column whose longitudes all lost their minus sign.
        case lostSigns = "lost-signs"
        /// State-plane x/y in US survey feet with a State column, and no latitude or longitude.
        case statePlaneFeet = "state-plane-feet"
        /// NWIS RDB as `nwis-dms`, its datums written in the many ways agencies write them (`NAD 27`, `NAD1927`, …).
        case datumSpellings = "datum-spellings"
        /// An export: title lines, `;` with decimal commas, Windows-1252 punctuation, an EWKT point column.
        case export1252 = "export-1252"
        /// A European list: every date day first (`25/3/1982`), a few written month first and so unreadable.
        case dayMonthYear = "dates-dmy"
        /// Oracle's `08-AUG-99` dates, in upper, title and lower case, with two- and four-digit years.
        case oracleDates = "dates-oracle"
        /// Excel serial dates (`31110`, `36526.5`), a few of them Excel's 1900-02-29 (serial 60).
        case excelSerials = "dates-excel"
        /// Date columns in different formats: `dd.mm.yyyy`, ISO with years alone, and a `d/m/yy` column whose every value fits both orders.
        case mixedDates = "dates-mixed"
        /// A list across the antimeridian: an Alaska-like state with an island chain on both sides of ±180°, every field in the key.
        case antimeridian = "antimeridian"
        /// A side table under blank header cells and repeated names (`Remarks`, `Status`), as a workbook saved as CSV.
        case blankHeaders = "blank-headers"
        /// An Excel export with identifiers and permits guarded as `="00000012"`.
        case excelGuarded = "excel-guarded"
        /// Depths and elevations in feet, the unit in the names (`Well Depth (ft)`).
        case depthsFeet = "depths-feet"
        /// Depths and elevations in metres, the unit in the names (`Total Depth (m)`).
        case depthsMetres = "depths-metres"

        /// Whether a load with no options (or the key's ``AnswerKey/Placement/given`` ones) must stop with the key's fix.
        public var isMisplaced: Bool { self == .lostSigns || self == .statePlaneFeet }

        /// The value mixed into the seed, so each layout draws its own stream.
        var streamTag: UInt64 {
            switch self {
            case .nwisDMS: 0x6E77_6973_2D64_6D73 // "nwis-dms"
            case .damagedIDs: 0x6461_6D61_6765_6421 // "damaged!"
            case .coordinateErrors: 0x636F_6F72_6465_7272 // "coorderr"
            case .lostSigns: 0x6C6F_7374_7369_676E // "lostsign"
            case .statePlaneFeet: 0x7374_706C_6665_6574 // "stplfeet"
            case .datumSpellings: 0x6461_7475_6D73_7065 // "datumspe"
            case .export1252: 0x6578_7031_3235_3221 // "exp1252!"
            case .dayMonthYear: 0x6461_7465_7364_6D79 // "datesdmy"
            case .oracleDates: 0x6461_7465_736F_7261 // "datesora"
            case .excelSerials: 0x6461_7465_7378_6C73 // "datesxls"
            case .mixedDates: 0x6461_7465_736D_6978 // "datesmix"
            case .antimeridian: 0x616E_7469_6D65_7269 // "antimeri"
            case .blankHeaders: 0x626C_616E_6B68_6472 // "blankhdr"
            case .excelGuarded: 0x3D22_6775_6172_6422 // "=\"guard\""
            case .depthsFeet: 0x6465_7074_6866_6565 // "depthfee"
            case .depthsMetres: 0x6465_7074_686D_6574 // "depthmet"
            }
        }
    }

    /// The most records a list may have (the file is built in memory; `coordinate-errors` numbers
    /// at most 100,000 wells in each of its 68 counties).
    public static let maximumCount = 5_000_000

    /// The layout written.
    public let layout: Layout
    /// Number of data records, duplicates and rejected rows included.
    public let count: Int
    /// Seed of the pseudo-random streams.
    public let seed: UInt64

    /// Describes a list of `count` records (1...``maximumCount``) in `layout`, drawn from `seed`.
    public init(layout: Layout, count: Int = WellGenerator.defaultCount, seed: UInt64 = 1) {
        precondition((1...AgencyList.maximumCount).contains(count), "AgencyList needs 1...\(AgencyList.maximumCount) records, got \(count)")
        self.layout = layout
        self.count = count
        self.seed = seed
    }

    /// The whole file as text, and its answer key.
    public func render() -> (text: String, key: AnswerKey) {
        let (bytes, key) = renderBytes()
        return (String(decoding: bytes, as: UTF8.self), key)
    }

    /// The whole file as bytes (ASCII), and its answer key.
    public func renderBytes() -> (bytes: [UInt8], key: AnswerKey) {
        var text = Text(capacity: count * 128 + 1024)
        let key: AnswerKey
        switch layout {
        case .nwisDMS: key = renderNWIS(into: &text)
        case .damagedIDs: key = renderDamagedIDs(into: &text)
        case .coordinateErrors: key = renderCoordinateErrors(into: &text)
        case .lostSigns: key = renderLostSigns(into: &text)
        case .statePlaneFeet: key = renderStatePlaneFeet(into: &text)
        case .datumSpellings: key = renderNWIS(into: &text, spellings: true)
        case .export1252: key = renderExport(into: &text)
        case .dayMonthYear, .oracleDates, .excelSerials, .mixedDates: key = renderDates(into: &text)
        case .antimeridian: key = renderAntimeridian(into: &text)
        case .blankHeaders: key = renderBlankHeaders(into: &text)
        case .excelGuarded: key = renderExcelGuarded(into: &text)
        case .depthsFeet: key = renderDepths(into: &text, metres: false)
        case .depthsMetres: key = renderDepths(into: &text, metres: true)
        }
        return (text.bytes, key)
    }

    /// Writes the file to `path`, replacing any existing file.
    /// - Returns: The answer key.
    @discardableResult
    public func write(toFileAt path: String) throws -> AnswerKey {
        let (bytes, key) = renderBytes()
        guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else {
            throw WellGeneratorError.cannotCreateFile(path: path)
        }
        return key
    }

    /// Writes the file to standard output.
    /// - Returns: The answer key.
    @discardableResult
    public func writeToStandardOutput() throws -> AnswerKey {
        let (bytes, key) = renderBytes()
        try FileHandle.standardOutput.write(contentsOf: Data(bytes))
        return key
    }

    /// A generator for this layout's choices, independent of the well stream of the same seed.
    func layoutRandom() -> WellGenerator.Random {
        WellGenerator.Random(seed: WellGenerator.Random.mix64(seed ^ layout.streamTag))
    }
}

// MARK: - SelectionSampler

extension AgencyList {
    /// Chooses exactly `picks` of `candidates` consecutive positions, streaming (Knuth's Algorithm S).
    struct SelectionSampler {
        private var remainingPicks: Int
        private var remainingCandidates: Int

        /// Picks `min(picks, candidates)` positions out of `candidates`.
        init(picks: Int, candidates: Int) {
            remainingPicks = max(0, min(picks, candidates))
            remainingCandidates = max(0, candidates)
        }

        /// Whether the next candidate position is picked; call once per candidate, in order.
        mutating func next(_ random: inout WellGenerator.Random) -> Bool {
            guard remainingCandidates > 0 else { return false }
            defer { remainingCandidates -= 1 }
            guard remainingPicks > 0, random.below(remainingCandidates) < remainingPicks else { return false }
            remainingPicks -= 1
            return true
        }
    }
}
