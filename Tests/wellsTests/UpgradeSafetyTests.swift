import Foundation
import GRDB
import Testing
import WellsTestSupport
@testable import WellKit
@testable import WellKitSynthetic

/// A store made by an earlier build, under commands that fail and processes that die: it is
/// upgraded in one transaction, with the command's first write, or not at all.
@Suite(.serialized, .blocking) struct UpgradeSafetyTests {
    static func copyOfStore(version: Int32, in directory: URL, named name: String? = nil) throws -> String {
        let copy = directory.appendingPathComponent(name ?? "store-v\(version).sqlite")
        try FileManager.default.copyItem(at: PinPointsTests.fixtures.appendingPathComponent("store-v\(version).sqlite"), to: copy)
        return copy.path
    }

    /// The files beside `store` that SQLite makes (`-wal`, `-shm`, `-journal`) and any other litter.
    static func others(beside store: String) throws -> [String] {
        let directory = (store as NSString).deletingLastPathComponent, name = (store as NSString).lastPathComponent
        return try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasPrefix(name) && $0 != name }.sorted()
    }

    /// Every command that fails before it writes leaves a version 2 or 4 store byte for byte as it
    /// was, with no `-wal` or `-shm` beside it: a missing input, an empty one, a file of 100,000
    /// columns and no coordinates, an identifier column that does not exist.
    @Test(arguments: [2, 4] as [Int32]) func aCommandThatFailsLeavesAnOlderStoreAsItWas(version: Int32) throws {
        try withTemporaryDirectory("upgrade-refused") { directory in
            let empty = directory.appendingPathComponent("empty.csv").path
            FileManager.default.createFile(atPath: empty, contents: Data())
            let wide = directory.appendingPathComponent("wide.csv").path
            let names = (0..<100_000).map { "c\($0)" }
            try (names.joined(separator: ",") + "\n" + names.map { _ in "1" }.joined(separator: ",") + "\n").write(toFile: wide, atomically: true, encoding: .utf8)
            let small = directory.appendingPathComponent("small.csv").path
            try WellGenerator(count: 50, seed: 4).write(toFileAt: small)
            let cases: [(arguments: [String], status: Int32)] = [
                (["load", "/nonexistent/wells.csv"], 66),
                (["load", empty], 65),
                (["load", wide], 65),
                (["load", small, "--id", "no_such_column"], 65),
            ]
            for (arguments, status) in cases {
                let store = try Self.copyOfStore(version: version, in: directory)
                defer { try? FileManager.default.removeItem(atPath: store) }
                let bytes = try Data(contentsOf: URL(fileURLWithPath: store))
                let run = try LoadSafetyTests.wells(arguments + ["--db", store, "--quiet"])
                #expect(run.status == status, "\(arguments): \(run.stderr)")
                #expect(try Data(contentsOf: URL(fileURLWithPath: store)) == bytes, "\(arguments) changed the store's file")
                #expect(try Self.others(beside: store) == [], "\(arguments)")
                #expect(try PinPointsTests.userVersion(store) == Int(version), "\(arguments)")
            }
            // The same load, with the column it names, upgrades the store as it commits.
            let store = try Self.copyOfStore(version: version, in: directory)
            let run = try LoadSafetyTests.wells(["load", small, "--db", store, "--quiet"])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(try PinPointsTests.userVersion(store) == Int(Schema.version))
            #expect(try PinPointsTests.everyField(of: store).count == 497 + 50)
            #expect(try LoadSafetyTests.wells(["check", "--db", store]).status == 0)
        }
    }

    /// The disk-full refusal says "nothing was changed", and an older store is indeed as it was;
    /// an upgrade that runs out of room is rolled back whole.
    @Test func aFullDiskLeavesAnOlderStoreAsItWas() throws {
        guard getuid() == 0 else {
            Issue.record("this test mounts a tmpfs, which needs root")
            return
        }
        try withTemporaryDirectory("upgrade-full") { directory in
            let mount = directory.appendingPathComponent("small").path
            try LoadSafetyTests.withTmpfs(at: mount, size: "3m") {
                let big = directory.appendingPathComponent("big.csv").path
                try WellGenerator(count: 20_000, seed: 3).write(toFileAt: big)
                let store = try Self.copyOfStore(version: 4, in: URL(fileURLWithPath: mount))
                let bytes = try Data(contentsOf: URL(fileURLWithPath: store))
                let run = try LoadSafetyTests.wells(["load", big, "--db", store, "--quiet"])
                #expect(run.status == 74, "\(run.stderr)")
                #expect(run.stderr.contains("nothing was changed"), "\(run.stderr)")
                #expect(try Data(contentsOf: URL(fileURLWithPath: store)) == bytes)
                #expect(try FileManager.default.contentsOfDirectory(atPath: mount) == ["store-v4.sqlite"])
            }
        }
    }

    /// A version 2 store of `copies` times the fixture's 497 wells (each copy with its own ids and
    /// identifiers), made from the fixture with SQL, so that an upgrade takes long enough to be
    /// stopped in the middle.
    static func largerVersion2Store(copies: Int, in directory: URL) throws -> String {
        let store = try copyOfStore(version: 2, in: directory, named: "large-v2.sqlite")
        var configuration = Configuration()
        configuration.prepareDatabase { try SpatiaLite.initialize($0) }
        let queue = try DatabaseQueue(path: store, configuration: configuration)
        try queue.write { db in
            let step = (try Int64.fetchOne(db, sql: "SELECT max(id) FROM pins") ?? 0) + 1
            let columns = try String.fetchAll(db, sql: "SELECT name FROM pragma_table_info('details')")
            let copied = columns.map { name in
                switch name {
                case "pin_id": "pin_id + :offset"
                case "uwi": "uwi || '-' || :copy"
                default: name.quotedDatabaseIdentifier
                }
            }
            for copy in 1..<copies {
                let offset = Int64(copy) * step
                try db.execute(sql: "INSERT INTO pins(id, name, lat, lon, geom) SELECT id + :offset, name, lat, lon, geom FROM pins WHERE id < :step",
                               arguments: ["offset": offset, "step": step])
                try db.execute(sql: """
                    INSERT INTO details(\(columns.map(\.quotedDatabaseIdentifier).joined(separator: ", ")))
                      SELECT \(copied.joined(separator: ", ")) FROM details WHERE pin_id < :step
                    """, arguments: ["offset": offset, "copy": copy, "step": step])
            }
        }
        _ = try queue.writeWithoutTransaction { try $0.checkpoint(.truncate) }
        try queue.close()
        return store
    }

    /// What a store holds after a process was killed: its version, the migrations it records, and its wells.
    static func state(of store: String) throws -> (version: Int, migrations: [String], pins: Int, details: Int) {
        // A writer's connection, so that SQLite recovers the WAL of the killed process.
        let queue = try DatabaseQueue(path: store)
        defer { try? queue.close() }
        return try queue.read { db in
            (try Int.fetchOne(db, sql: "PRAGMA user_version") ?? -1,
             try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations ORDER BY identifier"),
             try Int.fetchOne(db, sql: "SELECT count(*) FROM pins") ?? -1,
             try Int.fetchOne(db, sql: "SELECT count(*) FROM details") ?? -1)
        }
    }

    /// kill -9 at moments spread over a whole `wells optimize` of a version 2 store (one moment in
    /// each of 24 equal slices of its run, at random within the slice): the store has version 2
    /// or 5 afterwards, never one between, with the migrations that version records and every well.
    @Test(.lane(.slow)) func anUpgradeKilledAtAnyMomentLeavesTheOldVersionOrTheNew() async throws {
        try await runBlocking {
            try withTemporaryDirectory("upgrade-kill") { directory in
                let copies = 40, trials = 24
                let template = try Self.largerVersion2Store(copies: copies, in: directory)
                let wells = 497 * copies
                let versionTwo = try Self.state(of: template)
                #expect(versionTwo.version == 2 && versionTwo.migrations == ["v1", "v2"] && versionTwo.pins == wells && versionTwo.details == wells)
                let store = directory.appendingPathComponent("store.sqlite").path
                func fresh() throws {
                    for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: store + suffix) }
                    try FileManager.default.copyItem(atPath: template, toPath: store)
                }
                // One whole run first: how long an upgrade takes here, and what it ends with.
                try fresh()
                let whole = try Command(InterruptedLoadTests.wells, ["optimize", "--db", store]).runWaiting()
                #expect(whole.exitedWithZero, "\(whole.err)")
                let upgraded = try Self.state(of: store)
                #expect(upgraded.version == Int(Schema.version) && upgraded.migrations == Schema.migrations.map(\.identifier).sorted())
                #expect(upgraded.pins == wells && upgraded.details == wells)

                var ends: [Int: Int] = [:], killed = 0
                var random = SystemRandomNumberGenerator()
                for trial in 0..<trials {
                    try fresh()
                    let delay = whole.seconds * (Double(trial) + Double.random(in: 0..<1, using: &random)) / Double(trials)
                    let process = try Command(InterruptedLoadTests.wells, ["optimize", "--db", store]).start()
                    Thread.sleep(forTimeInterval: delay)
                    if process.send(SIGKILL) { killed += 1 }
                    _ = try process.waitUntilExit()
                    let state = try Self.state(of: store)
                    ends[state.version, default: 0] += 1
                    let expected = state.version == 2 ? versionTwo.migrations : upgraded.migrations
                    #expect([2, Int(Schema.version)].contains(state.version), "killed after \(delay) s: version \(state.version), \(state.migrations)")
                    #expect(state.migrations == expected, "killed after \(delay) s")
                    #expect(state.pins == wells && state.details == wells, "killed after \(delay) s")
                }
                print("upgrade of \(wells) wells: \(whole.seconds) s whole; \(killed) of \(trials) runs killed; versions after: \(ends)")
                #expect(killed >= trials / 2, "most kills should land while the command runs")
            }
        }
    }
}
