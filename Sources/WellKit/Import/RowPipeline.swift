import Dispatch
import Synchronization

/// Builds rows on a second thread while the calling thread writes them.
///
/// The writer is the load's bottleneck: SQLite inserts one row at a time on one connection.
/// Building a row (re-splitting the record, parsing numbers and dates, the JSON of the other
/// columns) is done ahead of it, in batches, on the other core; a few batches circulate between
/// the two threads, so memory stays bounded.
package enum RowPipeline {
    /// How many batches circulate.
    static let depth = 4

    /// Builds the rows of `count` records, `records[order(0)]` to `records[order(count - 1)]`, with
    /// `builder`, and hands each batch to `consume`.
    ///
    /// - Throws: what `consume` throws; the builder's thread is stopped and joined first.
    package static func run(_ records: RecordList, count: Int, order: @escaping @Sendable (Int) -> Int, builder: RowBuilder,
                    consume: (RowBatch) throws -> Void) throws {
        let batches = (0..<depth).map { _ in RowBatch() }
        // A producer/consumer hand-off, not a lock: `free` counts empty batches, `ready` built ones; the group joins the builder.
        // `free` starts at 0 and is signalled `depth` times: libdispatch traps when a semaphore is
        // released below the value it was made with, which a consumer that throws leaves behind.
        let free = DispatchSemaphore(value: 0), ready = DispatchSemaphore(value: 0)
        for _ in 0..<depth { free.signal() }
        let stop = StopFlag()
        let chunks = stride(from: 0, to: count, by: RowBatch.capacity).map { $0..<min($0 + RowBatch.capacity, count) }
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group) {
            for (k, rows) in chunks.enumerated() {
                free.wait()
                if stop.flag.load(ordering: .relaxed) { return }
                let batch = batches[k % depth]
                batch.reset(rows: rows)
                let chunk = rows.map { records[order($0)] }
                // A big file's records are read into the batch, which makes room for all of them first.
                if builder.reads { batch.reserveSource(chunk.reduce(0) { $0 + $1.range.count }) }
                for record in chunk { builder.build(record, into: batch) }
                ready.signal()
            }
        }
        defer { group.wait() }
        for k in chunks.indices {
            ready.wait()
            do {
                try consume(batches[k % depth])
            } catch {
                stop.flag.store(true, ordering: .relaxed)
                free.signal()
                throw error
            }
            free.signal()
        }
    }
}

/// A flag one thread raises for others to see: a pipeline's stop, an observation's end.
package final class StopFlag: Sendable {
    package let flag = Atomic<Bool>(false)
    package init() {}
}
