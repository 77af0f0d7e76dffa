import Foundation
import GRDB
import Testing
import WellsTestSupport
@testable import WellKit
@testable import WellKitSynthetic

/// `wells load` and the store under hostile conditions, each run as a separate process: what it
/// prints, how it exits, and that no file it was not asked to write changes.
@Suite(.serialized, .blocking) struct LoadSafetyTests {
    struct Run {
        var status: Int32
        var crashed: Bool
        var stdout: String
        var stderr: String
    }

    /// Runs `wells` with `arguments`, optionally as another user (`setpriv`) and with `stdin`.
    static func wells(_ arguments: [String], binary: String = InterruptedLoadTests.wells, asNobody: Bool = false,
                      stdin: Data? = nil) throws -> Run {
        var command = asNobody ? Command("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", binary] + arguments)
                               : Command(binary, arguments)
        if let stdin { command.input = .data(stdin) }
        let result = try command.runWaiting()
        // As Foundation's `Process` reported it: a signal's number for a child it ended.
        return Run(status: result.signal ?? result.status, crashed: result.signal != nil, stdout: result.out, stderr: result.err)
    }

    /// Runs `body` with a tmpfs of `size` (such as `3m`) mounted at `path` (made if missing), then
    /// unmounts it; records an issue and skips `body` when it cannot be mounted (it needs root).
    static func withTmpfs(at path: String, size: String, _ body: () throws -> Void) throws {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        let mounted = try Command("/bin/mount", ["-t", "tmpfs", "-o", "size=\(size)", "tmpfs", path]).runWaiting()
        #expect(mounted.status == 0, "cannot mount a tmpfs here: \(mounted.err)")
        guard mounted.status == 0 else { return }
        defer { _ = try? Command("/bin/umount", [path]).runWaiting() }
        try body()
    }

    /// A copy of the `wells` binary at `path`, for another user to run: written through a descriptor
    /// that closes on exec, so that a child another test spawns meanwhile does not inherit it open for
    /// writing (which makes running the copy fail with "Text file busy" for as long as that child lives).
    static func installCopy(of binary: String, at path: String) throws {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: binary))
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o755)
        guard fd >= 0 else { throw CocoaError(.fileWriteUnknown) }
        defer { close(fd) }
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        guard written == bytes.count else { throw CocoaError(.fileWriteUnknown) }
    }

    /// ``wells(_:binary:asNobody:stdin:)`` for a binary just written: one that a process spawned in
    /// the instant before its descriptor closed may still hold, which execve refuses (ETXTBSY,
    /// exit 126), is run again.
    static func wellsCopy(_ arguments: [String], binary: String, asNobody: Bool) throws -> Run {
        var run = try wells(arguments, binary: binary, asNobody: asNobody)
        for _ in 0..<50 where run.status == 126 && run.stderr.contains("Text file busy") {
            usleep(100_000)
            run = try wells(arguments, binary: binary, asNobody: asNobody)
        }
        return run
    }

    static func sha(_ path: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path)) }

    /// The 25-well Alabama list in Data/real.
    static let small = RepositoryData.realList("al-sogb-wells-multiline.csv")

    @Test func directoriesAndDevicesAreRefusedWithoutACrash() throws {
        try withTemporaryDirectory("wells-safety") { directory in
            let store = directory.appendingPathComponent("s.sqlite").path
            for (input, words) in [(directory.path, "is a directory"), ("/dev/null", "is a device")] {
                let run = try Self.wells(["load", input, "--db", store])
                #expect(!run.crashed, "\(input): \(run.stderr)")
                #expect(run.status == 66)
                #expect(run.stderr.contains(words))
                #expect(!FileManager.default.fileExists(atPath: store), "a failed load created the store")
            }
        }
    }

    @Test func pipesAndStandardInputAreSpooledAndNamedAsGiven() throws {
        try withTemporaryDirectory("wells-safety") { directory in
            let fifo = directory.appendingPathComponent("fifo.csv").path
            #expect(mkfifo(fifo, 0o600) == 0)
            let writer = Thread { try? Data(contentsOf: URL(fileURLWithPath: Self.small)).write(to: URL(fileURLWithPath: fifo)) }
            writer.start()
            let run = try Self.wells(["load", fifo, "--dry-run", "--format", "json"])
            #expect(run.status == 0 && run.stdout.contains("\"inserted\" : 25"))
            let empty = try Self.wells(["load", "-", "--dry-run"], stdin: Data())
            #expect(empty.status == 65)
            #expect(empty.stderr.hasPrefix("wells: error: stdin: the file is empty"))
            #expect(!empty.stderr.contains("spool") && !empty.stderr.contains("/tmp"))
        }
    }

    /// An endless pipe is copied no further than `--spool-limit`, or than 90% of the temporary
    /// folder's free space (a 16 MB tmpfs, as root): exit 74, the bound named, the copy removed.
    @Test func anEndlessPipeStopsAtTheSpoolsBound() throws {
        try withTemporaryDirectory("wells-spool") { directory in
            let temporary = directory.appendingPathComponent("tmp").path
            try FileManager.default.createDirectory(atPath: temporary, withIntermediateDirectories: true)
            let store = directory.appendingPathComponent("s.sqlite").path
            func endless(_ options: String) throws -> CommandResult {
                try Command("/bin/sh", ["-c", "yes 'W1,Well,36.1,-86.7' | \"$0\" load - --db \"$1\" --quiet \(options)", InterruptedLoadTests.wells, store],
                            environment: ["TMPDIR": temporary]).runWaiting()
            }
            let limited = try endless("--spool-limit 8M")
            #expect(limited.status == 74, "\(limited.err)")
            #expect(limited.err.contains("stdin: the input is copied to a temporary file to be read, and the copy reached its limit of 8 MiB; raise it (--spool-limit SIZE)"), "\(limited.err)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: temporary) == [])
            #expect(!FileManager.default.fileExists(atPath: store))
            guard getuid() == 0 else { return }
            try Self.withTmpfs(at: temporary, size: "16m") {
                let full = try endless("")
                #expect(full.status == 74, "\(full.err)")
                #expect(full.err.contains("MiB, 90% of the free space in \(temporary)"), "\(full.err)")
                #expect(try FileManager.default.contentsOfDirectory(atPath: temporary) == [])
            }
        }
    }

    /// A file truncated while it is being loaded: a message, exit 65, and the store as it was.
    @Test(.lane(.slow)) func inputTruncatedDuringALoadLeavesTheStoreUnchanged() throws {
        try withTemporaryDirectory("wells-safety") { directory in
            let store = directory.appendingPathComponent("s.sqlite").path
            let big = directory.appendingPathComponent("big.csv").path
            try WellGenerator(count: 244_292, seed: 8).write(toFileAt: big)
            _ = try WellStore(path: store).load(csvAt: Self.small)
            let before = try InterruptedLoadTests.fingerprint(store)
            let process = try Command(InterruptedLoadTests.wells, ["load", big, "--db", store, "--quiet"]).start()
            // Truncate the input as soon as the load has mapped it (it shows in /proc/PID/maps).
            let deadline = Date().addingTimeInterval(120)
            while process.isRunning && Date() < deadline
                    && !((try? String(contentsOfFile: "/proc/\(process.processIdentifier)/maps", encoding: .utf8))?.contains(big) ?? false) {
                Thread.sleep(forTimeInterval: 0.001)
            }
            #expect(process.isRunning, "the load finished before the file could be truncated")
            #expect(truncate(big, 0) == 0)
            let ended = try process.waitUntilExit()
            let message = ended.err
            #expect(ended.signal == nil, "the load crashed: \(message)")
            #expect(ended.status == 65)
            #expect(message.contains("big.csv: the file shrank while it was being read"))
            #expect(try InterruptedLoadTests.fingerprint(store) == before)
        }
    }

    /// The input truncated as the first load into a new store begins to write it (through a
    /// rollback journal): exit 65, a message that names the file, and no store, journal or spool left.
    @Test(.lane(.slow)) func inputTruncatedDuringAFirstLoadLeavesNothing() throws {
        try withTemporaryDirectory("wells-safety-new") { directory in
            let store = directory.appendingPathComponent("s.sqlite").path
            let big = directory.appendingPathComponent("big.csv").path
            try WellGenerator(count: 244_292, seed: 8).write(toFileAt: big)
            let process = try Command(InterruptedLoadTests.wells, ["load", big, "--db", store, "--quiet"]).start()
            let deadline = Date().addingTimeInterval(120)
            // Once the write has begun (its journal exists), while its rows are still read from the input.
            while process.isRunning && Date() < deadline && !FileManager.default.fileExists(atPath: store + "-journal") {
                Thread.sleep(forTimeInterval: 0.001)
            }
            #expect(process.isRunning, "the load finished before the file could be truncated")
            #expect(truncate(big, 0) == 0)
            let ended = try process.waitUntilExit()
            #expect(ended.signal == nil, "the load crashed: \(ended.err)")
            #expect(ended.status == 65)
            #expect(ended.err.contains("big.csv: the file shrank while it was being read"), "\(ended.err)")
            #expect(ended.err.contains("the store the load created was removed"), "\(ended.err)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["big.csv"])
        }
    }

    @Test func outputsMayNotOverwriteTheInputOrTheStore() throws {
        try withTemporaryDirectory("wells-safety") { directory in
            let store = directory.appendingPathComponent("s.sqlite").path
            let input = directory.appendingPathComponent("a.csv").path
            try FileManager.default.copyItem(atPath: Self.small, toPath: input)
            try FileManager.default.createSymbolicLink(atPath: directory.appendingPathComponent("link.csv").path, withDestinationPath: input)
            #expect(try Self.wells(["load", input, "--db", store, "--quiet"]).status == 0)
            let (storeBytes, inputBytes) = (try Self.sha(store), try Self.sha(input))
            for rejects in [store, "\(directory.path)/./s.sqlite-wal", store + "-journal", input, directory.appendingPathComponent("link.csv").path] {
                let run = try Self.wells(["load", input, "--db", store, "--rejects", rejects])
                #expect(run.status == 64, "--rejects \(rejects)")
                #expect(run.stderr.contains("it would be overwritten"))
            }
            let onInput = try Self.wells(["load", input, "--db", input])
            #expect(onInput.status == 64 && onInput.stderr.contains("--db \(input) is the input file"))
            #expect(try Self.sha(store) == storeBytes)
            #expect(try Self.sha(input) == inputBytes)
        }
    }

    @Test func aFailedFirstLoadLeavesNoStore() throws {
        try withTemporaryDirectory("wells-safety") { directory in
            let store = directory.appendingPathComponent("new.sqlite").path
            let bad = directory.appendingPathComponent("bad.csv").path
            try Data("a,b\n1,2\n".utf8).write(to: URL(fileURLWithPath: bad))
            let run = try Self.wells(["load", bad, "--db", store])
            #expect(run.status == 65)
            let left = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix("new.sqlite") }
            #expect(left.isEmpty, "left behind: \(left)")
        }
    }

    /// Four loads at once into a store none of them finds: one creates it and makes the first
    /// load (through a rollback journal), the others wait and update. Five rounds, because the
    /// race it guards (a process opening the store while the first load had it out of WAL, which
    /// failed about one round in six) does not show every time.
    @Test(.lane(.slow), arguments: 1...5) func concurrentLoadsIntoANewStoreAllSucceed(round: Int) throws {
        try withTemporaryDirectory("wells-safety") { directory in
            let store = directory.appendingPathComponent("c.sqlite").path
            let group = DispatchGroup()
            let results = Results()
            for _ in 0..<4 {
                DispatchQueue.global().async(group: group) {
                    let run = try? Self.wells(["load", Self.small, "--db", store, "--quiet", "--format", "json"])
                    results.append(run)
                }
            }
            group.wait()
            let runs = results.runs.compactMap { $0 }
            #expect(runs.count == 4)
            #expect(runs.allSatisfy { $0.status == 0 }, "\(runs.map(\.stderr))")
            #expect(runs.filter { $0.stdout.contains("\"inserted\" : 25") }.count == 1)
            #expect(runs.filter { $0.stdout.contains("\"updated\" : 25") }.count == 3)
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.contains(".creating-") }
            #expect(leftovers.isEmpty)
        }
    }

    final class Results: @unchecked Sendable {  // appended to under the lock
        private let lock = NSLock()
        private(set) var runs: [Run?] = []
        func append(_ run: Run?) { lock.withLock { runs.append(run) } }
    }

    /// A store in a directory the user cannot write: queries work (immutable open), loads say why not.
    @Test func readOnlyStoresServeQueries() throws {
        guard getuid() == 0 else {
            Issue.record("this test runs commands as user nobody through setpriv, which needs root")
            return
        }
        try withTemporaryDirectory("wells-safety") { directory in
            let binary = directory.appendingPathComponent("wells").path
            try Self.installCopy(of: InterruptedLoadTests.wells, at: binary)
            let store = directory.appendingPathComponent("s.sqlite").path
            #expect(try Self.wells(["load", Self.small, "--db", store, "--quiet"]).status == 0)
            chmod(directory.path, 0o755)
            chmod(store, 0o644)
            let query = try Self.wellsCopy(["bbox", "-89,33,-87,35", "--db", store, "--format", "csv"], binary: binary, asNobody: true)
            #expect(query.status == 0, "\(query.stderr)")
            #expect(query.stdout.split(separator: "\n").count > 1)
            let load = try Self.wellsCopy(["load", Self.small, "--db", store], binary: binary, asNobody: true)
            #expect(load.status == 73)
            #expect(load.stderr.contains("\(store): cannot write the store"))
            let create = try Self.wellsCopy(["load", Self.small, "--db", directory.appendingPathComponent("new.sqlite").path], binary: binary, asNobody: true)
            #expect(create.status == 73 && create.stderr.contains("not writable"))
        }
    }

    /// The input is opened without its access time (`O_NOATIME`: a big file's rows are read a
    /// `pread` per record), so a load leaves the list's atime as it was; a user who does not own
    /// the list, and so may not ask for that, still loads it.
    @Test func aLoadLeavesTheListsAccessTimeAndOtherUsersListsStillLoad() throws {
        guard getuid() == 0 else {
            Issue.record("this test runs commands as user nobody through setpriv, which needs root")
            return
        }
        try withTemporaryDirectory("wells-safety") { directory in
            let list = directory.appendingPathComponent("list.csv").path
            try FileManager.default.copyItem(atPath: Self.small, toPath: list)
            chmod(list, 0o644)
            func accessTime() throws -> Int {
                var info = stat()
                guard stat(list, &info) == 0 else { throw CocoaError(.fileReadUnknown) }
                return info.st_atim.tv_sec
            }
            func ageAccessTime() {
                // Read three days ago, written four: on a `relatime` mount (Linux's default) the next read updates it.
                var times = [timespec(tv_sec: time(nil) - 3 * 86_400, tv_nsec: 0), timespec(tv_sec: time(nil) - 4 * 86_400, tv_nsec: 0)]
                _ = utimensat(AT_FDCWD, list, &times, 0)
            }
            ageAccessTime()
            let aged = try accessTime()
            // A plain read updates it here, or this file system keeps no access times to test.
            _ = try Data(contentsOf: URL(fileURLWithPath: list))
            let recorded = try accessTime() != aged
            ageAccessTime()
            let load = try Self.wells(["load", list, "--db", directory.appendingPathComponent("s.sqlite").path, "--quiet"])
            #expect(load.status == 0, "\(load.stderr)")
            if recorded { #expect(try accessTime() == aged, "the load updated the list's access time") }

            let binary = directory.appendingPathComponent("wells").path
            try Self.installCopy(of: InterruptedLoadTests.wells, at: binary)
            chmod(directory.path, 0o777)
            let other = try Self.wellsCopy(["load", list, "--db", directory.appendingPathComponent("n.sqlite").path, "--format", "json"],
                                           binary: binary, asNobody: true)
            #expect(other.status == 0, "\(other.stderr)")
            #expect(other.stdout.contains("\"inserted\" : 25"), "\(other.stdout.prefix(300))")
        }
    }

    /// The journal of a killed first load: a query rolls it back when it can write the store, and
    /// says what to do when it cannot.
    @Test(.lane(.slow)) func queriesAfterAnInterruptedFirstLoad() throws {
        try withTemporaryDirectory("wells-safety") { directory in
            let store = directory.appendingPathComponent("s.sqlite").path
            let big = directory.appendingPathComponent("big.csv").path
            try WellGenerator(count: 244_292, seed: 9).write(toFileAt: big)
            _ = try WellStore(path: store)
            let emptySize = try #require(FileManager.default.attributesOfItem(atPath: store)[.size] as? Int)
            let process = try InterruptedLoadTests.startLoad(big, into: store)
            // Killed while it writes its pages to the store's file, in the state the check saw.
            try InterruptedLoadTests.interrupt(process, with: SIGKILL, watching: directory.path) {
                InterruptedLoadTests.firstLoadIsWritingTheFile(store, emptySize: emptySize)
            }
            let journal = store + "-journal"
            #expect(FileManager.default.fileExists(atPath: journal))
            if getuid() == 0 {
                let binary = directory.appendingPathComponent("wells").path
                try Self.installCopy(of: InterruptedLoadTests.wells, at: binary)
                chmod(directory.path, 0o755)
                let refused = try Self.wellsCopy(["bbox", "-120,49,-110,60", "--db", store], binary: binary, asNobody: true)
                #expect(refused.status == 73)
                #expect(refused.stderr.contains("the journal of an interrupted load"))
            }
            let query = try Self.wells(["bbox", "-120,49,-110,60", "--db", store, "--format", "csv"])
            #expect(query.status == 0, "\(query.stderr)")
            #expect(query.stdout == "id,uwi,name,lat,lon\n" || query.stdout.split(separator: "\n").count == 1)
            #expect(!FileManager.default.fileExists(atPath: journal))
        }
    }

    /// A disk too small for the load: refused before anything is written, with the path and "disk", exit 74.
    @Test func aFullDiskIsNamedAndLeavesNothingBehind() throws {
        guard getuid() == 0 else {
            Issue.record("this test mounts a 3 MB tmpfs, which needs root")
            return
        }
        try withTemporaryDirectory("wells-safety") { directory in
            let mount = directory.appendingPathComponent("small").path
            try Self.withTmpfs(at: mount, size: "3m") {
                let big = directory.appendingPathComponent("big.csv").path
                try WellGenerator(count: 20_000, seed: 3).write(toFileAt: big)
                let existing = mount + "/s.sqlite"
                #expect(try Self.wells(["load", Self.small, "--db", existing, "--quiet"]).status == 0)
                let before = try InterruptedLoadTests.fingerprint(existing)
                let bytes = try Data(contentsOf: URL(fileURLWithPath: existing))
                for store in [existing, mount + "/new.sqlite"] {
                    let run = try Self.wells(["load", big, "--db", store, "--quiet"])
                    #expect(run.status == 74)
                    #expect(run.stderr.contains("\(store): the disk is too full for this load"))
            }
            // "nothing was changed", byte for byte: the refusal comes before the first write.
            #expect(try Data(contentsOf: URL(fileURLWithPath: existing)) == bytes)
            #expect(try FileManager.default.contentsOfDirectory(atPath: mount) == ["s.sqlite"])
            #expect(try InterruptedLoadTests.fingerprint(existing) == before)
            }
        }
    }

    @Test func controlCharactersInMessagesAreEscaped() throws {
        let run = try Self.wells(["load", "no\u{1B}]0;owned\u{07}such\u{1B}[2J.csv", "--dry-run"])
        #expect(run.status == 66)
        #expect(!run.stderr.contains("\u{1B}") && !run.stderr.contains("\u{07}"))
        #expect(run.stderr.contains("no\\u{1B}]0;owned\\u{7}such\\u{1B}[2J.csv"))
        let usage = try Self.wells(["load", "x.csv", "--map", "\u{1B}[31mred"])
        #expect(usage.status == 64 && !usage.stderr.contains("\u{1B}"))
    }
}
