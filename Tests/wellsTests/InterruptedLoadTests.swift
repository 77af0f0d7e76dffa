import Foundation
import GRDB
import Testing
@testable import WellKit
@testable import WellKitSynthetic
import WellsTestSupport

/// Kills `wells load` part-way and checks that the store is exactly as it was.
@Suite(.serialized, .blocking) struct InterruptedLoadTests {
    /// The `wells` executable next to the test bundle.
    static var wells: String { WellsExecutable.path }

    /// A digest of everything a load writes, to compare before and after.
    static func fingerprint(_ path: String) throws -> String {
        let store = try WellStore(path: path, mode: .existing)
        return try store.pool.read { db in
            let parts = try [
                "SELECT count(*), total(id), total(lat), total(lon) FROM pins",
                "SELECT count(*), total(pin_id), group_concat(uwi) FROM (SELECT pin_id, uwi FROM details ORDER BY pin_id)",
                "SELECT count(*), group_concat(sha256) FROM loads",
                "SELECT count(*) FROM rejects",
                "SELECT count(*), total(pkid) FROM idx_pins_geom",
                "SELECT rtreecheck('idx_pins_geom')",
                "SELECT group_concat(name) FROM (SELECT name FROM sqlite_master WHERE type = 'trigger' ORDER BY name)",
            ].map { sql in try Row.fetchOne(db, sql: sql).map { "\($0)" } ?? "" }
            return parts.joined(separator: "\n")
        }
    }

    /// Starts `wells load FILE --db STORE --quiet`.
    static func startLoad(_ file: String, into store: String) throws -> RunningCommand {
        try Command(wells, ["load", file, "--db", store, "--quiet"]).start()
    }

    /// Sends `signal` to `process` at the first moment `ready` holds (for at most two minutes), and
    /// checks that it was still running and ended by the signal.
    ///
    /// No sleeps and no timing: `ready` is checked whenever a file in `directory` changes (the
    /// kernel's inotify events), and once it holds the process is stopped (SIGSTOP, waited for with
    /// `waitid`) and `ready` checked again while nothing moves, so the signal arrives in exactly the
    /// state `ready` saw. If the process moved on between the two checks, it goes on (SIGCONT) and
    /// the wait continues.
    @discardableResult
    static func interrupt(_ process: RunningCommand, with signal: Int32, watching directory: String, when ready: () -> Bool) throws -> CommandResult {
        let changes = DirectoryChanges(directory)
        let deadline = Date().addingTimeInterval(120)
        let pid = process.processIdentifier
        var stopped = false
        while process.isRunning && Date() < deadline {
            if ready() {
                kill(pid, SIGSTOP)
                var info = siginfo_t()
                // Returns once every thread has stopped (or the process ended), leaving its status to the runner.
                _ = waitid(P_PID, id_t(pid), &info, WSTOPPED | WEXITED | WNOWAIT)
                stopped = Int(info.si_code) == Int(CLD_STOPPED)
                if stopped && ready() { break }
                kill(pid, SIGCONT)
                stopped = false
            }
            changes.wait(until: deadline)
        }
        #expect(stopped, "the load finished before it could be interrupted")
        kill(pid, signal)
        if stopped { kill(pid, SIGCONT) }
        let ended = try process.waitUntilExit()
        if signal == SIGKILL {
            #expect(ended.signal == SIGKILL)
        } else {
            // SIGINT and SIGTERM are caught: a message, the store the load made removed, exit 128 + the signal.
            #expect(ended.signal == nil && ended.status == 128 + signal)
        }
        return ended
    }

    /// Whether the first load into the empty `store`, which commits through a rollback journal, has
    /// begun writing its pages to the store's file: the file has grown past `emptySize`, and its
    /// journal is hot (SQLite writes the journal's header, its first bytes non-zero, just before
    /// it changes the file) and stays so until the commit ends. The store's header must say rollback
    /// journal (byte 18 is 1, not WAL's 2): a kill during the switch from WAL leaves a journal that
    /// WAL readers rightly ignore, which is not this case.
    static func firstLoadIsWritingTheFile(_ store: String, emptySize: Int) -> Bool {
        let journal = store + "-journal"
        let hot = (try? FileHandle(forReadingFrom: URL(fileURLWithPath: journal)).read(upToCount: 1))?.first.map { $0 != 0 } ?? false
        let header = (try? FileHandle(forReadingFrom: URL(fileURLWithPath: store)).read(upToCount: 20)).map([UInt8].init) ?? []
        let size = (try? FileManager.default.attributesOfItem(atPath: store)[.size] as? Int) ?? 0
        return hot && header.count == 20 && header[18] == 1 && size > emptySize
    }

    @Test(.lane(.slow), arguments: [SIGKILL, SIGINT])
    func killedLoadLeavesStoreUnchanged(signal: Int32) throws {
        #expect(FileManager.default.isExecutableFile(atPath: Self.wells), "build the wells executable first")
        try withTemporaryDirectory("wells-kill") { directory in
            let store = directory.appendingPathComponent("wells.sqlite").path
            let small = directory.appendingPathComponent("small.csv").path
            let big = directory.appendingPathComponent("big.csv").path
            try WellGenerator(count: 2_000, seed: 5).write(toFileAt: small)
            try WellGenerator(count: 244_292, seed: 6).write(toFileAt: big)
            _ = try WellStore(path: store).load(csvAt: small)
            let before = try Self.fingerprint(store)

            let process = try Self.startLoad(big, into: store)
            // Kill the load once it is writing (its WAL grows past the small load's).
            let wal = store + "-wal"
            var walAtStart: Int?
            try Self.interrupt(process, with: signal, watching: directory.path) {
                let size = (try? FileManager.default.attributesOfItem(atPath: wal)[.size] as? Int) ?? 0
                if walAtStart == nil { walAtStart = size }
                return size > (walAtStart ?? 0) + 4_000_000
            }

            #expect(try Self.fingerprint(store) == before)
            // And the store still takes a load afterwards.
            let summary = try WellStore(path: store).load(csvAt: small)
            #expect(summary.updated == 2_000)
        }
    }

    /// The first load into an empty store commits through a rollback journal, not WAL: killed
    /// part-way, it leaves a hot journal, which the next open rolls back to the empty store.
    @Test(.lane(.slow), arguments: [SIGKILL, SIGINT])
    func killedFirstLoadLeavesEmptyStore(signal: Int32) throws {
        try withTemporaryDirectory("wells-kill") { directory in
            let store = directory.appendingPathComponent("wells.sqlite").path
            let big = directory.appendingPathComponent("big.csv").path
            try WellGenerator(count: 244_292, seed: 7).write(toFileAt: big)
            _ = try WellStore(path: store)
            let before = try Self.fingerprint(store)

            let process = try Self.startLoad(big, into: store)
            let journal = store + "-journal"
            let emptySize = try #require(FileManager.default.attributesOfItem(atPath: store)[.size] as? Int)
            try Self.interrupt(process, with: signal, watching: directory.path) {
                Self.firstLoadIsWritingTheFile(store, emptySize: emptySize)
            }
            #expect(FileManager.default.fileExists(atPath: journal), "a killed rollback-journal load leaves its journal")

            #expect(try Self.fingerprint(store) == before)
            #expect(!FileManager.default.fileExists(atPath: journal), "opening the store rolled the journal back")
            let summary = try WellStore(path: store).load(csvAt: big)
            #expect(summary.inserted == 244_292 && summary.journal == "delete")
        }
    }

    /// A first load into a store it creates, stopped by SIGINT or SIGTERM while it writes the
    /// file through its rollback journal (its lock keeping every other connection out): the store
    /// and the journal go, and the message says so.
    @Test(.lane(.slow), arguments: [SIGINT, SIGTERM])
    func interruptedFirstLoadIntoANewStoreLeavesNothing(signal: Int32) throws {
        try withTemporaryDirectory("wells-kill-new") { directory in
            let store = directory.appendingPathComponent("wells.sqlite").path
            let big = directory.appendingPathComponent("big.csv").path
            try WellGenerator(count: 244_292, seed: 7).write(toFileAt: big)
            let process = try Self.startLoad(big, into: store)
            let ended = try Self.interrupt(process, with: signal, watching: directory.path) {
                Self.firstLoadIsWritingTheFile(store, emptySize: 0)
            }
            #expect(ended.err.contains("nothing was committed; the store the load created was removed"), "\(ended.err)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["big.csv"])
        }
    }

    /// SIGINT while `wells load -` reads standard input into its spool, and SIGTERM while `wells
    /// generate --out` writes beside an existing list: each exits 128 + the signal with a one-line
    /// message, and leaves no spool, no temporary file and the old list as it was.
    @Test(.lane(.slow)) func interruptedCommandsLeaveNoLitter() async throws {
        try await runBlocking { try Self.interruptedCommandsLeaveNoLitter() }
    }

    static func interruptedCommandsLeaveNoLitter() throws {
        try withTemporaryDirectory("wells-signals") { directory in
            let temporary = directory.appendingPathComponent("tmp")
            try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: true)
            let big = directory.appendingPathComponent("big.csv").path
            try WellGenerator(count: 400_000, seed: 5).write(toFileAt: big)
            func start(_ arguments: [String], input: String? = nil) throws -> RunningCommand {
                try Command(Self.wells, arguments, environment: ["TMPDIR": temporary.path], workingDirectory: directory.path,
                            input: input.map { .file($0) } ?? .none).start()
            }
            func files(in url: URL) -> [String] { (try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? [] }

            // A load from standard input: interrupted once its spool holds a few megabytes.
            let load = try start(["load", "-", "--db", "spool.sqlite"], input: big)
            let loaded = try Self.interrupt(load, with: SIGINT, watching: temporary.path) {
                files(in: temporary).contains { name in
                    ((try? FileManager.default.attributesOfItem(atPath: temporary.appendingPathComponent(name).path)[.size] as? Int) ?? 0) > 4_000_000
                }
            }
            #expect(files(in: temporary).isEmpty, "the spool was left: \(files(in: temporary))")
            let message = loaded.err
            #expect(message.hasPrefix("wells: interrupted by SIGINT: nothing was committed"), "\(message)")

            // A list written over an existing one: interrupted while its temporary file grows.
            let list = directory.appendingPathComponent("list.csv").path
            try FileManager.default.copyItem(atPath: big, toPath: list)
            let before = try Data(contentsOf: URL(fileURLWithPath: list))
            let generate = try start(["generate", "--count", "3000000", "--out", "list.csv"])
            let generated = try Self.interrupt(generate, with: SIGTERM, watching: directory.path) {
                files(in: directory).contains { $0.hasPrefix(".list.csv.") }
            }
            #expect(try Data(contentsOf: URL(fileURLWithPath: list)) == before, "the interrupted generate changed the old list")
            #expect(!files(in: directory).contains { $0.hasPrefix(".list.csv.") }, "the temporary file was left: \(files(in: directory))")
            let said = generated.err
            #expect(said == "wells: interrupted by SIGTERM: stopped; nothing was changed and no partial output was left\n", "\(said)")
        }
    }
}

/// Wakes a waiter when a file in a directory is created, written, renamed or removed: Linux's inotify.
final class DirectoryChanges {
    private let descriptor: Int32

    init(_ directory: String) {
        descriptor = inotify_init1(0)
        let events = UInt32(IN_CREATE) | UInt32(IN_MODIFY) | UInt32(IN_CLOSE_WRITE) | UInt32(IN_MOVED_TO) | UInt32(IN_DELETE)
        #expect(descriptor >= 0 && inotify_add_watch(descriptor, directory, events) >= 0, "inotify: \(String(cString: strerror(errno)))")
    }

    deinit { close(descriptor) }

    /// Waits until something changed since the last call, or until `deadline`, or at most 0.1 s
    /// (so that a caller notices a process that ended without changing anything more).
    func wait(until deadline: Date) {
        var request = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        let milliseconds = Int32(max(0, min(100, deadline.timeIntervalSinceNow * 1000)))
        guard poll(&request, 1, milliseconds) > 0 else { return }
        var events = [UInt8](repeating: 0, count: 64 * 1024)
        _ = read(descriptor, &events, events.count)
    }
}
