import Foundation
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The `wells` executable the tests run: the one built next to the test bundle.
package enum WellsExecutable {
    package static var path: String {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("wells").path
    }
}

/// `wells serve` in a child process, for the tests of both test targets: started with `arguments`
/// (which should hold `--port 0 --exit-with-stdin`), its address read from its standard error,
/// which is read on to its end (the access log would fill the pipe and stop the server) and kept
/// in ``errorOutput``. The server stops when this object goes, with the pipe of its standard input.
/// It is a ``ChildProcess``: it holds none of the descriptors of the commands other tests start meanwhile.
package final class ServedWells: Sendable {
    /// `http://127.0.0.1:PORT/`.
    package let url: String
    private let input: FileHandle
    /// The child process, for its id and exit status.
    package let process: ChildProcess
    /// Standard error so far (its last 4 MB).
    private let errors = Text()

    /// What the server wrote to standard error so far: its start-up lines and the access log.
    package var errorOutput: String { errors.value.withLock { $0 } }

    /// Whether standard error has ended: the server has exited and ``errorOutput`` holds all it wrote.
    package var errorOutputEnded: Bool { errors.ended.withLock { $0 } }

    private final class Text: Sendable {
        let value = Mutex("")
        let ended = Mutex(false)
    }

    package init(arguments: [String]) async throws {
        // Close-on-exec in this process, so that no other child inherits them; the server gets its
        // ends as its standard input and error.
        let inputPipe = try ChildProcess.pipe(), errorPipe = try ChildProcess.pipe()
        let null = open("/dev/null", O_WRONLY | O_CLOEXEC)
        defer {
            close(inputPipe.read)
            close(errorPipe.write)
            close(null)
        }
        let errors = FileHandle(fileDescriptor: errorPipe.read, closeOnDealloc: true)
        input = FileHandle(fileDescriptor: inputPipe.write, closeOnDealloc: true)
        process = try ChildProcess(WellsExecutable.path, arguments, stdin: inputPipe.read, stdout: null, stderr: errorPipe.write)
        let kept = self.errors
        // Read off the cooperative pool: the server may take a while to say where it listens.
        url = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<String, any Error>) in
            DispatchQueue.global().async {
                var started = false
                while true {
                    let chunk = errors.availableData
                    let text = kept.value.withLock { text in
                        text += String(decoding: chunk, as: UTF8.self)
                        if text.utf8.count > 4 << 20 { text = String(text.suffix(2 << 20)) }
                        return text
                    }
                    if !started, chunk.isEmpty || text.contains("(Ctrl-C stops)") {
                        started = true
                        if let range = text.range(of: #"http://[^/\s]+:[0-9]+/"#, options: .regularExpression) {
                            continuation.resume(returning: String(text[range]))
                        } else {
                            continuation.resume(throwing: CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: "wells serve did not start: \(text)"]))
                        }
                    }
                    if chunk.isEmpty {
                        kept.ended.withLock { $0 = true }
                        break
                    }
                }
            }
        }
    }

    deinit { try? input.close() }

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
