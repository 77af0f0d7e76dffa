import ArgumentParser
import Foundation
import WellKit

extension LoadOptions.DuplicateRule: ExpressibleByArgument {}
extension LoadOptions.MissingIdentifierRule: ExpressibleByArgument {}

extension Wells {
    struct Load: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "load",
            abstract: "Load a well list (CSV, TSV, an .xlsx workbook, a .zip or .gz of them, GeoJSON, KML or a point shapefile) into a store, in one transaction.",
            discussion: """
                Columns are inferred from their names and values: the identifier (Well API, UWI, site_no, …, the most \
                unique), the coordinates (decimal degrees, compact DMS such as 344512.3, DMS text, or degrees, minutes \
                and seconds in columns of their own such as LAT_DEG, LAT_MIN, LAT_SEC), their hemisphere, a datum \
                column (NAD27/NAD83/WGS84 per row, in any usual spelling) or a datum in the coordinate columns' names \
                (LAT_NAD27, LONG_NAD27), a column with both coordinates \
                (POINT (-97.5 35.4), (35.4, -97.5), a DMS pair), title lines before the header, the encoding \
                (UTF-8, or Windows-1252) and a decimal comma; --dry-run shows each inference with its evidence, and \
                --map, --id, --dms, --minutes/--seconds, --implied-west, --crs, --datum-column and --no-infer override them. `#` comment lines \
                before the header (USGS NWIS RDB) are skipped, and UTF-16 text is read. Blank header cells are named by \
                position (column_15) and repeated names kept apart (County_2), so no value is dropped; Excel's ="…" cells \
                are read as their text. Depths and elevations whose column names a unit (ft, feet, m) are stored in metres, \
                the source unit recorded with the load (--units overrides). Rows with missing, \
                unparseable, out-of-range or 0/0 coordinates are rejected and kept with their line and reason in the \
                store's rejects table. If an identifier column repeats over different wells, it is not a key: every \
                well loads with a generated FILE@TAG:LINE identifier, and the summary says so. A column naming each row's \
                state (postal code, name or FIPS code), county or country, or a US well API number (its state code), is \
                evidence: a well outside its place is flagged, and when most wells lie outside theirs (or outside the area \
                of use of --crs, or of each row's datum) the load stops with exit 65, where they landed and the command that \
                fixes it (--implied-west or --implied-south for lost minus signs, --map for swapped columns, --x/--y, a feet CRS or another \
                zone for projected values); --no-location-check loads them anyway. The summary says where the wells landed \
                (the US state or country), and warns when a file that names no place lands east of 0° but read west \
                would lie in one US state. Wells whose coordinates \
                look wrong (a lost sign or digit, swapped, far from the rest, or put by --implied-west or --implied-south in the open sea \
                where read east they lie on land) load and are flagged in the suspects table. Loading the same file again updates the wells it loaded before.

                The kind of file is told by its first bytes, not its name: an .xlsx workbook loads every sheet whose header \
                has coordinate columns (or --sheet NAME), its sheets' columns matched by the field each maps to, and a well \
                listed on two sheets (the same identifier) is one well; a .zip loads every .csv, .tsv, .txt or .xlsx member \
                as one list (or --member NAME); gzip is decompressed; GeoJSON features, KML placemarks and shapefile records \
                load with their attributes as columns and their point as the position, in the CRS of GeoJSON's crs member \
                or the shapefile's .prj. Rejects name the sheet and row, member and line, or feature.

                Examples:
                  wells load tn-oilgas-wells.csv --db wells.sqlite
                  wells load wells.csv --map operator=Licensee --rejects rejects.csv
                  wells load wells.tsv --dry-run
                  wells load nwis-sites.rdb --reject-suspects --format json
                  wells load damaged-api.csv --id none
                  wells load fl-orphan-wells.xlsx --sheet Sheet1
                  wells load wells.zip --member wells-2024.csv
                  wells load co-orphans-2026-06.csv --release
                """)

        @Argument(help: "The well list to load, or - for standard input.")
        var file: String

        @OptionGroup var store: StoreOptions

        @Option(name: .customLong("map"), help: ArgumentHelp("Map a field to a source column, as field=Column (repeatable).", valueName: "field=Column"))
        var mappings: [MappingArgument] = []

        @Option(name: .customLong("date-format"), help: ArgumentHelp(
            "Read a date column in a format, as COLUMN=FORMAT with strftime's %d %m %b %Y %y (%d/%m/%Y, %Y%m%d, %d-%b-%y, %Y), or excel for serial numbers (repeatable; COLUMN is a field such as spud_date or its source column; default: inferred from the values).",
            valueName: "column=format"))
        var dateFormats: [DateFormatArgument] = []

        @Option(help: ArgumentHelp("The CRS of the coordinate columns, such as EPSG:26916 or EPSG:4267 (default: EPSG:4326).", valueName: "crs"))
        var crs: String?

        @Option(help: ArgumentHelp("The easting or longitude column, for coordinates in --crs.", valueName: "column"))
        var x: String?

        @Option(help: ArgumentHelp("The northing or latitude column, for coordinates in --crs.", valueName: "column"))
        var y: String?

        @Option(name: .customLong("datum-column"), help: ArgumentHelp("A column giving each row's datum, such as NAD27, NAD83 or WGS84.", valueName: "column"))
        var datumColumn: String?

        @Option(name: .customLong("datum"), help: ArgumentHelp("Map a datum name in --datum-column to a CRS, as NAME=EPSG:CODE (repeatable).", valueName: "name=crs"))
        var datums: [DatumArgument] = []

        @Flag(help: "Read coordinates as degrees-minutes-seconds, compact (875013.67) or with symbols (36°54'1.2\"N).")
        var dms = false

        @Flag(name: .customLong("implied-west"), help: "Treat longitudes without a sign as west (negated): DMS as US lists write them, or decimal degrees that lost their minus sign (not projected --x/--y); a well whose row's state, county, country or API number holds it as written, east (Alaska's Attu), is kept east, and the summary says so.")
        var impliedWest = false

        @Flag(name: .customLong("implied-east"), help: "With DMS coordinates, treat unsigned longitudes as east.")
        var impliedEast = false

        @Flag(name: .customLong("implied-south"), help: "Treat latitudes without a sign as south (negated): DMS written without S, or decimal degrees of a southern list that lost their minus sign (not projected --x/--y).")
        var impliedSouth = false

        @Option(name: .customLong("degree-divisor"), help: ArgumentHelp(
            "The coordinates are degrees times this number, as fixed-point databases write them: 1000000 reads 36469556 as 36.469556.",
            valueName: "n"))
        var degreeDivisor: Double?

        @Option(help: ArgumentHelp(
            "The minutes columns of latitude and longitude columns of whole degrees, as LAT,LON (default: inferred from names such as LAT_DEG, LAT_MIN, LAT_SEC).",
            valueName: "lat,lon"))
        var minutes: ColumnPair?

        @Option(help: ArgumentHelp("Their seconds columns, as LAT,LON; with --minutes.", valueName: "lat,lon"))
        var seconds: ColumnPair?

        @Flag(name: .customLong("decimal-comma"), help: "Numbers are written with a decimal comma (36,469556), quoted in a comma-separated file (default: inferred when the delimiter is not a comma).")
        var decimalComma = false

        @Flag(name: .customLong("longitudes-0-360"), help: "Longitudes run from 0 to 360 east: one over 180 is read as that less 360 (274.74 → -85.26). A load whose rows are mostly over 180 stops and offers it.")
        var longitudes0To360 = false

        @Option(help: ArgumentHelp("The identifier column, taken as a key (repeats are rejected), or none for generated FILE@TAG:LINE identifiers.", valueName: "column|none"))
        var id: String?

        @Flag(name: .customLong("no-infer"), help: "Do not infer coordinate columns, DMS, hemisphere or datum from the values; use the names and flags only.")
        var noInfer = false

        @Flag(name: .customLong("no-location-check"),
              help: "Load wells that mostly lie outside the places their rows name, or outside their CRS's or datum's area of use, instead of stopping; each is flagged as a suspect.")
        var noLocationCheck = false

        @Option(name: .customLong("units"), help: ArgumentHelp(
            "The unit of the depth or elevation columns, as depth=ft, depth=m, elevation=ft or elevation=m (repeatable; default: read from "
                + "the columns' names, such as Well Depth (ft), total_depth_m or NWIS's well_depth_va and alt_va in feet). Values are stored in metres.",
            valueName: "what=unit"))
        var units: [String] = []

        @Flag(name: .customLong("reject-suspects"), help: "Reject wells whose coordinates look wrong instead of loading and flagging them.")
        var rejectSuspects = false

        @Option(help: ArgumentHelp("The sheet of an .xlsx workbook to load (default: every sheet whose header has coordinate columns).",
                                   valueName: "name"))
        var sheet: String?

        @Option(help: ArgumentHelp("The member of a .zip archive to load, by its path or file name (default: every .csv, .tsv, .txt or .xlsx member, as one list).",
                                   valueName: "name"))
        var member: String?

        @Option(name: .customLong("spool-limit"), help: ArgumentHelp(
            "Standard input or a pipe is copied to a temporary file to be read: stop, and remove the copy, past this size, such as 500M or 2G (default: 90% of the temporary folder's free space, which always bounds it).",
            valueName: "size"))
        var spoolLimit: ByteCountArgument?

        @Option(help: "The delimiter: comma, tab, semicolon or pipe (default: detected from the header).")
        var delimiter: Delimiter?

        @Option(name: .customLong("on-duplicate"), help: "Which row wins when the file repeats an identifier.")
        var onDuplicate: LoadOptions.DuplicateRule = .first

        @Option(name: .customLong("on-missing-id"), help: "What to do with a row without an identifier: generate FILE@TAG:LINE, or reject it.")
        var onMissingID: LoadOptions.MissingIdentifierRule = .generate

        @Option(help: "Also write the rejected rows, with line, column and reason, to this CSV file.")
        var rejects: String?

        @Flag(help: "Replace an existing --rejects file even when it is not a rejects file WellKit wrote.")
        var force = false

        @Flag(help: "Load the file as a release of its source: the complete current list, whose wells absent from it are gone (kept in their history, left out of queries); every change is recorded for wells changes.")
        var release = false

        @Option(help: ArgumentHelp("With --release, the source's name (default: the file's name without its extensions and any date in it: co-orphans-2026-05.csv is a release of co-orphans).", valueName: "name"))
        var source: String?

        @Flag(name: .customLong("confirm-gone"), help: "With --release, mark the wells gone even when most of the source's wells are missing from the file (otherwise the load stops, as a truncated download would make it).")
        var confirmGone = false

        @Flag(help: "Print the column mapping and the first records as they would be stored, and write nothing.")
        var dryRun = false

        @Option(help: "The summary format.")
        var format: SummaryFormat = .text

        @Flag(name: .shortAndLong, help: "Do not show a progress bar.")
        var quiet = false

        enum Delimiter: String, ExpressibleByArgument, CaseIterable {
            case comma, tab, semicolon, pipe
            var byte: UInt8 {
                switch self {
                case .comma: UInt8(ascii: ",")
                case .tab: UInt8(ascii: "\t")
                case .semicolon: UInt8(ascii: ";")
                case .pipe: UInt8(ascii: "|")
                }
            }
        }

        enum SummaryFormat: String, ExpressibleByArgument, CaseIterable {
            case text, json
        }

        /// The coordinate options of the command line.
        var coordinateOptions: CoordinateOptions {
            var options = CoordinateOptions(crs: crs, xColumn: x, yColumn: y, datumColumn: datumColumn, dms: dms,
                                            impliedWest: impliedWest, impliedEast: impliedEast, impliedSouth: impliedSouth)
            options.degreeDivisor = degreeDivisor
            options.longitudes0To360 = longitudes0To360
            options.decimalComma = decimalComma
            if let minutes {
                options.minutesAndSeconds = CoordinateOptions.MinutesAndSeconds(
                    latitudeMinutes: minutes.latitude, longitudeMinutes: minutes.longitude,
                    latitudeSeconds: seconds?.latitude, longitudeSeconds: seconds?.longitude)
            }
            return options
        }

        /// `--units`, as (depth unit, elevation unit).
        func lengthUnits() throws -> (depth: LoadOptions.LengthUnit?, elevation: LoadOptions.LengthUnit?) {
            var result: (depth: LoadOptions.LengthUnit?, elevation: LoadOptions.LengthUnit?) = (nil, nil)
            for given in units {
                let parts = given.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
                let unit = parts.count == 2 ? (["ft", "feet", "foot"].contains(parts[1]) ? LoadOptions.LengthUnit.feet
                    : ["m", "metres", "meters", "metre", "meter"].contains(parts[1]) ? .metres : nil) : nil
                guard let unit, parts[0] == "depth" || parts[0] == "elevation" else {
                    throw ValidationError("--units \(given): expected depth=ft, depth=m, elevation=ft or elevation=m")
                }
                if parts[0] == "depth" { result.depth = unit } else { result.elevation = unit }
            }
            return result
        }

        func validate() throws {
            _ = try lengthUnits()
            for mapping in mappings { _ = try mapping.checked() }
            for datum in datums { _ = try datum.checked() }
            for format in dateFormats { _ = try format.checked() }
            let coordinates = coordinateOptions
            if let problem = coordinates.inconsistency ?? coordinates.degreeOptionsOnProjectedValues(describe: Terminal.flag(for:)) {
                throw ValidationError(Terminal.describe(problem))
            }
            if impliedWest && impliedEast { throw ValidationError("give --implied-west or --implied-east, not both") }
            if seconds != nil && minutes == nil { throw ValidationError("--seconds needs --minutes: the minutes columns of the same coordinates, as LAT,LON") }
            // No output may land on the input or on the store's files.
            var protected = OutputPaths.storeFiles(store.path).map { (path: $0, what: "the store or one of its files") }
            if file != "-" { protected.append((file, "the input file")) }
            if let rejects {
                try OutputPaths.refuse(rejects, option: "--rejects", protected: protected)
                try OutputPaths.refuseToReplace(rejects, option: "--rejects", force: force, kind: "a rejects file", firstLine: "line,column,reason,raw")
            }
            if file != "-" && !dryRun { try OutputPaths.refuse(store.path, option: "--db", protected: [(file, "the input file")]) }
            if id == "" { throw ValidationError("--id needs a column name, or none") }
            if !release && (source != nil || confirmGone) { throw ValidationError("--source and --confirm-gone are options of --release") }
            if release && file == "-" && source == nil { throw ValidationError("a release from standard input needs --source NAME: there is no file name to take it from") }
            if let source, source.trimmingCharacters(in: .whitespaces).isEmpty { throw ValidationError("--source needs a name") }
        }

        func run() throws {
            var options = LoadOptions()
            options.describeRemedy = Terminal.flag(for:)
            for mapping in mappings {
                let (field, column) = try mapping.checked()
                options.mapping[field] = column
            }
            for format in dateFormats {
                let (column, dateFormat) = try format.checked()
                options.dateFormats[column] = dateFormat
            }
            options.delimiter = delimiter?.byte
            options.coordinates = coordinateOptions
            options.identifier = id.map { $0.lowercased() == "none" ? .none : .column($0) } ?? .automatic
            options.infer = !noInfer
            options.rejectSuspects = rejectSuspects
            options.checkLocations = !noLocationCheck
            for datum in datums {
                let (name, crs) = try datum.checked()
                options.coordinates.datums[name] = crs
            }
            (options.depthUnit, options.elevationUnit) = try lengthUnits()
            options.onDuplicate = onDuplicate
            options.onMissingIdentifier = onMissingID
            options.sheet = sheet
            options.member = member
            options.dryRun = dryRun
            if release { options.release = ReleaseOptions(source: source, confirmGone: confirmGone) }
            options.spoolLimit = spoolLimit?.bytes
            let bar = !quiet && Terminal.stderrIsTerminal ? ProgressBar() : nil
            options.progress = { progress in
                // From here the load may have committed: an interrupt no longer removes a store it created.
                if progress.phase == .indexing && progress.done >= 2 { InterruptGuard.committing.store(true, ordering: .releasing) }
                if let bar {
                    switch progress.phase {
                    case .reading:
                        bar.update(label: "reading", done: progress.done, total: progress.total) {
                            String(format: "%.1f MB", Double($0) / 1_048_576)
                        }
                    case .writing:
                        bar.update(label: "writing", done: progress.done, total: progress.total) { "\(grouped($0)) wells" }
                    case .indexing:
                        bar.update(label: "indexing", done: progress.done, total: progress.total) { "\($0)" }
                    }
                }
            }
            BusErrorGuard.arm(file: file == "-" ? "stdin" : file)
            let storeExisted = FileManager.default.fileExists(atPath: store.path)
            if !dryRun { InterruptGuard.armLoad(store: store.path, existedBefore: storeExisted) }
            let summary: LoadSummary
            var opened: WellStore?
            do {
                if dryRun {
                    summary = try WellStore.dryRun(csvAt: file, options: options)
                    bar?.finish()
                } else {
                    let wellStore = try store.open(.create)
                    opened = wellStore
                    // The rejects come from the load itself, after its commit, not back out of the store.
                    summary = try wellStore.load(csvAt: file, options: options, rejects: rejects.map { path in
                        { rejects in
                            InterruptGuard.committed.store(true, ordering: .releasing)
                            try Reject.writeCSV(rejects, toCSVAt: path)
                        }
                    })
                    InterruptGuard.committed.store(true, ordering: .releasing)
                    bar?.finish()
                }
            } catch {
                bar?.finish()
                // Closed before the process exits, so that SQLite removes the -wal and -shm files.
                try? opened?.close()
                if !dryRun { OutputPaths.removeIfCreatedEmpty(store.path, existedBefore: storeExisted) }
                throw Terminal.fail(error)
            }
            switch format {
            case .json:
                print(String(decoding: try JSONEncoder.pretty.encode(summary), as: UTF8.self))
            case .text:
                print(Terminal.printable(LoadReport(summary: summary, store: WellStore.displayName(of: store.path), dryRun: dryRun, postgreSQL: opened?.isPostgreSQL == true).text))
            }
        }
    }
}

extension JSONEncoder {
    package static var pretty: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return encoder
    }
}
