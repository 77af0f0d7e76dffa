import CSpatiaLite
import Dispatch
import Glibc
import Synchronization

/// Builds rows on a second thread while the calling thread writes them.
///
/// The writer is the load's bottleneck: SQLite inserts one row at a time on one connection.
/// Building a row (re-splitting the record, parsing numbers and dates, the JSON of the other
/// columns) is done ahead of it, in batches, on the other core; a few batches circulate between
/// the two threads, so memory stays bounded.
///
/// A big file's records are read with `pread` (``MappedFile/read(_:into:)``), and there the
/// builder is the bottleneck instead, half of its time the kernel copying records while SQLite
/// waits (Benchmarks/README.md's "The writer reads ahead for the builder"). So the writer, when
/// its next batch is not built yet, reads the records of batches ahead (``ChunkSources``) rather
/// than wait: whichever thread is free reads them, and the builder only builds.
package enum RowPipeline {
    /// How many batches circulate.
    static let depth = 4
    /// How many records ahead of the one it builds the builder asks for a mapped file's record
    /// (`wk_prefetch`); see Benchmarks/README.md's "The rows' text in one arena".
    static let prefetchDistance = 8

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
        let recordsOf: @Sendable (Int) -> [ScannedRecord] = { [chunks] k in chunks[k].map { records[order($0)] } }
        // The records of a big file's chunks, read by either thread; a chunk's bytes live until its batch is built.
        let sources = builder.reads ? ChunkSources(file: builder.file, chunks: chunks.count, ring: depth + 2) : nil
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group) {
            for (k, rows) in chunks.enumerated() {
                free.wait()
                if stop.flag.load(ordering: .relaxed) { return }
                let batch = batches[k % depth]
                batch.reset(rows: rows)
                let chunk = recordsOf(k)
                if let sources {
                    var bytes = sources.take(k, chunk)
                    for record in chunk {
                        builder.build(record, into: batch, bytes: UnsafeBufferPointer(rebasing: bytes.prefix(record.range.count)))
                        bytes = UnsafeBufferPointer(rebasing: bytes.dropFirst(record.range.count))
                    }
                } else {
                    let file = builder.file.bytes.baseAddress!
                    for (i, record) in chunk.enumerated() {
                        if i + Self.prefetchDistance < chunk.count {
                            // The records are in spatial order, at random places in the file: their
                            // first three cache lines are asked for a few records before they are read.
                            let ahead = chunk[i + Self.prefetchDistance].range
                            for line in stride(from: 0, to: min(ahead.count, 192), by: 64) { wk_prefetch(file + ahead.lowerBound + line) }
                        }
                        builder.build(record, into: batch)
                    }
                }
                ready.signal()
            }
        }
        defer { group.wait() }
        for k in chunks.indices {
            if let sources {
                // Chunk k - 1 is written, so chunks up to k - 1 + the ring's size may be read into it.
                while ready.wait(timeout: .now()) == .timedOut {
                    guard sources.readAhead(before: k + sources.ring, recordsOf) else {
                        ready.wait()
                        break
                    }
                }
            } else {
                ready.wait()
            }
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

/// The records of a big file's chunks of rows, read with `pread` into a ring of buffers by
/// whichever of the pipeline's threads is free: the builder reads the chunk it is about to build
/// unless the writer, waiting for a batch, has read it ahead.
///
/// Chunk `c` is read into buffer `c % ring`, whose previous chunk, `c - ring`, must be built (the
/// writer knows it is once it has written its batch): the builder is never more than
/// ``RowPipeline/depth`` chunks ahead of the writer, and the writer reads ahead only chunks
/// before its next one plus `ring` (``readAhead(before:_:)``).
// @unchecked Sendable: a chunk is claimed by one thread (`next`), which reads it into its buffer and
// publishes it (`done`, released); the builder reads the buffer only after acquiring that.
final class ChunkSources: @unchecked Sendable {
    private final class Buffer {
        /// The chunk whose records the buffer holds, once read (-1 before).
        let done = Atomic<Int>(-1)
        @exclusivity(unchecked) var bytes = UnsafeMutableRawBufferPointer(start: nil, count: 0)
        deinit { bytes.deallocate() }
    }

    let ring: Int
    private let file: MappedFile
    private let chunks: Int
    private let buffers: [Buffer]
    /// The first chunk no thread has claimed to read.
    private let next = Atomic<Int>(0)

    init(file: MappedFile, chunks: Int, ring: Int) {
        precondition(ring > RowPipeline.depth, "the writer reads ahead into buffers the builder is not using")
        self.file = file
        self.chunks = chunks
        self.ring = ring
        buffers = (0..<ring).map { _ in Buffer() }
    }

    /// The bytes of chunk `k`'s records, one after another: read here, or by the writer ahead of the builder.
    func take(_ k: Int, _ records: [ScannedRecord]) -> UnsafeBufferPointer<UInt8> {
        let buffer = buffers[k % ring]
        if next.compareExchange(expected: k, desired: k + 1, ordering: .relaxed).exchanged {
            read(k, records, into: buffer)
        } else {
            // The writer claimed it and is reading it: about a millisecond (1,024 reads) at most.
            while buffer.done.load(ordering: .acquiring) != k { sched_yield() }
        }
        return UnsafeBufferPointer(start: buffer.bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), count: records.reduce(0) { $0 + $1.range.count })
    }

    /// Reads the next unclaimed chunk when it comes before `limit`; false when there is none to read.
    func readAhead(before limit: Int, _ recordsOf: (Int) -> [ScannedRecord]) -> Bool {
        let c = next.load(ordering: .relaxed)
        guard c < min(limit, chunks) else { return false }
        if next.compareExchange(expected: c, desired: c + 1, ordering: .relaxed).exchanged {
            read(c, recordsOf(c), into: buffers[c % ring])
        }
        return true
    }

    private func read(_ c: Int, _ records: [ScannedRecord], into buffer: Buffer) {
        let size = records.reduce(0) { $0 + $1.range.count }
        if size > buffer.bytes.count {
            buffer.bytes.deallocate()
            buffer.bytes = .allocate(byteCount: max(size, 2 * buffer.bytes.count), alignment: 8)
        }
        var offset = 0
        for record in records {
            file.read(record.range, into: buffer.bytes.baseAddress! + offset)
            offset += record.range.count
        }
        buffer.done.store(c, ordering: .releasing)
    }
}

/// A flag one thread raises for others to see: a pipeline's stop, an observation's end.
package final class StopFlag: Sendable {
    package let flag = Atomic<Bool>(false)
    package init() {}
}
