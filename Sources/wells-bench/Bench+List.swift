import ArgumentParser
import Foundation
import Glibc
import WellKit
import WellKitSynthetic
import WellsCLI

extension Bench {
    struct ListCost: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "Measure the batched results controller against an eager fetch of the same request, as JSON.",
            discussion: """
                Times performFetch (median of 5), object(at:) on 200 batches not loaded, and fetchWells for \
                every well, with the heap and resident growth of each. --no-eager leaves fetchWells out: it holds \
                every well as a full object, about 1 KB each, which on national lists is gigabytes.

                Example:
                  wells-bench list --db wells.sqlite --sort detail.spud_date:desc --section status
                """)

        @OptionGroup var query: QueryOptions
        @OptionGroup var store: StoreOptions

        @Option(help: ArgumentHelp("Group wells into sections by this field, such as status.", valueName: "field"))
        var section: String?

        @Option(name: .customLong("batch-size"), help: "The number of wells per loaded batch, from 1 to 100,000.")
        var batchSize = 20

        @Flag(name: .customLong("no-eager"), help: "Leave out the eager fetchWells comparison, which holds every well in memory.")
        var noEager = false

        func validate() throws {
            try CountLimits.check("--batch-size", batchSize, in: 1...100_000)
        }

        func run() async throws {
            let opened = try store.open(.existing)
            var request = try query.request()
            if request.sortDescriptors.isEmpty { request.sortDescriptors = [WellSortDescriptor(.id)] }
            let sectionKey = try section.map { try WellField(keyPath: $0) }
            print(try ListMeasurement.run(store: opened, request: request, sectionKey: sectionKey, batchSize: batchSize, eager: !noEager))
        }
    }
}

/// `wells-bench list`: BatchedResults against an eager fetch of the same request, as JSON.
///
/// For example:
///
/// ```sh
/// wells-bench list --db /tmp/frc.sqlite --sort detail.spud_date:desc --section status
/// ```
///
/// It reports the median of 5 `performFetch()` runs, the median time of 200 `object(at:)`
/// calls on rows of 200 distinct batches not loaded (each must run exactly one query), the id
/// storage (array capacities, bytes per well), the heap (`mallinfo2`) and resident
/// (`/proc/self/statm`) growth of a second controller's fetch once connections and caches are
/// warm, and then, in the same process, the time and
/// memory of `fetchWells(request)` for every well: an eager fetch's first row comes after the last.
enum ListMeasurement {
    static func run(store: WellStore, request: WellFetchRequest, sectionKey: WellField?, batchSize: Int, eager measureEager: Bool = true) throws -> String {
        let results = try BatchedResults<Well>(store: store, request: request, batchSize: batchSize, sectionKey: sectionKey)
        var fetchTimes: [Double] = [], fetchCPU: [Double] = []
        for _ in 0..<5 {
            let cpu = threadCPUSeconds()
            fetchTimes.append(try seconds { try results.performFetch() })
            fetchCPU.append(threadCPUSeconds() - cpu)
        }
        // A second controller, once the reader connection, the data_version connection and SQLite's
        // page cache are warm: its growth is its id storage.
        let heap0 = MemoryProbe.heapBytesInUse, rss0 = residentBytes()
        let second = try BatchedResults<Well>(store: store, request: request, batchSize: batchSize, sectionKey: sectionKey)
        try second.performFetch()
        let fetchGrowth = (heap: MemoryProbe.heapBytesInUse - heap0, rss: residentBytes() - rss0)
        let snapshot = results.snapshot!
        let count = snapshot.ids.count
        let batches = (count + batchSize - 1) / batchSize
        var random = SystemRandomNumberGenerator()
        let batchIndices = Array(0..<batches).shuffled(using: &random).prefix(200)  // distinct batches, none loaded
        var rowTimes: [Double] = []
        var extraQueries = 0
        for batch in batchIndices {
            let offset = min(count - 1, batch * batchSize + Int.random(in: 0..<batchSize, using: &random))
            let path = snapshot.indexPath(ofOffset: offset)
            let before = results.statementsExecuted
            rowTimes.append(try seconds { _ = try results.object(at: path) })
            extraQueries += results.statementsExecuted - before - 1
        }
        let idBytes = results.idStorageBytes
        let cachedRows = results.cachedBatchCount * batchSize

        let heap1 = MemoryProbe.heapBytesInUse, rss1 = residentBytes()
        var wells: [Well] = []
        let eager = measureEager ? try seconds { wells = try store.fetchWells(request) } : 0
        let eagerHeap = MemoryProbe.heapBytesInUse - heap1, eagerRSS = residentBytes() - rss1
        let eagerCount = wells.count
        wells = []

        func ms(_ s: Double) -> String { String(format: "%.3f", s * 1000) }
        func perWell(_ bytes: Int) -> String { String(format: "%.2f", Double(bytes) / Double(max(1, count))) }
        return """
            {"wells":\(count),"sections":\(snapshot.sections.count),"sort":"\(request.sortDescriptors.map { "\($0.field.name):\($0.ascending ? "asc" : "desc")" }.joined(separator: ","))",\
            "sectionKey":\(sectionKey.map { "\"\($0.rawValue)\"" } ?? "null"),"batchSize":\(batchSize),
             "performFetchMedianMs":\(ms(Statistics.median(fetchTimes))),"performFetchRunsMs":[\(fetchTimes.map(ms).joined(separator: ","))],
             "performFetchCPUMedianMs":\(ms(Statistics.median(fetchCPU))),
             "unloadedRowMedianMs":\(ms(Statistics.median(rowTimes))),"unloadedRowP99Ms":\(ms(Statistics.percentile(rowTimes, 0.99))),"unloadedRowSamples":\(rowTimes.count),"unexpectedQueries":\(extraQueries),
             "idStorageBytes":\(idBytes),"idStorageBytesPerWell":\(perWell(idBytes)),"cachedBatchRows":\(cachedRows),
             "fetchHeapDeltaBytes":\(fetchGrowth.heap),"fetchHeapBytesPerWell":\(perWell(fetchGrowth.heap)),
             "fetchRSSDeltaBytes":\(fetchGrowth.rss),"fetchRSSBytesPerWell":\(perWell(fetchGrowth.rss)),
             "eagerWells":\(eagerCount),"eagerTimeToFirstRowMs":\(ms(eager)),
             "eagerHeapDeltaBytes":\(eagerHeap),"eagerHeapBytesPerWell":\(perWell(eagerHeap)),
             "eagerRSSDeltaBytes":\(eagerRSS),"eagerRSSBytesPerWell":\(perWell(eagerRSS))}
            """
    }

    static func seconds(_ body: () throws -> Void) rethrows -> Double {
        let start = ContinuousClock.now
        try body()
        return (ContinuousClock.now - start).seconds
    }

    /// CPU time of the calling thread, which runs the query: unlike wall time, other processes do not inflate it.
    static func threadCPUSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) * 1e-9
    }

    /// Resident bytes from the second field of `/proc/self/statm`, in pages.
    static func residentBytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        return fields.count > 1 ? (Int(fields[1]) ?? 0) * sysconf(Int32(_SC_PAGESIZE)) : 0
    }
}
