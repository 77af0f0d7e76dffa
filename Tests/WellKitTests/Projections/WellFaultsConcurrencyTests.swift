import Dispatch
import Foundation
import Synchronization
import Testing
@testable import WellKit
import WellsTestSupport

/// `WellFaults` is `Sendable`: many threads may fire faults and prefetch at once.
@Suite struct WellFaultsConcurrencyTests {
    @Test func faultsFiredFromManyThreadsAtOnce() throws {
        var csv = "uwi,name,lat,lon,status\n"
        for k in 0..<200 { csv += "W\(k),Well \(k),\(50 + Double(k) / 1000),\(-114 + Double(k) / 1000),Flowing\n" }
        let store = try Fixtures.makeStore()
        try store.load(csvAt: try Fixtures.file(csv))
        let request = WellFetchRequest(sortDescriptors: [WellSortDescriptor(.identifier)])
        let expected = try store.fetchWells(request)
        for round in 0..<4 {
            let faults = try store.faults(request)
            let failures = Failures()
            DispatchQueue.concurrentPerform(iterations: 16) { worker in
                do {
                    if worker % 4 == round % 4 { try faults.prefetchAll() }
                    for k in stride(from: worker % faults.count, to: faults.count, by: 3) {
                        guard try faults.well(at: k) == expected[k] else { failures.record("well \(k) differs"); return }
                    }
                } catch {
                    failures.record("\(error)")
                }
            }
            #expect(failures.messages.isEmpty, "\(failures.messages.prefix(3))")
            #expect(try (0..<faults.count).map { try faults.well(at: $0) } == expected)
        }
    }
}

/// Failures collected from worker threads.
private final class Failures: Sendable {
    private let stored = Mutex<[String]>([])
    func record(_ message: String) { stored.withLock { $0.append(message) } }
    var messages: [String] { stored.withLock { $0 } }
}
