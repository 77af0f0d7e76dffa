import Foundation
import GRDB
import Testing
@testable import WellKit
import WellKitSynthetic
import WellsTestSupport

/// A store with damaged pages or cut short: every command that fails on it leaves the file byte for
/// byte as it was (no header field, page or journal changed), and `wells check` finds each damage.
@Suite struct DamagedStoreTests {
    /// A store of 6,000 wells and the ways to damage a copy of it: 4 KB of noise over the root
    /// pages of its tables and indexes and over pages deep in them, and truncations.
    static func withDamages(_ body: (_ directory: URL, _ store: String, _ damages: [(name: String, damage: (String) throws -> Void)]) throws -> Void) throws {
        try withTemporaryDirectory("wells-damage") { directory in
            let csv = directory.appendingPathComponent("wells.csv").path
            let store = directory.appendingPathComponent("wells.sqlite").path
            try WellGenerator(count: 6_000, seed: 11).write(toFileAt: csv)
            try WellGenerator(count: 500, seed: 12).write(toFileAt: directory.appendingPathComponent("more.csv").path)
            _ = try WellStore(path: store).load(csvAt: csv)
            // Root pages from the store's own schema: damage lands in pins, details, the identifier
            // index and the R*Tree, wherever this build puts them.
            let roots = try DatabaseQueue(path: store).read { db in
                try Dictionary(uniqueKeysWithValues: Row.fetchAll(db, sql: "SELECT name, rootpage FROM sqlite_master WHERE rootpage > 0").map {
                    ($0[0] as String, $0[1] as Int)
                })
            }
            let size = try FileManager.default.attributesOfItem(atPath: store)[.size] as! Int
            var damages: [(String, (String) throws -> Void)] = []
            for name in ["pins", "details", "details_uwi", "idx_pins_geom_node", "loads", "grdb_migrations"] {
                let page = try #require(roots[name], "no table or index \(name) in the store")
                damages.append(("noise over \(name)'s root page \(page)", { try Self.noise($0, page: page) }))
            }
            for fraction in [0.3, 0.6, 0.9] {
                let page = Int(Double(size / 4096) * fraction)
                damages.append(("noise over page \(page)", { try Self.noise($0, page: page) }))
            }
            damages.append(("cut to half", { truncate($0, off_t(size / 2)) }))
            damages.append(("cut by 10 pages", { truncate($0, off_t(size - 10 * 4096)) }))
            try body(directory, store, damages)
        }
    }

    /// Writes 4,096 bytes of seeded noise over page `page` (1-based) of the file at `path`.
    static func noise(_ path: String, page: Int) throws {
        var random = SeededRandom(seed: UInt64(page))
        let handle = try #require(FileHandle(forUpdatingAtPath: path))
        defer { try? handle.close() }
        try handle.seek(toOffset: UInt64(page - 1) * 4096)
        try handle.write(contentsOf: Data((0..<4096).map { _ in UInt8.random(in: 0...255, using: &random) }))
    }

    /// A fresh damaged copy of `store`, and its bytes.
    static func damagedCopy(of store: String, in directory: URL, _ damage: (String) throws -> Void) throws -> (path: String, bytes: Data) {
        let copy = directory.appendingPathComponent("damaged.sqlite").path
        for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: copy + suffix) }
        try FileManager.default.copyItem(atPath: store, toPath: copy)
        try damage(copy)
        return (copy, try Data(contentsOf: URL(fileURLWithPath: copy)))
    }

    @Test(.lane(.slow)) func failedCommandsLeaveADamagedStoreByteIdentical() async throws {
        try await runBlocking { try Self.failedCommandsLeaveADamagedStoreByteIdentical() }
    }

    static func failedCommandsLeaveADamagedStoreByteIdentical() throws {
        try Self.withDamages { directory, store, damages in
            let commands: [[String]] = [
                ["load", directory.appendingPathComponent("more.csv").path],
                ["optimize"],
                ["index", "--sort", "detail.spud_date"],
                ["find", "--where", "name beginswith 'A'", "--sort", "detail.total_depth", "--format", "csv"],
            ]
            var failures = 0
            for (name, damage) in damages {
                for command in commands {
                    let (copy, before) = try Self.damagedCopy(of: store, in: directory, damage)
                    let run = try HardeningTests.wells(command + ["--db", copy])
                    guard run.status != 0 else { continue }
                    failures += 1
                    #expect([65, 74].contains(run.status), "\(name): wells \(command[0]) exited \(run.status): \(run.err)")
                    #expect(try Data(contentsOf: URL(fileURLWithPath: copy)) == before, "\(name): a failed wells \(command[0]) changed the store")
                    // A journal or a WAL with frames would change the file at its next open.
                    for suffix in ["-journal", "-wal"] {
                        let size = (try? FileManager.default.attributesOfItem(atPath: copy + suffix)[.size] as? Int) ?? 0
                        #expect(size == 0, "\(name): a failed wells \(command[0]) left \(size) bytes in \(suffix)")
                    }
                }
            }
            // Most damage makes the commands fail; the few that succeed (damage in pages they never read) may write.
            #expect(failures >= damages.count * 2, "only \(failures) commands failed on \(damages.count) damages")
        }
    }

    @Test(.lane(.slow)) func checkFindsEveryDamage() async throws {
        try await runBlocking { try Self.checkFindsEveryDamage() }
    }

    static func checkFindsEveryDamage() throws {
        try Self.withDamages { directory, store, damages in
            let sound = try HardeningTests.wells(["check", "--db", store])
            #expect(sound.status == 0, "\(sound.out) \(sound.err)")
            #expect(sound.out.contains("Sound"))
            for (name, damage) in damages {
                for quick in [[], ["--quick"]] {
                    let (copy, before) = try Self.damagedCopy(of: store, in: directory, damage)
                    let run = try HardeningTests.wells(["check", "--db", copy] + quick)
                    #expect(run.status == 65, "\(name): wells check \(quick) exited \(run.status): \(run.out) \(run.err)")
                    #expect(try Data(contentsOf: URL(fileURLWithPath: copy)) == before, "\(name): wells check changed the store")
                }
            }
        }
    }

    /// A store whose pages are sound but whose rows break WellKit's invariants: a detail deleted, an
    /// index box moved, a reject removed. `check` names each, as JSON too.
    @Test func checkFindsBrokenInvariants() async throws {
        try await runBlocking { try Self.checkFindsBrokenInvariants() }
    }

    static func checkFindsBrokenInvariants() throws {
        try Self.withDamages { directory, store, _ in
            let breaches: [(sql: String, finding: String)] = [
                ("DELETE FROM details WHERE pin_id = (SELECT min(pin_id) FROM details)", "1 pins have no detail"),
                ("UPDATE idx_pins_geom SET xmin = xmin + 1, xmax = xmax + 1 WHERE pkid IN (1, 2)",
                 "2 spatial index boxes do not hold their pin"),
                ("UPDATE loads SET rejected = rejected + 1", "1 loads keep a number of rejected rows other than they report"),
                ("UPDATE details SET extra = json_set(extra, '$[0]', 999999) WHERE pin_id = (SELECT min(pin_id) FROM details WHERE extra IS NOT NULL)",
                 "1 extra values are neither text nor the code of a row of extra_values"),
                ("DELETE FROM idx_pins_geom WHERE pkid = 3", "1 pins have no spatial index entry"),
                ("DROP TRIGGER pins_geom_update", "1 of the triggers that keep the spatial index in step are missing"),
                ("UPDATE geometry_columns SET spatial_index_enabled = 0 WHERE f_table_name = 'pins'",
                 "pins.geom is not registered in geometry_columns as a POINT in EPSG:4326 with a spatial index"),
            ]
            for breach in breaches {
                let (copy, _) = try Self.damagedCopy(of: store, in: directory) { path in
                    let queue = try DatabaseQueue(path: path)
                    try queue.writeWithoutTransaction { db in
                        try db.execute(sql: "PRAGMA foreign_keys = OFF")
                        try db.execute(sql: breach.sql)
                    }
                    try queue.close()
                }
                let run = try HardeningTests.wells(["check", "--db", copy, "--format", "json"])
                #expect(run.status == 65, "\(breach.sql): \(run.out) \(run.err)")
                let report = try JSONDecoder().decode(StoreCheck.self, from: Data(run.out.utf8))
                #expect(report.findings.map(\.problem) == [breach.finding], "\(breach.sql)")
            }
        }
    }

    /// `wells serve` on a store with damaged detail pages: the request that reads them answers a
    /// 500 problem document that says the store is damaged, not an empty body; others still answer.
    @Test(.lane(.server)) func theServerAnswersAProblemForADamagedStore() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("wells-damage-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let csv = directory.appendingPathComponent("wells.csv").path, store = directory.appendingPathComponent("wells.sqlite").path
        try WellGenerator(count: 6_000, seed: 11).write(toFileAt: csv)
        _ = try WellStore(path: store).load(csvAt: csv)
        // Three leaf pages of `details`, wherever the load put them among the other tables' pages.
        var readOnly = Configuration()
        readOnly.readonly = true
        let detailPages = try await DatabaseQueue(path: store, configuration: readOnly).read { db in
            try Int.fetchAll(db, sql: "SELECT pageno FROM dbstat WHERE name = 'details' AND pagetype = 'leaf' ORDER BY pageno")
        }
        for fraction in [0.2, 0.4, 0.6] { try Self.noise(store, page: detailPages[Int(Double(detailPages.count) * fraction)]) }
        let server = try await ServedWells(arguments: ["serve", "--db", store, "--port", "0", "--exit-with-stdin"])
        let whole = try await HTTP.get(server.url + "collections/wells/items?limit=10000&properties=*&sortby=name")
        #expect(whole.status == 500)
        let problem = String(decoding: whole.body, as: UTF8.self)
        #expect(problem.contains(#""detail":"the store is damaged"#), "\(problem)")
        #expect(try await HTTP.get(server.url + "conformance").status == 200)
    }
}
