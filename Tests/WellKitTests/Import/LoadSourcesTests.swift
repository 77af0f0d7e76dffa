import Foundation
import Synchronization
import Testing
import WellsTestSupport
@testable import WellKit

/// Loads of what an app holds (a file URL, `Data`, a `FileHandle`, an `AsyncSequence` of bytes)
/// store what the load of the same bytes at a path stores: the same wells, rejects and summary,
/// under the name the caller gives; a bad input changes nothing.
// Not `.blocking`: no test here waits for a child process, and that trait's wait for one of its two
// places counted against the cancelled load's time limit (exceeded twice in CI's whole suite).
@Suite struct LoadSourcesTests {
    /// Colorado's orphaned wells (2,287), with one record of no usable value added at its end.
    static func coloradoWithAReject() throws -> Data {
        var data = try Data(contentsOf: URL(fileURLWithPath: InputKindsTests.colorado))
        let header = String(decoding: data.prefix { $0 != UInt8(ascii: "\n") }, as: UTF8.self)
        let columns = header.split(separator: ",", omittingEmptySubsequences: false).count
        if data.last != UInt8(ascii: "\n") { data.append(UInt8(ascii: "\n")) }
        data.append(Data((Array(repeating: "x", count: columns).joined(separator: ",") + "\n").utf8))
        return data
    }

    /// The load of `data` from a file named `name`: what every other source is compared with.
    static func reference(_ data: Data, name: String = "co.csv") throws -> (WellStore, LoadSummary, [Reject]) {
        let directory = try Fixtures.temporaryDirectory()
        let path = directory.appendingPathComponent(name).path
        try data.write(to: URL(fileURLWithPath: path))
        let store = try Fixtures.makeStore()
        var rejects: [Reject] = []
        let summary = try store.load(csvAt: path) { rejects = Array($0) }
        return (store, summary, rejects)
    }

    static func expectSame(_ store: WellStore, _ summary: LoadSummary, _ rejects: [Reject],
                           as reference: (WellStore, LoadSummary, [Reject]), name: String) throws {
        #expect(summary.file == name)
        #expect(summary.inserted == reference.1.inserted && summary.inserted > 2_000)
        #expect(summary.rejected == reference.1.rejected && summary.rejected == 1)
        #expect(summary.mapping == reference.1.mapping)
        #expect(rejects.map(\.line) == reference.2.map(\.line))
        #expect(rejects.map(\.reason) == reference.2.map(\.reason))
        let differences = try InputKindsTests.differences(reference.0, store)
        #expect(differences.isEmpty, "\(differences.joined(separator: "\n"))")
    }

    @Test func dataLoadsAsItsFileDoes() throws {
        let data = try Self.coloradoWithAReject()
        let reference = try Self.reference(data)
        let store = try Fixtures.makeStore()
        var rejects: [Reject] = []
        let summary = try store.load(data: data, named: "co.csv") { rejects = Array($0) }
        try Self.expectSame(store, summary, rejects, as: reference, name: "co.csv")
        // Loaded again under the same name, the same wells are updated.
        let again = try store.load(data: data, named: "co.csv")
        #expect(again.inserted == 0 && again.updated == summary.inserted)
    }

    @Test func aWorkbookInMemoryLoadsAsItsFileDoes() throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: InputKindsTests.florida))
        let store = try Fixtures.makeStore()
        let summary = try store.load(data: data, named: "fl.xlsx")
        #expect(summary.file == "fl.xlsx")
        #expect(summary.sources.map(\.kind) == ["sheet", "sheet"])
        #expect(try store.fetchCount(WellFetchRequest()) == 32)
    }

    @Test func aFileURLLoadsItsPathAndOtherURLsAreRefused() throws {
        let data = try Self.coloradoWithAReject()
        let reference = try Self.reference(data)
        let directory = try Fixtures.temporaryDirectory()
        let url = directory.appendingPathComponent("co.csv")
        try data.write(to: url)
        let store = try Fixtures.makeStore()
        var rejects: [Reject] = []
        let summary = try store.load(contentsOf: url) { rejects = Array($0) }
        try Self.expectSame(store, summary, rejects, as: reference, name: url.path)
        let error = #expect(throws: ImportError.self) { try store.load(contentsOf: URL(string: "https://example.com/wells.csv")!) }
        #expect(error?.code == .cannotOpen)
        #expect(error?.file == "https://example.com/wells.csv")
    }

    @Test func aPipesHandleLoadsAsItsFileDoes() throws {
        let data = try Self.coloradoWithAReject()
        let reference = try Self.reference(data)
        let pipe = Pipe()
        let writer = Thread {
            try? pipe.fileHandleForWriting.write(contentsOf: data)
            try? pipe.fileHandleForWriting.close()
        }
        writer.start()
        let store = try Fixtures.makeStore()
        var rejects: [Reject] = []
        let summary = try store.load(from: pipe.fileHandleForReading, named: "co.csv") { rejects = Array($0) }
        try Self.expectSame(store, summary, rejects, as: reference, name: "co.csv")
    }

    @Test func bytesArrivingLoadAsTheirFileDoes() async throws {
        let data = try Self.coloradoWithAReject()
        let reference = try Self.reference(data)
        // Bytes in uneven pieces, as a socket delivers them.
        let bytes = AsyncStream<UInt8> { continuation in
            Task {
                var offset = 0
                while offset < data.count {
                    let end = min(data.count, offset + 1 + offset % 7_919)
                    for byte in data[offset..<end] { continuation.yield(byte) }
                    offset = end
                    await Task.yield()
                }
                continuation.finish()
            }
        }
        let store = try Fixtures.makeStore()
        let collected = Mutex<[Reject]>([])
        let summary = try await store.load(bytes: bytes, named: "co.csv") { list in collected.withLock { $0 = Array(list) } }
        try Self.expectSame(store, summary, collected.withLock { $0 }, as: reference, name: "co.csv")
    }

    /// Bytes that stop coming: the header, then a wait as long as an hour (a server that stalls),
    /// which the task's cancellation ends. `waiting` is told when the wait begins.
    struct StalledBytes: AsyncSequence, Sendable {
        typealias Element = UInt8
        let header = Array("uwi,name,latitude,longitude\n".utf8)
        let waiting: AsyncStream<Void>.Continuation

        struct AsyncIterator: AsyncIteratorProtocol {
            let source: StalledBytes
            var offset = 0
            mutating func next() async throws -> UInt8? {
                if offset < source.header.count {
                    offset += 1
                    return source.header[offset - 1]
                }
                source.waiting.yield()
                try await Task.sleep(for: .seconds(3_600))
                return nil
            }
        }

        func makeAsyncIterator() -> AsyncIterator { AsyncIterator(source: self) }
    }

    /// A task cancelled while its bytes arrive loads nothing.
    ///
    /// The load's task runs off Swift's cooperative pool (``BlockingExecutor``), so that other tests'
    /// synchronous work on that pool's threads cannot keep it from starting.
    @Test(.timeLimit(.minutes(5))) func cancellingWhileBytesArriveLoadsNothing() async throws {
        let store = try Fixtures.makeStore()
        let (waiting, signal) = AsyncStream.makeStream(of: Void.self)
        let load = Task(executorPreference: BlockingExecutor.shared) {
            try await store.load(bytes: StalledBytes(waiting: signal), named: "stalled.csv")
        }
        var started = waiting.makeAsyncIterator()
        await started.next()  // the load has read the header and waits for more
        load.cancel()
        await #expect(throws: CancellationError.self) { try await load.value }
        #expect(try store.fetchCount(WellFetchRequest()) == 0)
    }

    /// A bad input names the caller's name, never the temporary copy, and leaves the store as it was.
    @Test func badBytesNameTheInputAndChangeNothing() async throws {
        let store = try Fixtures.makeStore()
        _ = try store.load(data: Data("uwi,name,latitude,longitude\nW1,One,51.05,-114.07\n".utf8), named: "first.csv")
        let noCoordinates = Data("uwi,name,depth\nW2,Two,1200\n".utf8)
        let error = #expect(throws: ImportError.self) { try store.load(data: noCoordinates, named: "second.csv") }
        #expect(error?.file == "second.csv")
        #expect(error?.code == .noCoordinateColumns)
        let streamed = await #expect(throws: ImportError.self) {
            try await store.load(bytes: AsyncStream<UInt8> { c in noCoordinates.forEach { c.yield($0) }; c.finish() }, named: "third.csv")
        }
        #expect(streamed?.file == "third.csv")
        // Past the copy's limit: refused, named, nothing loaded.
        var options = LoadOptions()
        options.spoolLimit = 1 << 20
        let big = try Self.coloradoWithAReject() + Data(repeating: UInt8(ascii: "\n"), count: 1 << 20)
        let tooLarge = #expect(throws: ImportError.self) { try store.load(data: big, named: "big.csv", options: options) }
        #expect(tooLarge?.code == .tooLarge)
        #expect(tooLarge?.file == "big.csv")
        #expect(try store.fetchWells(WellFetchRequest()).map(\.detail.identifier) == ["W1"])
    }
}
