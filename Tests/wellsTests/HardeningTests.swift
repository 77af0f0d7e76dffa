import ArgumentParser
import Foundation
import Testing
import WellKitSynthetic
import WellsTestSupport
@testable import WellsCLI
@testable import wells_bench
@testable import WellKit

/// Hostile and extreme arguments: each gets a clear message and its documented exit code, never a trap.
@Suite(.blocking) struct HardeningTests {
    static let escape = "\u{1B}"

    /// The executable under test: the built `wells`, or `$WELLS_UNDER_TEST` (to show a test fails on an older build).
    static let executable = ProcessInfo.processInfo.environment["WELLS_UNDER_TEST"] ?? InterruptedLoadTests.wells

    /// Runs the `wells` executable; returns its exit status, standard output and standard error (both
    /// read while it runs, so neither fills up). Synchronous: from a `.blocking` suite or ``runBlocking(_:)``.
    static func wells(_ arguments: [String], directory: URL? = nil) throws -> (status: Int32, out: String, err: String) {
        let run = try command(arguments, directory: directory).runWaiting()
        return (run.status, run.out, run.err)
    }

    /// ``wells(_:directory:)`` for async code: awaited, it holds no thread while `wells` runs.
    static func wells(_ arguments: [String], directory: URL? = nil) async throws -> (status: Int32, out: String, err: String) {
        let run = try await command(arguments, directory: directory).run()
        return (run.status, run.out, run.err)
    }

    /// `wells ARGUMENTS`, or `wells-bench …` for `bench …` (built beside `wells`). A command that does
    /// not end within two minutes is a failure (SIGTERM), not a hung test run.
    static func command(_ arguments: [String], directory: URL?) -> Command {
        let bench = arguments.first == "bench"
        return Command(bench ? executable + "-bench" : executable, bench ? Array(arguments.dropFirst()) : arguments,
                       workingDirectory: directory?.path, timeout: .seconds(120))
    }

    /// A store of four wells near Cookeville, one with a terminal escape sequence in its name.
    static func withStore<T>(_ body: (URL, String) throws -> T) throws -> T {
        try withTemporaryDirectory("wells-hardening") { directory in
            let csv = directory.appendingPathComponent("wells.csv").path
            let db = directory.appendingPathComponent("wells.sqlite").path
            try """
                api,name,lat,lon
                A1,Alpha,36.160,-85.500
                A2,"Beta\(escape)[2J\(escape)]0;title\u{07}",36.161,-85.501
                A3,Gamma,36.170,-85.510
                A4,Delta,36.200,-85.600

                """.write(toFile: csv, atomically: true, encoding: .utf8)
            let summary = try WellStore(path: db).load(csvAt: csv)
            #expect(summary.loaded == 4)
            return try body(directory, db)
        }
    }

    // MARK: - Integer overflow and huge values

    /// Old code: `list --batch-size 9223372036854775807` trapped (signal 4) computing the page count;
    /// `bench bbox --per-size` huge crashed (signal 11) and `--sizes nan` trapped; `demo --count 0` failed a precondition.
    @Test func hugeAndExtremeNumbersAreUsageErrors() throws {
        try Self.withStore { directory, db in
            let max = "9223372036854775807"
            let cases: [([String], String)] = [
                (["list", "--batch-size", max], "--batch-size must be from 1 to 100,000, got '\(max)'"),
                (["list", "--batch-size", "-1"], "--batch-size must be from 1 to 100,000, got '-1'"),
                (["bench", "bbox", "--per-size", max], "--per-size must be from 1 to 100,000, got '\(max)'"),
                (["bench", "bbox", "--passes", max], "--passes must be from 1 to 1,000"),
                (["bench", "bbox", "--passes", "0"], "--passes must be from 1 to 1,000, got '0'"),
                (["bench", "bbox", "--sizes", "nan,1"], "--sizes must be degrees greater than 0 and at most 360"),
                (["bench", "bbox", "--sizes", "1e400"], "--sizes must be degrees greater than 0 and at most 360"),
                (["bench", "projection", "--repeat", max], "--repeat must be from 1 to 1,000, got '\(max)'"),
                (["bench", "projection", "--fault-limit", "-1"], "--fault-limit must be from 0 to 100,000,000, got '-1'"),
                (["bench", "load", "--count", max], "--count must be from 1 to 100,000,000"),
                (["bench", "load", "--repeat", max], "--repeat must be from 1 to 1,000"),
                (["generate", "--count", max], "--count must be from 1 to 100,000,000"),
            ]
            for (arguments, message) in cases {
                let run = try Self.wells(arguments + (arguments[0] == "generate" || arguments[1] == "load" ? [] : ["--db", db]))
                #expect(run.status == 64, "\(arguments): \(run.err)")
                #expect(run.err.contains(message), "\(arguments): \(run.err)")
            }
            for arguments in [["demo", "--count", "0"], ["demo", "--count", max]] {
                let run = try Self.wells(arguments + ["--directory", directory.appendingPathComponent("demo").path])
                #expect(run.status == 64 && run.err.contains("--count must be from 1 to 100,000,000"), "\(arguments): \(run.err)")
            }
            // Huge values that are safe are answered, not refused: a page past the end, an offset past every row.
            let page = try Self.wells(["list", "--page", max, "--batch-size", "100000", "--db", db])
            #expect(page.status == 64 && page.err.contains("page \(max) is past the last page, 1, of 4 wells"), "\(page.err)")
            for arguments in [["find", "--limit", max, "--offset", max], ["near", "36.16,-85.5", "--nearest", max, "--offset", max],
                              ["suspects", "--limit", max]] {
                let run = try Self.wells(arguments + ["--db", db, "--format", "csv"])
                #expect(run.status == 0, "\(arguments): \(run.err)")
            }
        }
    }

    // MARK: - Negative numbers as option values

    /// Old code: `--limit -1` said "Missing value for '--limit <limit>'", and so did a western `--bbox`.
    @Test func negativeNumbersStayTheValueOfTheirOption() throws {
        #expect(Wells.positionalCoordinates(["near", "51,-114", "--limit", "-1"]) == ["near", "51,-114", "--limit=-1"])
        #expect(Wells.positionalCoordinates(["bench", "projection", "--bbox", "-90.1,35,-89.9,35.2"])
            == ["bench", "projection", "--bbox=-90.1,35,-89.9,35.2"])
        #expect(Wells.positionalCoordinates(["near", "1,2", "--radius", "-2km", "--quiet", "-3"]) == ["near", "1,2", "--radius=-2km", "--quiet", "--", "-3"])
        #expect(Wells.positionalCoordinates(["bbox", "-inf,-90,inf,90", "--db", "x"]) == ["bbox", "--db", "x", "--", "-inf,-90,inf,90"])
        #expect(Wells.positionalCoordinates(["bbox", "--db", "x", "--", "-1,2,3,4"]) == ["bbox", "--db", "x", "--", "-1,2,3,4"])
        let cases: [([String], String)] = [
            (["near", "36,-85", "--nearest", "3", "--limit", "-1"], "--limit must be zero or more, got '-1'"),
            (["near", "36,-85", "--nearest", "3", "--offset", "-1"], "--offset must be zero or more, got '-1'"),
            (["near", "36,-85", "--nearest", "-3"], "--nearest must be at least 1, got '-3'"),
            (["near", "36,-85", "--radius", "-2km"], #"--radius "-2km" is not a distance; use a number with m, km or mi, such as 2km"#),
            (["suspects", "--limit", "-1"], "--limit must be zero or more, got '-1'"),
            (["list", "--page", "-1"], "--page must be 1 or more, got '-1'"),
        ]
        for (arguments, message) in cases {
            #expect(throws: (any Error).self, "\(arguments)") {
                do {
                    _ = try Wells.parseAsRoot(Wells.positionalCoordinates(arguments))
                } catch {
                    #expect(Wells.exitCode(for: error).rawValue == 64, "\(arguments)")
                    #expect(Wells.message(for: error) == message, "\(arguments)")
                    throw error
                }
            }
        }
        // A western box as an option's value reaches the box parser.
        let bench = try Bench.parseAsRoot(Wells.positionalCoordinates(["projection", "--bbox", "-90.1,35,-89.9,35.2"]))
        #expect((bench as? Bench.Projection)?.bbox == "-90.1,35,-89.9,35.2")
    }

    /// The flags `positionalCoordinates` knows are exactly the flags of the command tree, hidden ones included:
    /// a value after any other option is that option's.
    @Test func flagListMatchesTheCommandTree() throws {
        var flags = Set<String>(), options = Set<String>()
        func visit(_ command: [String: Any]) {
            for argument in command["arguments"] as? [[String: Any]] ?? [] {
                let names = (argument["names"] as? [[String: Any]] ?? []).compactMap { name -> String? in
                    guard let text = name["name"] as? String else { return nil }
                    return (name["kind"] as? String == "short" ? "-" : "--") + text
                }
                switch argument["kind"] as? String {
                case "flag": flags.formUnion(names)
                case "option": options.formUnion(names)
                default: break
                }
            }
            for sub in command["subcommands"] as? [[String: Any]] ?? [] { visit(sub) }
        }
        // `wells-bench` shares the list, since it parses through `Wells.positionalCoordinates` too.
        for help in [Wells._dumpHelp(), Bench._dumpHelp()] {
            let root = try JSONSerialization.jsonObject(with: Data(help.utf8)) as? [String: Any] ?? [:]
            visit(root["command"] as? [String: Any] ?? [:])
        }
        #expect(!flags.isEmpty && !options.isEmpty)
        #expect(flags.subtracting(Wells.flags).isEmpty, "flags missing from Wells.flags: \(flags.subtracting(Wells.flags))")
        #expect(options.intersection(Wells.flags).isEmpty, "options listed as flags: \(options.intersection(Wells.flags))")
    }

    // MARK: - near

    /// Old code: `--nearest 5 --limit 1` printed 5 rows.
    @Test func nearestHonoursLimitAndOffset() throws {
        try Self.withStore { _, db in
            let one = try Self.wells(["near", "36.16,-85.5", "--nearest", "3", "--limit", "1", "--format", "csv", "--fields", "uwi", "--db", db])
            #expect(one.status == 0)
            #expect(one.out.split(separator: "\n").map(String.init) == ["uwi,distance_m", "A1,0"])
            let paged = try Self.wells(["near", "36.16,-85.5", "--nearest", "3", "--offset", "1", "--limit", "5", "--format", "csv", "--fields", "uwi", "--db", db])
            #expect(paged.out.split(separator: "\n").dropFirst().map { $0.split(separator: ",")[0] } == ["A2", "A3"])
        }
    }

    /// Old code: `--radius 1e308km` said "radius inf m must be zero or more".
    @Test func radiusMustBeFiniteAndOnEarth() throws {
        for radius in ["1e308km", "inf", "20038km", "1e400"] {
            #expect(throws: (any Error).self) {
                do { _ = try Wells.parseAsRoot(["near", "36,-85", "--radius", radius]) } catch {
                    #expect(Wells.message(for: error)
                        == "--radius must be a finite distance of at most 20,037.5 km (half the Earth's circumference), got \"\(radius)\"")
                    throw error
                }
            }
        }
        #expect(throws: (any Error).self) { _ = try Wells.parseAsRoot(["near", "36,-85", "--radius", "nan"]) }
        for radius in ["0", "-0m", "20037km"] {
            _ = try Wells.parseAsRoot(Wells.positionalCoordinates(["near", "36,-85", "--radius", radius]))
        }
    }

    // MARK: - Formats

    /// Old code: `show ID --format csv` printed the table; `list --format csv|ndjson|geojson` was refused.
    @Test func showAndListWriteEveryFormat() throws {
        try Self.withStore { _, db in
            let csv = try Self.wells(["show", "A1", "--format", "csv", "--db", db])
            let lines = csv.out.split(separator: "\n")
            #expect(csv.status == 0 && lines.count == 2 && lines[0].hasPrefix("id,uwi,name,lat,lon") && lines[1].contains(",A1,Alpha,36.16,-85.5"))
            let ndjson = try Self.wells(["show", "A1", "--format", "ndjson", "--db", db])
            let object = try JSONSerialization.jsonObject(with: Data(ndjson.out.utf8)) as? [String: Any]
            #expect(object?["uwi"] as? String == "A1")
            let geojson = try Self.wells(["show", "A1", "--format", "geojson", "--db", db])
            let collection = try JSONSerialization.jsonObject(with: Data(geojson.out.utf8)) as? [String: Any]
            let feature = (collection?["features"] as? [[String: Any]])?.first
            #expect((feature?["geometry"] as? [String: Any])?["coordinates"] as? [Double] == [-85.5, 36.16])

            let list = try Self.wells(["list", "--format", "csv", "--sort", "uwi", "--batch-size", "2", "--page", "2", "--fields", "uwi,name", "--db", db])
            #expect(list.status == 0)
            #expect(list.out == "uwi,name\nA3,Gamma\nA4,Delta\n")
            let sectioned = try Self.wells(["list", "--format", "ndjson", "--section", "name", "--batch-size", "1", "--fields", "uwi", "--db", db])
            #expect(sectioned.out == #"{"section":"Alpha","uwi":"A1"}"# + "\n")
            let features = try Self.wells(["list", "--format", "geojson", "--fields", "uwi", "--db", db])
            let listed = try JSONSerialization.jsonObject(with: Data(features.out.utf8)) as? [String: Any]
            #expect((listed?["features"] as? [[String: Any]])?.count == 4)
            let watched = try Self.wells(["list", "--format", "csv", "--watch", "--db", db])
            #expect(watched.status == 64 && watched.err.contains("--watch prints each change as a line of text"))
        }
        let help = Wells.helpMessage(for: Wells.Show.self)
        #expect(help.contains("CSV row") && help.contains("GeoJSON"))
    }

    // MARK: - Terminal safety

    /// Old code: identifiers, arguments and well names reached the terminal with their escape sequences.
    @Test func controlCharactersAreEscapedInTablesAndMessages() throws {
        try Self.withStore { _, db in
            let table = try Self.wells(["bbox", "-86,36,-85,37", "--db", db])
            #expect(table.status == 0 && !table.out.contains(Self.escape) && !table.out.contains("\u{07}"))
            #expect(table.out.contains(#"Beta\u{1B}[2J\u{1B}]0;title\u{7}"#))
            // CSV and JSON keep the data as it is.
            let csv = try Self.wells(["bbox", "-86,36,-85,37", "--format", "csv", "--db", db])
            #expect(csv.out.contains("Beta\(Self.escape)[2J"))
            let show = try Self.wells(["show", "A2", "--db", db])
            #expect(!show.out.contains(Self.escape) && show.out.contains(#"\u{1B}[2J"#))

            let missing = try Self.wells(["show", "x\(Self.escape)[2J\(Self.escape)]0;t\u{07}", "--db", db])
            #expect(missing.status == 1)
            #expect(missing.err.hasPrefix(#"wells: error: no well with identifier "x\u{1B}[2J\u{1B}]0;t\u{7}""#), "\(missing.err)")
            for arguments in [["bbox", "1,2,3\(Self.escape)[2J"], ["find", "--where", "\(Self.escape)[2J"], ["find", "--format", "\(Self.escape)[2J"],
                              ["bbox", "1,2,3,4", "--to-crs", "\(Self.escape)[2J"], ["find", "--bogus\(Self.escape)[2J"]] {
                let run = try Self.wells(arguments + ["--db", db])
                #expect(run.status == 64, "\(arguments): \(run.err)")
                #expect(!run.err.contains(Self.escape) && run.err.contains(#"\u{1B}"#), "\(arguments): \(run.err)")
            }
            // An enormous identifier is answered, and echoed shortened.
            let long = try Self.wells(["show", String(repeating: "x", count: 100_000), "--db", db])
            #expect(long.status == 1 && long.err.count < 1_000 && long.err.contains("(99,800 more characters)"))
        }
        #expect(SafeText.escaped("a\u{0}b\u{202E}c\u{9B}d\\e") == #"a\u{0}b\u{202E}c\u{9B}d\e"#)
        #expect(SafeText.cell("two\nlines\ttab") == #"two\u{A}lines\u{9}tab"#)
    }

    /// A megabyte argument, which the kernel would not pass to a process, parsed and run in this one.
    @Test func megabyteArgumentsAreAnswered() async throws {
        let big = String(repeating: "\u{1B}[2J", count: 250_000)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("wells-megabyte-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let db = directory.appendingPathComponent("wells.sqlite").path
        let csv = directory.appendingPathComponent("wells.csv").path
        try "api,name,lat,lon\nA1,Alpha,36.16,-85.5\n".write(toFile: csv, atomically: true, encoding: .utf8)
        _ = try WellStore(path: db).load(csvAt: csv)
        for (arguments, code) in [(["show", big, "--db", db], 1), (["find", "--where", "name = \"\(big)\"", "--db", db], 0),
                                  (["crs", "info", big], 64), (["bbox", big, "--db", db], 64)] {
            var status: Int32 = 0
            do {
                var command = try Wells.parseAsRoot(arguments)
                #expect(!(command is any AsyncParsableCommand), "\(arguments[0]) runs on the main thread")
                try command.run()
            } catch {
                status = Wells.exitCode(for: error).rawValue
            }
            #expect(status == Int32(code), "\(arguments[0])")
        }
    }

    // MARK: - generate, bench, demo

    /// Old code: exit 1 ("well not found" by the README) with "cannot create output file".
    @Test func generateIntoAMissingDirectoryNamesItAndExits73() throws {
        try withTemporaryDirectory("wells-generate") { directory in
            let path = directory.appendingPathComponent("Data/wells.csv").path
            let run = try Self.wells(["generate", "--count", "10", "--out", path])
            #expect(run.status == 73)
            let data = directory.appendingPathComponent("Data").path
            #expect(run.err == "wells: error: cannot write \"\(path)\": the directory \"\(data)\" does not exist; create it first (mkdir -p \(data))\n")
        }
    }

    /// Old code: `generate --out important.txt` replaced the file without a word (issue 31).
    @Test func generateReplacesOnlyItsOwnListsUnlessForced() throws {
        try withTemporaryDirectory("wells-generate") { directory in
            let precious = directory.appendingPathComponent("important.txt").path
            try "not a well list\n".write(toFile: precious, atomically: true, encoding: .utf8)
            let refused = try Self.wells(["generate", "--count", "10", "--out", precious])
            #expect(refused.status == 64)
            #expect(refused.err.contains("--out \(precious) exists and is not a list of layout alberta that wells generate wrote"), "\(refused.err)")
            #expect(try String(contentsOfFile: precious, encoding: .utf8) == "not a well list\n", "left as it was")

            // A list of the same layout is replaced; another layout's is not.
            let list = directory.appendingPathComponent("wells.csv").path
            #expect(try Self.wells(["generate", "--count", "10", "--out", list]).status == 0)
            #expect(try Self.wells(["generate", "--count", "20", "--seed", "2", "--out", list]).status == 0)
            #expect(try String(contentsOfFile: list, encoding: .utf8).split(separator: "\n").count == 21)
            let other = try Self.wells(["generate", "--layout", "lost-signs", "--count", "10", "--out", list])
            #expect(other.status == 64, "\(other.err)")

            let forced = try Self.wells(["generate", "--count", "10", "--out", precious, "--force"])
            #expect(forced.status == 0, "\(forced.err)")
            #expect(try String(contentsOfFile: precious, encoding: .utf8).hasPrefix("uwi,well_name,"))
        }
    }

    /// Old code: `bench projection` on an empty or 4-row box printed ratios and percentages.
    @Test func projectionBenchOnFewRowsPrintsCountsOnly() throws {
        try Self.withStore { _, db in
            for box in ["0,0,1,1", "-86,36,-85,37"] {
                let run = try Self.wells(["bench", "projection", "--db", db, "--bbox", box, "--repeat", "1"])
                #expect(run.status == 0, "\(run.err)")
                #expect(run.out.contains("Too few rows to compare:") && run.out.contains("below the minimum of 100; counts only"))
                #expect(!run.out.contains("%") && !run.out.contains("×"), "\(run.out)")
            }
        }
    }

    /// Old code: `wells demo` printed `near … --nearest 5` over a table of its own, and a bbox query with other fields.
    @Test func demoRunsExactlyTheCommandsItPrints() throws {
        try withTemporaryDirectory("wells-demo") { directory in
            let demo = try Self.wells(["demo", "--count", "500", "--directory", directory.path])
            #expect(demo.status == 0, "\(demo.err)")
            let sections = demo.out.components(separatedBy: "\n$ ").map { $0.hasPrefix("$ ") ? String($0.dropFirst(2)) : $0 }
            #expect(sections.count == 5)
            for section in sections {
                let command = String(section.prefix { $0 != "\n" })
                let output = String(section.dropFirst(command.count + 1))
                guard !command.hasPrefix("wells load") else { continue }   // a reload reports updates, not inserts
                // Today's build runs the printed command.
                let run = try Command("/bin/sh", ["-c", "\"$0\" " + command.dropFirst("wells ".count), InterruptedLoadTests.wells]).runWaiting()
                let again = run.out
                #expect(run.status == 0, "\(command)")
                if !command.hasPrefix("wells generate") {
                    #expect(again.trimmingCharacters(in: .newlines) == output.trimmingCharacters(in: .newlines), "\(command)")
                }
            }
        }
    }

    // MARK: - CRS

    /// Old code: `--crs wgs` resolved to WGS 72 and the load rejected every row, exit 0.
    @Test func loadRefusesAnInexactCRSName() throws {
        try withTemporaryDirectory("wells-crs") { directory in
            let csv = directory.appendingPathComponent("x.csv").path
            try "api,name,lat,lon\n1,A,36.1,-85.1\n".write(toFile: csv, atomically: true, encoding: .utf8)
            let run = try Self.wells(["load", csv, "--crs", "wgs", "--db", directory.appendingPathComponent("x.sqlite").path])
            #expect(run.status == 64)
            #expect(run.err.contains(#""wgs" is not the name of a CRS; names like it: EPSG:4322 WGS 72"#), "\(run.err)")
            let info = try Self.wells(["crs", "info", "foo"])
            #expect(info.status == 64 && info.err.contains("EPSG:4289 Amersfoort") && info.out.isEmpty)
            let named = try Self.wells(["crs", "info", "NAD83 / UTM zone 16N"])
            #expect(named.status == 0 && named.out.hasPrefix("EPSG:26916: NAD83 / UTM zone 16N (projected)\n  given as: \"NAD83 / UTM zone 16N\""))
        }
    }

    /// Standard output on a full disk (`/dev/full`): exit 74 with the system's reason, for a query
    /// streamed through the 64 KiB buffer and for a report `print` buffered, never a trap or exit 0.
    @Test func aFullStandardOutputIsAnError() throws {
        try Self.withStore { _, db in
            for arguments in [["bbox", "-86,36,-85,37", "--format", "csv"], ["suspects"], ["check"], ["--version"]] {
                let run = try Command(Self.executable, arguments + (arguments == ["--version"] ? [] : ["--db", db]), output: .file("/dev/full")).runWaiting()
                let said = run.err
                #expect(run.signal == nil && run.status == 74, "wells \(arguments[0]): \(run.status) \(said.prefix(300))")
                #expect(said == "wells: error: cannot write standard output: No space left on device; what was written is incomplete\n", "\(said.prefix(300))")
            }
        }
    }

    /// A device, a pipe or a directory given as the store is refused before SQLite opens it (exit 66):
    /// SQLite would wait forever on a pipe's open, and write `/dev/null-journal` beside a device.
    @Test func storesThatAreNotRegularFilesAreRefused() throws {
        try withTemporaryDirectory("wells-special-store") { directory in
            let pipe = directory.appendingPathComponent("store.fifo").path
            try #require(mkfifo(pipe, 0o600) == 0)
            let list = RepositoryData.realList("al-sogb-wells-multiline.csv")
            for (store, kind) in [("/dev/null", "a device"), (pipe, "a pipe"), (directory.path, "a directory")] {
                for command in [["count"], ["load", list], ["check"]] {
                    let run = try Self.wells(command + ["--db", store])
                    #expect(run.status == 66 && run.err.contains("\(store): is \(kind), not a store file"), "wells \(command[0]) --db \(store): \(run.status) \(run.err)")
                }
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["store.fifo"], "nothing written beside the pipe")
        }
    }

    /// A file wider than `WellStore.maximumColumns` is refused at its header (exit 65, the count and
    /// how to cut it down, a message of bounded length), before any record is read; one at the
    /// limit loads, its unmapped columns kept.
    @Test(.lane(.slow)) func aFileWiderThanTheColumnLimitIsRefused() async throws {
        try await runBlocking { try Self.aFileWiderThanTheColumnLimitIsRefused() }
    }

    static func aFileWiderThanTheColumnLimitIsRefused() throws {
        try withTemporaryDirectory("wells-wide") { directory in
            func file(columns: Int) throws -> String {
                let path = directory.appendingPathComponent("wide-\(columns).csv").path
                let header = (["uwi", "name", "lat", "lon"] + (4..<columns).map { "column number \($0)" }).joined(separator: ",")
                let row = { (k: Int) in "W\(k),Well \(k),36.1\(k),-85.5\(k)" + String(repeating: ",x", count: columns - 4) }
                try (header + "\n" + row(1) + "\n" + row(2) + "\n").write(toFile: path, atomically: true, encoding: .utf8)
                return path
            }
            let store = directory.appendingPathComponent("wells.sqlite").path
            let refused = try Self.wells(["load", try file(columns: 100_000), "--db", store])
            #expect(refused.status == 65)
            #expect(refused.err.contains("the header has 100000 columns, more than the \(WellStore.maximumColumns) a well list may have"), "\(refused.err)")
            #expect(refused.err.utf8.count < 600, "the message quotes the input: \(refused.err.utf8.count) bytes")
            #expect(!FileManager.default.fileExists(atPath: store))
            let loaded = try Self.wells(["load", try file(columns: WellStore.maximumColumns), "--db", store])
            #expect(loaded.status == 0, "\(loaded.err)")
            let well = try WellStore(path: store, mode: .readOnly).well(identifier: "W1")
            #expect(well?.detail.extra.count == WellStore.maximumColumns - 4)
        }
    }

    /// A damaged shapefile (a record's length, its count of parts or points, a part's start, the
    /// .dbf's record length) is an error naming the file and the record, exit 65: SpatiaLite's
    /// `VirtualShape` trusted them and read past its buffers (SIGSEGV: 11 crashes in 750 mutated files, all in the .shp;
    /// with the .shp checked, 1 in 800, the .dbf's record length; with both, none in 800). Each case
    /// is one byte pattern at one place; then 60 seeded random mutations, none of which may crash.
    @Test(.lane(.slow)) func aDamagedShapefileIsAnErrorNotACrash() throws {
        try withTemporaryDirectory("wells-shapefile") { directory in
            let shp = directory.appendingPathComponent("tn.shp").path
            let ogr = try Command("/usr/bin/ogr2ogr", ["-f", "ESRI Shapefile", shp, RepositoryData.root.appendingPathComponent("Data/boundaries/us-counties-fips.geojson").path,
                                                       "-where", "STATE='47'"]).runWaiting()
            try #require(ogr.status == 0, "ogr2ogr (gdal-bin): \(ogr.err)")
            let store = directory.appendingPathComponent("tn.sqlite").path
            #expect(try Self.wells(["load", RepositoryData.realList("tn-oilgas-wells.csv"), "--db", store, "-q"]).status == 0)
            let original = try ["shp", "shx", "dbf", "prj"].map { try Data(contentsOf: URL(fileURLWithPath: directory.appendingPathComponent("tn.\($0)").path)) }
            let good = try Self.wells(["count", "--by-area", shp, "--db", store, "--format", "csv"])
            #expect(good.status == 0 && good.out.split(separator: "\n").count == 96, "\(good.err)")
            /// Runs the count on the shapefile with `change` made to its .shp (0), .shx (1) or .dbf (2) bytes.
            func damaged(_ file: Int, _ change: (inout Data) -> Void) throws -> (status: Int32, out: String, err: String) {
                let copy = directory.appendingPathComponent("bad")
                try? FileManager.default.createDirectory(at: copy, withIntermediateDirectories: true)
                for (k, ext) in ["shp", "shx", "dbf", "prj"].enumerated() {
                    var bytes = original[k]
                    if k == file { change(&bytes) }
                    try bytes.write(to: copy.appendingPathComponent("tn.\(ext)"))
                }
                return try Self.wells(["count", "--by-area", copy.appendingPathComponent("tn.shp").path, "--db", store, "--format", "csv"])
            }
            func put(_ value: UInt32, at offset: Int, bigEndian: Bool) -> (inout Data) -> Void {
                { data in withUnsafeBytes(of: bigEndian ? value.bigEndian : value.littleEndian) { data.replaceSubrange(offset..<offset + 4, with: $0) } }
            }
            // The first record starts at byte 100: its length at 104 (big-endian words), its parts at 144, its points at 148, its first part at 152.
            let cases: [(file: Int, change: (inout Data) -> Void, says: String)] = [
                (0, put(0x7FFF_FFFF, at: 104, bigEndian: true), "record 1 (at byte 100) says it is 4294967294 bytes long"),
                (0, put(0x0080_0000, at: 144, bigEndian: false), "record 1 (at byte 100) holds 8388608 parts and"),
                (0, put(0x6600_0000, at: 148, bigEndian: false), "points, which do not fit in its"),
                (0, put(1_000, at: 152, bigEndian: false), "record 1 (at byte 100): part 1 starts at point 1000"),
                (1, put(0x0FFF_FFFF, at: 100, bigEndian: true), "index entry 1 points to byte"),
                // The .dbf's record length (bytes 10–11) and the three bytes after it.
                (2, put(0xFFFF_FFF9, at: 10, bigEndian: false), "records of 65529 bytes, more than the file holds"),
            ]
            for (file, change, says) in cases {
                let result = try damaged(file, change)
                #expect(result.status == 65 && result.err.contains(says) && result.err.contains("the shapefile is damaged"), "\(says): \(result.err)")
            }
            var random = SeededRandom(seed: 7)
            for round in 0..<60 {
                let result = try damaged(Int(random.next() % 3)) { data in
                    for _ in 0...(random.next() % 4) { data[Int(random.next() % UInt64(data.count))] = UInt8(truncatingIfNeeded: random.next()) }
                }
                #expect([0, 65].contains(result.status), "round \(round): exit \(result.status) \(result.err.prefix(300))")
            }
        }
    }
}
