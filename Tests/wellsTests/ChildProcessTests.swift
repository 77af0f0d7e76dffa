import Foundation
import Testing
import WellKit
import WellKitSynthetic
import WellsTestSupport

/// The one runner of the tests and wells-bench (``Command``, on swift-subprocess). A server the
/// tests keep must not hold the pipes of a command another test is running at the moment it starts:
/// CI hung on a `wells` whose standard error a `wells serve`, started in the same instant, had
/// inherited and held open for good. So a child holds none of this process's descriptors but its
/// three, starts with no signal blocked or ignored, and a child that writes a lot never stalls.
@Suite struct ChildProcessTests {
    /// The pipes of this process open when a server starts (a command's, as another test's would
    /// be) are none of the server's descriptors, which are its three and its own.
    @Test func aServerHoldsNoDescriptorOfThisProcessButItsThree() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("wells-child-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        do {
            let csv = directory.appendingPathComponent("wells.csv").path, store = directory.appendingPathComponent("wells.sqlite").path
            try WellGenerator(count: 100, seed: 3).write(toFileAt: csv)
            _ = try WellStore(path: store).load(csvAt: csv)
            // Another test's command, mid-run: its output pipes stay open in this process meanwhile.
            let other = Pipe(), otherErrors = Pipe()
            let before = Self.pipes(of: getpid())
            #expect(before.contains(Self.inode(other.fileHandleForWriting.fileDescriptor)), "the test's own pipe is open here")
            let server = try await ServedWells(arguments: ["serve", "--db", store, "--port", "0", "--exit-with-stdin"])
            let held = Self.pipes(of: server.process.processIdentifier)
            // Its standard input, output and error are pipes of its own; none of this process's is among the rest.
            #expect(held.count == 3, "the server holds pipes beyond its standard input, output and error: \(held)")
            for handle in [other.fileHandleForWriting, other.fileHandleForReading, otherErrors.fileHandleForWriting] {
                #expect(!held.contains(Self.inode(handle.fileDescriptor)), "the server holds another command's pipe")
            }
            _ = try await server.get("conformance")
        }
    }

    /// A command run to its end holds no descriptor of this process either: its own list of them
    /// (`ls -l /proc/self/fd`) shows its three, and the folder ls opened to list them.
    @Test func aCommandHoldsOnlyItsThreeDescriptors() async throws {
        let other = Pipe()
        let run = try await Command("/bin/ls", ["-l", "/proc/self/fd"]).run()
        #expect(run.exitedWithZero, "\(run.err)")
        let descriptors = run.out.split(separator: "\n").compactMap { line in
            line.range(of: " -> ").flatMap { Int(line[..<$0.lowerBound].split(separator: " ").last ?? "") }
        }
        #expect(Set(descriptors).isSubset(of: [0, 1, 2, 3]) && descriptors.count == 4, "\(run.out)")
        for handle in [other.fileHandleForWriting, other.fileHandleForReading] {
            #expect(!run.out.contains(Self.inode(handle.fileDescriptor)), "the child holds this process's pipe: \(run.out)")
        }
    }

    /// A child starts with no signal blocked and every handler at its default, though this process
    /// ignores SIGPIPE: `SigBlk` and `SigIgn` of its `/proc/self/status` hold none of signals 1 to 31
    /// (glibc keeps 32 and 33, its own, out of any program's reach).
    @Test func aCommandStartsWithNoSignalBlockedOrIgnored() async throws {
        signal(SIGPIPE, SIG_IGN)
        let status = try await Command("/bin/cat", ["/proc/self/status"]).run().out
        for field in ["SigBlk:", "SigIgn:"] {
            let line = status.split(separator: "\n").first { $0.hasPrefix(field) }
            let mask = line.flatMap { UInt64($0.dropFirst(field.count).trimmingCharacters(in: .whitespaces), radix: 16) }
            #expect(mask.map { $0 & 0x7fff_ffff } == 0, "\(line ?? "")")
        }
    }

    /// A child that fills standard error far past a pipe's 64 KiB before it writes standard output
    /// ends: both are read at once.
    @Test func aChattyCommandDoesNotStall() async throws {
        let run = try await Command("/bin/sh", ["-c", "head -c 1000000 /dev/zero >&2; echo done"], timeout: .seconds(60)).run()
        #expect(run.exitedWithZero && run.out == "done\n" && run.stderr.count == 1_000_000, "\(run.status) \(run.out)")
    }

    /// Standard input, environment and working directory reach the child.
    @Test func inputEnvironmentAndWorkingDirectoryReachTheCommand() async throws {
        let run = try await Command("/bin/sh", ["-c", "cat; echo \"$WELLS_RUNNER_TEST\"; pwd"], environment: ["WELLS_RUNNER_TEST": "set"],
                                    workingDirectory: "/tmp", input: .data(Data("in\n".utf8))).run()
        #expect(run.out == "in\nset\n/tmp\n", "\(run.out) \(run.err)")
    }

    /// A started child keeps its input open until it is closed; signalled, it reports the signal; a
    /// command past its timeout is sent SIGTERM.
    @Test func aStartedCommandIsKeptSignalledAndWaitedFor() async throws {
        let cat = try Command("/bin/cat", input: .keptOpen).start()
        #expect(cat.isRunning)
        cat.closeInput()
        #expect(try await cat.wait().exitedWithZero)
        let sleeper = try Command("/bin/sleep", ["60"]).start()
        #expect(sleeper.send(SIGTERM))
        let ended = try await sleeper.wait()
        #expect(ended.signal == SIGTERM && ended.status == 128 + SIGTERM && !sleeper.isRunning)
        let late = try await Command("/bin/sleep", ["60"], timeout: .milliseconds(200)).run()
        #expect(late.signal == SIGTERM)
    }

    /// A synchronous wait on a thread of Swift's cooperative pool is refused (swift-subprocess needs
    /// a thread of that pool to finish the run); off the pool, it runs.
    @Test func aSynchronousWaitIsRefusedOnTheCooperativePool() async throws {
        #expect(throws: CommandError.self) { try Command("/bin/true").runWaiting() }
        #expect(try await offThePool { try Command("/bin/true").runWaiting() }.exitedWithZero)
    }

    /// The pipes (`pipe:[INODE]`) among the open descriptors of process `pid`.
    static func pipes(of pid: pid_t) -> Set<String> {
        let directory = "/proc/\(pid)/fd"
        let links = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return Set(links.compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: "\(directory)/\($0)") }.filter { $0.hasPrefix("pipe:") })
    }

    static func inode(_ descriptor: Int32) -> String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(descriptor)")) ?? ""
    }
}
