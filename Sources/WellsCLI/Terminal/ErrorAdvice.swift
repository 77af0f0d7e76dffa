import WellKit

/// The CLI's words for library errors: the library says what to set in the API, and the CLI
/// says which flag or command does it.
///
/// Every error the library throws keeps its remedy as data (``StoreError/Remedy``,
/// ``ImportError/Remedy``, ``QueryError/Remedy``); this is the one place that turns a remedy into
/// `--map lat=COLUMN`, `--crs` or `wells load FILE --db PATH`. An error without a remedy prints as
/// the library describes it.
extension Terminal {
    /// `error` as `wells` prints it after `wells: error: `.
    package static func describe(_ error: any Error) -> String {
        switch error {
        case let error as StoreError: describe(error)
        case let error as ImportError: describe(error)
        case let error as QueryError: describe(error)
        default: "\(error)"
        }
    }

    static func describe(_ error: StoreError) -> String {
        let path = error.path ?? "PATH"
        let advice: String? = switch error.remedy {
        case nil: nil
        case .createStore: "create one with `wells load FILE --db \(path)`"
        case .chooseStore: "pass a new or existing WellKit store to --db"
        case .chooseNewFile: "choose a new file for --db"
        case .upgradeStore(let version): "upgrade it to version \(version) with `wells optimize --db \(path)` (a command that writes, such as `wells load`, upgrades it too, when it commits)"
        case .upgradeWellKit(let known):
            "but this wells \(wellKitVersion) knows up to version \(known); upgrade WellKit to open it"
        case .rollBackJournal: "run `wells optimize --db \(path)` as that user"
        case .installPackage(let package) where error.code == .missingLibrary:
            "install it with `sudo apt-get install \(package)` or `bash .ci/setup`"
        case .installPackage(let package): "install \(package)"
        case .checkStore: "nothing was changed; see what is damaged with `wells check --db \(shellQuoted(path))`, then copy what SQLite "
            + "can read into a new file with `sqlite3 \(shellQuoted(path)) .recover | sqlite3 recovered.sqlite`, or load the source lists again"
        case .runSQL(let sql): "run `psql \(shellQuoted(path)) -c \(shellQuoted(sql))` as a superuser or the database's owner, then try again"
        }
        var reason = error.reason
        if case .upgradeWellKit? = error.remedy, let version = error.schemaVersion {
            reason = "store has schema version \(version)"
            return located(error.path, reason + ", " + (advice ?? ""))
        }
        return located(error.path, advice.map { reason + "; " + $0 } ?? reason)
    }

    static func describe(_ error: ImportError) -> String {
        guard let remedy = error.remedy else { return error.description }
        let columns = ImportError.listing(error.header ?? [])
        let file = error.file ?? "FILE"
        let message: String
        switch remedy {
        case .mapColumns:
            message = error.reason + " If the file has projected x/y (such as UTM metres) or DMS text, load it with --crs, --x and --y "
                + "(see `wells load --help`); if a column does hold decimal degrees, name it with --map lat=COLUMN --map lon=COLUMN"
        case .giveCRS(let candidates) where candidates.isEmpty:
            message = error.reason + " If a column holds decimal degrees or DMS, name it with --map lat=COLUMN --map lon=COLUMN;"
                + " if the file has projected x/y, give their CRS with --crs EPSG:CODE --x COLUMN --y COLUMN"
                + " (for a column of points, --crs EPSG:CODE alone); a column naming each row's state, county or country"
                + " (such as State) lets the load judge candidates and offer them"
        case .giveCRS(let candidates):
            // A column of points (x and y the same column) needs only its CRS: the column is inferred again.
            message = error.reason + " The file has projected x/y columns; candidate CRSs:" + candidates.map {
                $0.xColumn == $0.yColumn
                    ? "\n  \($0.crs) for the points of \($0.xColumn): \($0.evidence)\n    wells load \(shellQuoted(file)) --crs \($0.crs)"
                    : "\n  \($0.crs) for \($0.xColumn)/\($0.yColumn): \($0.evidence)\n    "
                        + "wells load \(shellQuoted(file)) --crs \($0.crs) --x \(shellQuoted($0.xColumn)) --y \(shellQuoted($0.yColumn))"
            }.joined()
        case .crsForXY:
            message = "--x and --y need --crs, the CRS of those columns, such as --crs EPSG:26916 for UTM zone 16N metres"
        case .giveBothXAndY:
            message = "give both --x and --y, or neither"
        case .impliedHemisphere:
            message = error.reason + "; load with --implied-west (the Americas) or --implied-east"
        case .chooseColumn(let option, let given):
            let flag = switch option {
            case .identifier: "--id \(given)"
            case .mapping(let field): "--map \(field)=\(given)"
            case .xColumn: "--x \(given)"
            case .yColumn: "--y \(given)"
            case .datumColumn: "--datum-column \(given)"
            case .minutesColumn: "--minutes \(given)"
            case .secondsColumn: "--seconds \(given)"
            }
            message = "\(flag): \(error.reason); the header has: \(columns)"
                + (option == .identifier ? "; or use --id none for generated FILE@TAG:LINE identifiers" : "")
        case .chooseField(let given):
            message = "--map: unknown field \"\(given)\"; valid fields: \(WellField.mappable.map(\.rawValue).joined(separator: ", "))"
        case .decompress:
            message = error.reason + "; decompress it first, for example `gunzip -k \(file)`, or load it through a pipe: `wells load <(gunzip -c \(file))`"
        case .relocate(let fix):
            message = error.reason
                + (fix.map { "\n  load with: " + loadCommand(applying: $0) } ?? "")
                + (error.code != .misplaced ? ""
                   : fix?.longitudes0To360 == true
                   ? "\n  or load the rows whose longitudes are in range as they are, rejecting the others: " + loadCommand(adding: ["--no-location-check"])
                   : "\n  or load them as they are, each flagged as a suspect: " + loadCommand(adding: ["--no-location-check"]))
        }
        var location = error.file ?? ""
        if let line = error.line { location += ":\(line)" }
        if let column = error.column { location += (location.isEmpty ? "" : ": ") + "column \"\(column)\"" }
        return location.isEmpty ? message : "\(location): \(message)"
    }

    static func describe(_ error: QueryError) -> String {
        var message = error.reason
        switch error.remedy {
        case nil: break
        case .splitAtAntimeridian: message += "; pass --antimeridian split to query both sides"
        case .addSortDescriptor(let field): message += "; add a sort with --sort \(field.rawValue)"
        }
        if error.subject == .predicate, let text = error.text { return "--where \"\(QueryError.shortened(text))\": \(message)" }
        return message
    }

    private static func located(_ path: String?, _ message: String) -> String {
        path.map { "\($0): \(message)" } ?? message
    }
}

extension Terminal {
    /// The `wells load` command this process runs, with the options a fix replaces taken out and its own put in.
    static func loadCommand(applying fix: PlacementFix) -> String {
        var flags: [String] = []
        if fix.impliedSouth { flags.append(flag(for: .impliedSouth)) }
        if fix.impliedWest { flags.append(flag(for: .impliedWest)) }
        for (field, column) in fix.mapping.sorted(by: { $0.key < $1.key }) { flags += ["--map", "\(field)=\(column)"] }
        if let crs = fix.crs { flags += ["--crs", crs] }
        if let x = fix.xColumn, let y = fix.yColumn { flags += ["--x", x, "--y", y] }
        if fix.dms { flags.append(flag(for: .parseDMS)) }
        if let divisor = fix.degreeDivisor { flags += ["--degree-divisor", LoadRemedy.number(divisor)] }
        if fix.decimalComma { flags.append(flag(for: .decimalComma)) }
        if fix.longitudes0To360 { flags.append(flag(for: .longitudes0To360)) }
        let replaced: Set<String> = Set((fix.crs != nil ? ["--crs"] : []) + (fix.xColumn != nil ? ["--x", "--y"] : [])
                                        + (fix.degreeDivisor != nil ? ["--degree-divisor"] : []))
        let fields = Set(fix.mapping.keys)
        let withdrawn = Set((fix.withoutImpliedWest ? [flag(for: .impliedWest)] : []) + (fix.withoutImpliedSouth ? [flag(for: .impliedSouth)] : []))
        return loadCommand(adding: flags) { option, value in
            replaced.contains(option) || withdrawn.contains(option) || (option == "--map" && fields.contains { value?.hasPrefix($0 + "=") == true })
        }
    }

    /// The `wells load` command this process runs, without the options `drop` matches, with `flags` added.
    static func loadCommand(adding flags: [String], dropping drop: (String, String?) -> Bool = { _, _ in false }) -> String {
        var arguments = Array(CommandLine.arguments.dropFirst())
        if arguments.first == "load" { arguments.removeFirst() }
        // An option takes a value unless it is one of the command tree's flags (`Wells.flags`).
        let switches = Set(flags.filter { Wells.flags.contains($0) })
        var kept: [String] = []
        var k = 0
        while k < arguments.count {
            let argument = arguments[k]
            let (option, inline) = argument.hasPrefix("--") && argument.contains("=")
                ? (String(argument.prefix { $0 != "=" }), String(argument.drop { $0 != "=" }.dropFirst()))
                : (argument, nil)
            let takesValue = option.hasPrefix("-") && !Wells.flags.contains(option) && inline == nil
            let value = inline ?? (takesValue && k + 1 < arguments.count ? arguments[k + 1] : nil)
            let count = takesValue ? 2 : 1
            if option == "--db", let value {
                kept += ["--db", WellStore.displayName(of: value)]   // never a password
            } else if !drop(option, value) && !switches.contains(option) {
                kept += arguments[k..<min(arguments.count, k + count)]
            }
            k += count
        }
        return (["wells", "load"] + kept + flags).map(shellQuoted).joined(separator: " ")
    }

    /// A load's remedy as the `wells load` flag that sets it, for the reasons of rejects, the
    /// warnings and the inferences (``LoadOptions/describeRemedy``).
    @Sendable package static func flag(for remedy: LoadRemedy) -> String {
        switch remedy {
        case .mapDatum: "--datum NAME=EPSG:CODE"
        case .generateMissingIdentifiers: "--on-missing-id generate"
        case .keepLaterDuplicate: "--on-duplicate last"
        case .identifierColumn(let column): "--id " + (column.map(shellQuoted) ?? "COLUMN")
        case .noIdentifier: "--id none"
        case .rejectSuspects: "--reject-suspects"
        case .mapField(let field): "--map \(field)=COLUMN"
        case .parseDMS: "--dms"
        case .noInference: "--no-infer"
        case .datumColumn: "--datum-column COLUMN"
        case .oneCRS: "--crs EPSG:CODE"
        case .impliedEast: "--implied-east"
        case .impliedWest: "--implied-west"
        case .impliedSouth: "--implied-south"
        case .noLocationCheck: "--no-location-check"
        case .degreeDivisor(let divisor): "--degree-divisor \(LoadRemedy.number(divisor))"
        case .longitudes0To360: "--longitudes-0-360"
        case .minutesAndSeconds: "--minutes LAT,LON (and --seconds LAT,LON)"
        case .decimalComma: "--decimal-comma"
        case .dateFormat(let setting): "--date-format \(setting)"
        case .sheet(let name): "--sheet " + (name.map(shellQuoted) ?? "NAME")
        case .member(let name): "--member " + (name.map(shellQuoted) ?? "NAME")
        case .lengthUnit(let what): "--units \(what)=ft (or m)"
        case .spoolLimit: "--spool-limit SIZE"
        }
    }
}
