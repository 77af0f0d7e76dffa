import Foundation
import Testing
import WellKit
import WellKitSynthetic
import WellsTestSupport

/// A server the tests keep running must not hold the pipes of a command another test is running
/// at the moment it starts (``ChildProcess``): CI hung on a `wells` whose standard error a
/// `wells serve`, started in the same instant, had inherited and held open for good.
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
            // Its standard input and error are pipes of its own; none of this process's is among the rest.
            #expect(held.count == 2, "the server holds pipes beyond its standard input and error: \(held)")
            for handle in [other.fileHandleForWriting, other.fileHandleForReading, otherErrors.fileHandleForWriting] {
                #expect(!held.contains(Self.inode(handle.fileDescriptor)), "the server holds another command's pipe")
            }
            _ = try await server.get("conformance")
        }
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
