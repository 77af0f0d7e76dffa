import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The `wells` executable the tests run: the one built next to the test bundle, or
/// `$WELLS_UNDER_TEST` (to show that a test fails on another build, such as a release of the base commit).
package enum WellsExecutable {
    package static var path: String {
        ProcessInfo.processInfo.environment["WELLS_UNDER_TEST"]
            ?? URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("wells").path
    }
}

/// `wells serve` in a child process, for the tests of both test targets: started with `arguments`
/// (which should hold `--port 0 --exit-with-stdin`), its address read from its standard error,
/// which is read on to its end (the access log would fill the pipe and stop the server) and kept
/// in ``errorOutput``. The server stops when this object goes, with the pipe of its standard input.
/// It is a ``RunningCommand``: it holds none of the descriptors of the commands other tests start meanwhile.
package final class ServedWells: Sendable {
    /// `http://127.0.0.1:PORT/`.
    package let url: String
    /// The child process, for its id and exit status.
    package let process: RunningCommand

    /// What the server wrote to standard error so far (its last 4 MB): its start-up lines and the access log.
    package var errorOutput: String { process.errorOutput }

    /// All the server wrote to standard error, once it has ended (the server has exited).
    package func errorOutputAtEnd() async -> String { await process.errorOutput(containing: "\u{0}") }

    package init(arguments: [String]) async throws {
        process = try Command(WellsExecutable.path, arguments, input: .keptOpen).start(keepingErrors: 4 << 20)
        // The server may take a while to say where it listens; its output ending means it stopped.
        let text = await process.errorOutput(containing: "(Ctrl-C stops)")
        guard let range = text.range(of: #"http://[^/\s]+:[0-9]+/"#, options: .regularExpression) else {
            throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: "wells serve did not start: \(text)"])
        }
        url = String(text[range])
    }

    deinit { process.closeInput() }

    /// GET `path` (relative to ``url``), uncached: the status and the body. Throws when no answer
    /// comes within `timeout` seconds, so that a test of a server that hangs ends.
    package func get(_ path: String, timeout: TimeInterval = 60, session: URLSession = .shared) async throws -> (status: Int, body: Data) {
        var request = URLRequest(url: URL(string: url + path)!)
        request.cachePolicy = .reloadIgnoringLocalAndRemoteCacheData
        request.timeoutInterval = timeout
        let (data, response) = try await session.data(for: request)
        return ((response as! HTTPURLResponse).statusCode, data)
    }

    /// A session that opens up to 64 connections to one server (the shared one queues past a few),
    /// for requests that must be in flight together.
    package static let parallel: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = 64
        configuration.timeoutIntervalForRequest = 180
        return URLSession(configuration: configuration)
    }()
}
