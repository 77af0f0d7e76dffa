import Foundation
import GRDB
import Testing
@testable import WellKit
import WellsTestSupport

/// Schema version 3's pins of four fields and the GIS layer `wells`, version 4's repeated extra
/// values kept once, and version 5's points computed from the pins (`pins.geom`, a virtual column)
/// in place of version 3's table `pin_points`: a store of version 2, 3 or 4 (`Tests/Fixtures/Stores`)
/// upgraded by a writer or `wells optimize` reads back every field of every well as version 2 read
/// it, and answers a box as a fresh load does; GDAL's `ogrinfo` opens the layer `wells` with every
/// field, well by well.
@Suite struct PinPointsTests {
    static let fixtures = RepositoryData.root.appendingPathComponent("Tests/Fixtures/Stores")

    static func wells(_ arguments: [String]) throws -> (status: Int32, out: String, err: String) {
        try HardeningTests.wells(arguments)
    }

    /// A copy of the store of schema `version` (2, 3 or 4) in `directory`: the fixture itself is never opened.
    static func copyOfStore(version: Int32, in directory: URL) throws -> String {
        let copy = directory.appendingPathComponent("store-v\(version).sqlite")
        try FileManager.default.copyItem(at: fixtures.appendingPathComponent("store-v\(version).sqlite"), to: copy)
        return copy.path
    }

    /// A fresh load of the two files the version 2 store was loaded from, in the same order.
    static func freshStore(in directory: URL) throws -> String {
        let store = directory.appendingPathComponent("fresh.sqlite").path
        for file in ["alberta-300.csv", "tn-200.csv"] {
            let load = try wells(["load", fixtures.appendingPathComponent(file).path, "--db", store, "--quiet"])
            #expect(load.status == 0, "\(load.err.prefix(500))")
        }
        return store
    }

    /// Every field of every well as `wells find --fields '*'` reads it (the command that made `store-v2.json`).
    static func everyField(of store: String, extra: [String] = []) throws -> [[String: FieldValue]] {
        let run = try wells(["find", "--db", store, "--fields", "*", "--format", "json", "--sort", "id", "--limit", "1000"] + extra)
        #expect(run.status == 0, "\(run.err)")
        return try JSONDecoder().decode([[String: FieldValue]].self, from: Data(run.out.utf8))
    }

    /// A writer's open leaves a version 2, 3 or 4 store at its version; `upgrade()` then upgrades it in place, ids and all: every field of every well
    /// reads back as version 2 read it (`store-v2.json`, which versions 3 and 4 read alike), a box answers as
    /// on a fresh load of the same files, `wells check` finds it sound, and `ogrinfo` opens its layer.
    @Test(.lane(.slow), arguments: [2, 3, 4] as [Int32]) func aWriterUpgradesAnOlderStoreAndEveryFieldReadsBack(version: Int32) async throws {
        try await runBlocking {
            try withTemporaryDirectory("pins-v\(version)") { directory in
                let store = try Self.copyOfStore(version: version, in: directory)
                // A read-only command leaves the store as it is and says how to upgrade it.
                let refused = try Self.wells(["find", "--db", store, "--limit", "1"])
                #expect(refused.status == 65)
                #expect(refused.err.contains("schema version \(version)"), "\(refused.err)")
                #expect(refused.err.contains("wells optimize --db \(store)"), "\(refused.err)")
                #expect(try Self.userVersion(store) == version)

                try WellStore(path: store, mode: .existing).close()
                #expect(try Self.userVersion(store) == version, "opening to write upgrades nothing")
                let opened = try WellStore(path: store, mode: .existing)
                try opened.upgrade()
                try opened.close()
                try Self.expectCurrentLayout(store)
                let check = try Self.wells(["check", "--db", store])
                #expect(check.status == 0, "\(check.out) \(check.err)")
                let upgraded = try Self.everyField(of: store)
                let expected = try Self.version2Wells()
                #expect(upgraded.count == expected.count)
                for (read, stored) in zip(upgraded, expected) where read != stored {
                    Issue.record("well \(stored["id"].map { "\($0)" } ?? "?"): \(read) != \(stored)")
                }

                // A box on the upgraded store answers as on a fresh load of the same two files.
                let fresh = try Self.freshStore(in: directory)
                for box in ["-120,49,-110,60", "-86,35.5,-85,36.5", "-111.5,56,-111,57"] {
                    let old = try Self.wells(["bbox", box, "--db", store, "--format", "json", "--fields", "*", "--sort", "uwi", "--limit", "1000"])
                    let new = try Self.wells(["bbox", box, "--db", fresh, "--format", "json", "--fields", "*", "--sort", "uwi", "--limit", "1000"])
                    #expect(old.status == 0 && new.status == 0, "\(old.err) \(new.err)")
                    let upgradedWells = try JSONDecoder().decode([[String: FieldValue]].self, from: Data(old.out.utf8))
                    #expect(!upgradedWells.isEmpty, "box \(box)")
                    #expect(upgradedWells == (try JSONDecoder().decode([[String: FieldValue]].self, from: Data(new.out.utf8))), "box \(box)")
                }
                try Self.expectLayerHasEveryField(store: store, wells: upgraded)
            }
        }
    }

    /// `wells optimize` upgrades a version 2, 3 or 4 store too (then renumbers its pins along the Hilbert
    /// curve): every field of every well but the id reads back as version 2 read it.
    @Test(.lane(.slow), arguments: [2, 3, 4] as [Int32]) func optimizeUpgradesAnOlderStore(version: Int32) async throws {
        try await runBlocking {
            try withTemporaryDirectory("pins-v\(version)-optimize") { directory in
                let store = try Self.copyOfStore(version: version, in: directory)
                let optimize = try Self.wells(["optimize", "--db", store])
                #expect(optimize.status == 0, "\(optimize.err)")
                try Self.expectCurrentLayout(store)
                let check = try Self.wells(["check", "--db", store])
                #expect(check.status == 0, "\(check.out) \(check.err)")
                func byIdentifier(_ wells: [[String: FieldValue]]) -> [FieldValue: [String: FieldValue]] {
                    Dictionary(wells.map { well in (well["uwi"] ?? .null, well.filter { $0.key != "id" }) }, uniquingKeysWith: { first, _ in first })
                }
                let upgraded = byIdentifier(try Self.everyField(of: store)), expected = byIdentifier(try Self.version2Wells())
                #expect(upgraded.count == 497 && expected.count == 497)
                for (uwi, stored) in expected where upgraded[uwi] != stored {
                    Issue.record("well \(uwi): \(upgraded[uwi].map { "\($0)" } ?? "missing") != \(stored)")
                }
            }
        }
    }

    /// `wells optimize --vacuum` upgrades a version 4 store and gives the pages of its dropped
    /// `pin_points` back to the disk: the file shrinks, says so, and reads back every field.
    @Test func optimizeVacuumGivesBackAnUpgradedStoresPages() async throws {
        try await runBlocking {
            try withTemporaryDirectory("pins-v4-vacuum") { directory in
                let store = try Self.copyOfStore(version: 4, in: directory)
                let before = try FileManager.default.attributesOfItem(atPath: store)[.size] as! Int
                let optimize = try Self.wells(["optimize", "--vacuum", "--db", store])
                #expect(optimize.status == 0, "\(optimize.err)")
                #expect(optimize.out.contains("Vacuumed: "), "\(optimize.out)")
                try Self.expectCurrentLayout(store)
                let after = try FileManager.default.attributesOfItem(atPath: store)[.size] as! Int
                // pin_points held 497 points of 60 bytes and their R*Tree: about a dozen pages; version 6's
                // releases, release_loads and changes tables and their three indexes take one page each.
                #expect(after <= before - 8 * 4096 + 6 * 4096, "\(before) → \(after) bytes")
                #expect(try DatabaseQueue(path: store).read { try Int.fetchOne($0, sql: "PRAGMA freelist_count") } == 0)
                let check = try Self.wells(["check", "--db", store])
                #expect(check.status == 0, "\(check.out) \(check.err)")
                #expect(try Self.everyField(of: store).count == 497)
            }
        }
    }

    static func version2Wells() throws -> [[String: FieldValue]] {
        try JSONDecoder().decode([[String: FieldValue]].self, from: Data(contentsOf: fixtures.appendingPathComponent("store-v2.json")))
    }

    /// This build's schema: pins of four fields stored (`PRAGMA table_info` leaves the virtual
    /// `geom` out; GRDB's `columns(in:)` reads `table_xinfo`) and their computed point, registered, with a packed R*Tree of 497 entries kept in
    /// step by three triggers (version 5; no `pin_points`), the table of extra values kept once (version 4).
    static func expectCurrentLayout(_ store: String) throws {
        #expect(try userVersion(store) == Schema.version)
        try DatabaseQueue(path: store).read { (db: Database) throws -> Void in
            #expect(try db.tableExists(ExtraValues.table))
            #expect(try String.fetchAll(db, sql: "SELECT name FROM pragma_table_info('pins')") == ["id", "name", "lat", "lon"])
            #expect(try String.fetchAll(db, sql: "SELECT name FROM pragma_table_xinfo('pins') WHERE hidden = 2") == ["geom"])
            // `sqlite3` without SpatiaLite can check the store: nothing in it makes SQLite compute a point.
            #expect(try String.fetchAll(db, sql: "PRAGMA integrity_check") == ["ok"])
            #expect(try !db.tableExists("pin_points"))
            #expect(try !db.tableExists("idx_pin_points_geom"))
            #expect(try String.fetchAll(db, sql: "SELECT f_table_name || '.' || f_geometry_column || ' ' || srid || ' ' || spatial_index_enabled FROM geometry_columns")
                    == ["pins.geom 4326 1"])
            #expect(try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'pins' ORDER BY name")
                    == ["pins_geom_delete", "pins_geom_insert", "pins_geom_update"])
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM idx_pins_geom") == 497)
            #expect(try String.fetchOne(db, sql: "SELECT rtreecheck('idx_pins_geom')") == "ok")
            #expect(try Row.fetchAll(db, sql: "PRAGMA foreign_key_check").isEmpty)
        }
    }

    /// A reload that moves wells keeps each point at its pin, the R*Tree in step, and `wells check` sound;
    /// deleting pins takes their R*Tree entries with them, and an edit by hand moves its entry (the triggers).
    @Test func reloadAndDeleteKeepPointsAndIndexInStep() async throws {
        try await runBlocking {
            try withTemporaryDirectory("pins-reload") { directory in
                let store = try Self.freshStore(in: directory)
                // The Tennessee wells again, each moved 0.01° north.
                let lines = try String(contentsOf: Self.fixtures.appendingPathComponent("tn-200.csv"), encoding: .utf8)
                    .split(whereSeparator: \.isNewline).map(String.init)
                let header = lines[0].split(separator: ",").map(String.init)
                let latitude = try #require(header.firstIndex { $0.lowercased().hasPrefix("lat") }, "\(header)")
                var moved = [lines[0]]
                for line in lines.dropFirst() {
                    var cells = Self.csvCells(line)
                    if let value = Double(cells[latitude]) { cells[latitude] = String(value + 0.01) }
                    moved.append(cells.map { $0.contains(",") || $0.contains("\"") ? "\"\($0.replacingOccurrences(of: "\"", with: "\"\""))\"" : $0 }
                        .joined(separator: ","))
                }
                let file = directory.appendingPathComponent("tn-moved.csv")
                try (moved.joined(separator: "\n") + "\n").write(to: file, atomically: true, encoding: .utf8)
                let reload = try Self.wells(["load", file.path, "--db", store, "--format", "json"])
                #expect(reload.status == 0, "\(reload.err)")
                #expect(reload.out.contains("\"updated\" : 200"), "\(reload.out)")
                let check = try Self.wells(["check", "--db", store, "--format", "json"])
                #expect(check.status == 0, "\(check.out) \(check.err)")
                #expect(check.out.contains("\"points\""), "\(check.out)")
                var configuration = Configuration()
                configuration.prepareDatabase { try SpatiaLite.initialize($0) }
                let queue = try DatabaseQueue(path: store, configuration: configuration)
                try queue.write { (db: Database) throws -> Void in
                    // Every point at its pin; the Tennessee ones moved.
                    #expect(try Int.fetchOne(db, sql: """
                        SELECT count(*) FROM pins p WHERE ST_X(p.geom) = p.lon AND ST_Y(p.geom) = p.lat
                        """) == 497)
                    #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM wells WHERE lat > 36 AND lat < 37.5 AND lon > -90") == 200)
                    #expect(try String.fetchOne(db, sql: "SELECT rtreecheck('idx_pins_geom')") == "ok")
                    try db.execute(sql: "DELETE FROM pins WHERE id IN (SELECT pin_id FROM details WHERE uwi LIKE '41-%')")
                    #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM idx_pins_geom") == 297)
                    #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM details") == 297)
                    #expect(try String.fetchOne(db, sql: "SELECT rtreecheck('idx_pins_geom')") == "ok")
                    // A pin moved by hand moves its entry; the box that held it no longer finds it.
                    let id = try #require(try Int64.fetchOne(db, sql: "SELECT min(id) FROM pins"))
                    try db.execute(sql: "UPDATE pins SET lat = 10.5, lon = 20.5 WHERE id = ?", arguments: [id])
                    #expect(try Int64.fetchAll(db, sql: "SELECT pkid FROM idx_pins_geom WHERE xmin <= 20.6 AND xmax >= 20.4 AND ymin <= 10.6 AND ymax >= 10.4") == [id])
                    #expect(try String.fetchOne(db, sql: "SELECT rtreecheck('idx_pins_geom')") == "ok")
                }
                try queue.close()
                let after = try Self.wells(["check", "--db", store])
                #expect(after.status == 0, "\(after.out) \(after.err)")
            }
        }
    }

    /// `ogrinfo` lists the layer `wells` (beside `pins`, the map's four fields) with every field,
    /// and reads a few wells by FID and by `-where` field by field as `wells find` does.
    @Test func ogrinfoReadsEveryFieldOfTheWellsLayer() async throws {
        try await runBlocking {
            try withTemporaryDirectory("pins-ogr") { directory in
                let store = try Self.freshStore(in: directory)
                try Self.expectLayerHasEveryField(store: store, wells: try Self.everyField(of: store))
            }
        }
    }

    /// The detail fields of `wells find --fields '*'` that the layer has as columns of their own (the
    /// extras are its one JSON field `extra`).
    static func expectLayerHasEveryField(store: String, wells: [[String: FieldValue]]) throws {
        guard let layers = try GeoPackageNearTests.tool("ogrinfo", ["-ro", "-q", store]) else { return }
        #expect(layers.contains("wells (Point)"), "\(layers)")
        let summary = try #require(try GeoPackageNearTests.tool("ogrinfo", ["-ro", "-so", store, "wells"]))
        #expect(summary.contains("Geometry: Point"))
        #expect(summary.contains("Feature Count: \(wells.count)\n"), "\(summary)")
        #expect(summary.contains("FID Column = id"), "\(summary)")
        #expect(summary.contains(#"ID["EPSG",4326]]"#))
        let fields = wells[0].keys.filter { $0 != "id" && !$0.hasPrefix("extra.") }.sorted()
        for field in fields + ["extra", "source_x", "source_y", "source_crs", "load_id"] {
            #expect(summary.contains("\n\(field): "), "\(field) in \(summary)")
        }
        // A well with extras from each file, the first and the last, by FID and by -where.
        let samples = [wells[0], wells[wells.count / 3], wells[wells.count - 1]]
        for well in samples {
            guard case .number(let id) = well["id"], case .string(let uwi) = well["uwi"] else {
                Issue.record("no id or uwi in \(well)")
                continue
            }
            for selection in [["-fid", "\(Int(id))"], ["-where", "uwi = '\(uwi)'"]] {
                let text = try #require(try GeoPackageNearTests.tool("ogrinfo", ["-ro", "-q", store, "wells"] + selection))
                let feature = Self.feature(text)
                #expect(feature.fid == Int(id), "\(selection): \(text)")
                for field in fields {
                    let value = feature.values[field] ?? nil
                    switch well[field] {
                    case .string(let expected)?: #expect(value == expected, "\(field) of \(uwi)")
                    case .number(let expected)?: #expect(value.flatMap(Double.init).map { abs($0 - expected) <= 1e-9 * max(1, abs(expected)) } == true,
                                                         "\(field) of \(uwi): \(value ?? "null") against \(expected)")
                    case .null?, nil: #expect(value == nil, "\(field) of \(uwi): \(value ?? "")")
                    default: Issue.record("\(field) of \(uwi): unexpected \(String(describing: well[field]))")
                    }
                }
                // The extras as stored: one JSON object of the well's unmapped values.
                var extras: [String: FieldValue] = [:]
                for (key, value) in well where key.hasPrefix("extra.") && value != .null { extras[String(key.dropFirst(6))] = value }
                let stored = try (feature.values["extra"] ?? nil).map { try JSONDecoder().decode([String: FieldValue].self, from: Data($0.utf8)) } ?? [:]
                #expect(stored == extras, "extra of \(uwi)")
                guard case .number(let lat) = well["lat"], case .number(let lon) = well["lon"], let point = feature.point else {
                    Issue.record("no point for \(uwi): \(text)")
                    continue
                }
                #expect(abs(point.lon - lon) < 1e-9 && abs(point.lat - lat) < 1e-9, "point of \(uwi): \(point)")
            }
        }
    }

    /// One feature of `ogrinfo -q` output: its FID, its fields (nil for `(null)`), and its point.
    static func feature(_ text: String) -> (fid: Int?, values: [String: String?], point: (lon: Double, lat: Double)?) {
        var fid: Int?, values: [String: String?] = [:], point: (lon: Double, lat: Double)?
        for line in text.split(separator: "\n").map(String.init) {
            if line.hasPrefix("OGRFeature(wells):") {
                fid = Int(line.dropFirst("OGRFeature(wells):".count))
            } else if line.hasPrefix("  POINT (") {
                let numbers = line.dropFirst("  POINT (".count).dropLast().split(separator: " ").compactMap { Double($0) }
                if numbers.count == 2 { point = (numbers[0], numbers[1]) }
            } else if line.hasPrefix("  "), let open = line.firstIndex(of: "("), let equals = line.range(of: ") = ") {
                let name = line[line.index(line.startIndex, offsetBy: 2)..<open].trimmingCharacters(in: .whitespaces)
                let value = String(line[equals.upperBound...])
                values[name] = value == "(null)" ? .some(nil) : .some(value)
            }
        }
        return (fid, values, point)
    }

    static func userVersion(_ store: String) throws -> Int {
        var configuration = Configuration()
        configuration.readonly = true
        return try DatabaseQueue(path: store, configuration: configuration).read { try Int.fetchOne($0, sql: "PRAGMA user_version") ?? 0 }
    }

    /// The cells of one CSV line, with RFC 4180 quotes.
    static func csvCells(_ line: String) -> [String] {
        var cells: [String] = [], cell = "", quoted = false, previous: Character?
        for character in line {
            if character == "\"" {
                if quoted { quoted = false } else { if previous == "\"" { cell.append("\"") }; quoted = true }
            } else if character == ",", !quoted {
                cells.append(cell)
                cell = ""
            } else {
                cell.append(character)
            }
            previous = character
        }
        cells.append(cell)
        return cells
    }
}

/// A JSON value, compared exactly: the fixture's numbers and texts as `wells find` printed them.
enum FieldValue: Codable, Hashable, CustomStringConvertible {
    case string(String), number(Double), bool(Bool), null, array([FieldValue]), object([String: FieldValue])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() { self = .null }
        else if let value = try? container.decode(Bool.self) { self = .bool(value) }
        else if let value = try? container.decode(Double.self) { self = .number(value) }
        else if let value = try? container.decode(String.self) { self = .string(value) }
        else if let value = try? container.decode([FieldValue].self) { self = .array(value) }
        else { self = .object(try container.decode([String: FieldValue].self)) }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .bool(let value): try container.encode(value)
        case .null: try container.encodeNil()
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    var description: String {
        switch self {
        case .string(let value): "\"\(value)\""
        case .number(let value): "\(value)"
        case .bool(let value): "\(value)"
        case .null: "null"
        case .array(let value): "\(value)"
        case .object(let value): "\(value)"
        }
    }
}
