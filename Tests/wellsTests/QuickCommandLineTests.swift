import ArgumentParser
import Testing
import WellKitSynthetic
@testable import WellsCLI

/// The query commands' lines read without ArgumentParser (``QuickCommandLine``) are the commands
/// ArgumentParser reads, and every other line is left to it.
@Suite struct QuickCommandLineTests {
    /// Everything a command holds, as `dump` prints it: a property ArgumentParser read holds
    /// `.value(…)`, one that nothing set holds its definition (a closure), so a property the quick
    /// reading forgets, or a default it gives differently, shows.
    static func contents(_ command: any ParsableCommand) -> String {
        var text = ""
        dump(command, to: &text)
        return text
    }

    /// The line as `wells` reads it (words that start like a negative number moved or joined first):
    /// quickly, and when that reads it, by ArgumentParser too.
    static func read(_ line: [String]) -> (quick: (any ParsableCommand)?, parsed: Result<any ParsableCommand, any Error>?) {
        let arguments = Wells.positionalCoordinates(line)
        guard let quick = QuickCommandLine.command(arguments) else { return (nil, nil) }
        return (quick, Result { try Wells.parseAsRoot(arguments) })
    }

    @Test func theUsualLinesAreReadQuicklyAsArgumentParserReadsThem() throws {
        let lines: [[String]] = [
            ["bbox", "-114.54,52.13,-114.49,52.18", "--db", "b.sqlite"],
            ["bbox", "-114.2,50.9,-113.9,51.2", "--format", "geojson", "--limit", "50"],
            ["bbox", "--db=w.sqlite", "-90.1,35,-89.9,35.2", "--where", "status = Abandoned", "--where", "depth > 5", "--format", "csv"],
            ["bbox", "500000,5600000,510000,5610000", "--crs", "EPSG:26911", "--antimeridian", "reject", "--sort", "name:desc", "--sql-debug"],
            ["bbox", "--", "-1,2,3,4"],
            ["near", "51.05,-114.07", "--radius", "2km", "--fields", "id,name", "--offset", "3"],
            ["near", "-33.9,151.2", "--nearest", "10", "--format", "json"],
            ["near", "--from", "schools.csv", "--radius", "1km", "--pairs", "--format", "gpkg", "--out", "x.gpkg", "--force"],
            ["near", "--from", "intakes.csv", "--from-crs", "EPSG:26916", "--from-x", "Utmx", "--from-y", "Utmy", "--nearest", "3"],
            ["find", "--where", "status = Abandoned", "--sort", "detail.spud_date:desc", "--limit", "50", "--to-crs", "EPSG:3400"],
            ["find", "--within", "POLYGON((-90.1 35,-89.9 35,-89.9 35.2,-90.1 35))", "--within-crs", "EPSG:4326"],
            ["show", "100/06-12-034-05W4/00"],
            ["show", "41-133-21968", "--format", "ndjson", "--db", "tn.sqlite"],
            ["count"],
            ["count", "--by", "status,type", "--mean", "total_depth", "--sum", "total_depth", "--format", "csv"],
            ["count", "--by-area", "counties.geojson:STATE=42:NAME", "--skip-empty", "--format", "geojson", "--where", "status = Abandoned"],
            ["count", "--grid", "10km", "--grid-crs", "EPSG:5070", "--min", "spud_date", "--max", "spud_date", "--within", "POLYGON((0 0,1 0,1 1,0 0))"],
        ]
        for line in lines {
            let (quick, parsed) = Self.read(line)
            let command = try #require(quick, "\(line) was left to ArgumentParser")
            #expect(Self.contents(command) == Self.contents(try #require(parsed).get()), "\(line)")
        }
    }

    @Test func helpAndMistakesAreLeftToArgumentParser() {
        let lines: [[String]] = [
            ["bbox", "--help"], ["bbox", "-h"], ["help", "bbox"], ["bbox", "1,2,3,4", "--version"],
            ["bbox", "1,2,3,4", "--generate-completion-script", "bash"],
            ["bbox"], ["bbox", "1,2,3,4", "5,6,7,8"], ["bbox", "1,2,3,4", "--nope", "x"], ["bbox", "1,2,3,4", "-q"],
            ["bbox", "1,2,3,4", "--limit", "2", "--limit", "3"], ["bbox", "1,2,3,4", "--limit", "many"],
            ["bbox", "1,2,3,4", "--limit=-3"], ["bbox", "1,2,3,4", "--format", "gpkg"], ["bbox", "1,2,3,4", "--db"],
            ["bbox", "1,2,3,4", "--force", "--force"], ["bbox", "1,2,3,4", "--force=yes"], ["bbox", "1,2,3,4", "--pairs"],
            ["near", "51,-114", "--from", "p.csv", "--radius", "1km"], ["near", "51,-114"], ["near", "51,-114", "--radius", "-2km"],
            ["count", "--by", "status", "--grid", "1"], ["count", "--skip-empty"], ["count", "--format", "geojson"], ["count", "status"],
            ["find", "extra"], ["show"], ["show", "a", "--format", "gpkg"], ["list"], ["list", "--limit", "5"],
            ["load", "wells.csv"], ["serve"], ["--version"], [],
        ]
        for line in lines {
            #expect(Self.read(line).quick == nil, "\(line)")
        }
    }

    /// Lines made at random from the commands' options, values good and bad, in any order, with
    /// `--name value` and `--name=value`: each line read quickly is the command ArgumentParser reads,
    /// and a line ArgumentParser refuses is never read quickly (``agree(_:)``).
    @Test func randomLinesReadQuicklyAreTheCommandsArgumentParserReads() throws {
        // Each option's values: the first are good, the last bad (picked one time in five).
        let values: [String: (good: [String], bad: [String])] = [
            "crs": (["EPSG:26911", "EPSG:4326"], [""]), "antimeridian": (["split", "reject"], ["wrap"]),
            "where": (["status = Abandoned", "name contains[cd] \"é\""], ["depth >"]),
            "within": (["POLYGON((0 0,1 0,1 1,0 0))", "counties.geojson:STATE=47"], []), "within-crs": (["EPSG:4326"], ["x"]),
            "sort": (["name", "detail.spud_date:desc"], ["nope:sideways"]), "limit": (["0", "7"], ["-1", "x", "99999999999999999999"]),
            "offset": (["0", "3"], ["-2", "1.5"]), "fields": (["id,name", "*", "extra.DRILLER"], [","]),
            "format": (["table", "csv", "json", "ndjson", "geojson"], ["gpkg", "xml"]), "out": (["o.csv", "o.gpkg"], [""]),
            "to-crs": (["EPSG:3400"], [""]), "db": (["w.sqlite", "postgresql://u@h/db"], [""]),
            "radius": (["1km", "500", "1.5mi"], ["-1km", "far"]), "nearest": (["1", "3"], ["0", "-4"]), "from": (["p.csv", "s.geojson"], []),
            "from-crs": (["EPSG:26916"], []), "from-x": (["Utmx"], []), "from-y": (["Utmy"], []),
            "by": (["status", "status,county", "extra.DRILLER"], []), "by-area": (["counties.geojson:STATE=42:NAME"], []),
            "area-crs": (["EPSG:4269"], []), "grid": (["0.1", "10km"], ["-1"]), "grid-crs": (["EPSG:5070"], []),
            "sum": (["total_depth"], []), "mean": (["total_depth", "depth,elevation"], []), "min": (["spud_date"], []), "max": (["total_depth"], []),
        ]
        // Each command's options, flags, positional values and how many positionals it takes (given one time in four more or fewer).
        let commands: [(name: String, options: [String], flags: [String], positionals: [String], count: Int)] = [
            ("bbox", Wells.Bbox.quickOptions, Wells.Bbox.quickFlags, ["-114.5,52.1,-114.4,52.2", "1,2,3,4", "170,-10,-170,10", "a,b", "help", ""], 1),
            ("near", Wells.Near.quickOptions, Wells.Near.quickFlags, ["51.05,-114.07", "-33.9,151.2", "x", "91,0"], 1),
            ("find", Wells.Find.quickOptions, Wells.Find.quickFlags, ["stray"], 0),
            ("show", Wells.Show.quickOptions, Wells.Show.quickFlags, ["100/06-12-034-05W4/00", "-5", "a b", ""], 1),
            ("count", Wells.Count.quickOptions, Wells.Count.quickFlags, ["status"], 0),
        ]
        var random = SeededRandom(seed: 7)
        var quick: [String: Int] = [:]
        for round in 0..<300 {
            let command = commands[round % commands.count]
            var words: [[String]] = []
            let count = Int.random(in: 0..<4, using: &random) == 0 ? abs(command.count - 1) + Int.random(in: 0...1, using: &random) : command.count
            for _ in 0..<count { words.append([command.positionals.randomElement(using: &random)!]) }
            for _ in 0..<Int.random(in: 0...4, using: &random) {
                let name = command.options.randomElement(using: &random)!
                let pool = values[name] ?? (["v"], [])
                let bad = !pool.bad.isEmpty && Int.random(in: 0..<5, using: &random) == 0
                let value = (bad ? pool.bad : pool.good).randomElement(using: &random)!
                words.append(Bool.random(using: &random) ? ["--\(name)", value] : ["--\(name)=\(value)"])
            }
            for flag in command.flags where Int.random(in: 0..<4, using: &random) == 0 { words.append(["--\(flag)"]) }
            // `near` takes one of --radius and --nearest: one of them, or lines that pass its checks are rare.
            if command.name == "near" { words.append(Bool.random(using: &random) ? ["--radius", "2km"] : ["--nearest=4"]) }
            let line = [command.name] + words.shuffled(using: &random).flatMap { $0 }
            if Self.agree(line) { quick[command.name, default: 0] += 1 }
        }
        // The test means something only if many lines take the quick path.
        for command in commands {
            #expect(quick[command.name, default: 0] >= 10, "only \(quick[command.name, default: 0]) of 60 random \(command.name) lines were read quickly")
        }
    }

    /// Words an attacker or a shell might pass: each line is read quickly as ArgumentParser reads it, or not quickly.
    @Test func oddLinesAreReadAsArgumentParserReadsThemOrLeftToIt() {
        let lines: [[String]] = [
            ["bbox", "--db=--db", "1,2,3,4"], ["bbox", "1,2,3,4", "--where=a = b"], ["bbox", "1,2,3,4", "--db", "x y"],
            ["bbox", "--", "1,2,3,4", "--db", "x"], ["bbox", "1,2,3,4", "--", "--db"], ["show", "--", "--help"], ["show", "--", "-h"],
            ["bbox", "1,2,3,4", "--fields", "é,\u{0}"], ["bbox", "", "--db", ""], ["find", "--where", "-1"], ["find", "--limit", "+5"],
            ["find", "--limit", "0x10"], ["find", "--limit", " 5"], ["count", "--sum", "a", "--sum=b", "--sum", "c"], ["bbox", "1,2,3,4", "---db", "x"],
            ["bbox", "1,2,3,4", "--DB", "x"], ["bbox", "1,2,3,4", "--format", "CSV"], ["near", "1,2", "--radius", "1 km"],
            ["bbox", "1,2,3,4", "--db", String(repeating: "x", count: 100_000)], ["find"] + Array(repeating: ["--where", "a = 1"], count: 500).flatMap { $0 },
        ]
        for line in lines { _ = Self.agree(line) }
    }

    /// Whether `line` was read quickly; if it was, it is the command ArgumentParser reads (an issue is recorded if not).
    static func agree(_ line: [String]) -> Bool {
        let (read, parsed) = Self.read(line)
        guard let read, let parsed else { return false }
        switch parsed {
        case .success(let reference): #expect(Self.contents(read) == Self.contents(reference), "\(line.map { String($0.prefix(80)) })")
        case .failure(let error): Issue.record("\(line.map { String($0.prefix(80)) }) was read quickly; ArgumentParser refuses it: \(error)")
        }
        return true
    }
}
