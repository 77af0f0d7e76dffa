import Foundation
import Glibc

/// The rejected records of a load, in line order: counted as they are found and kept in a
/// temporary file, not in memory.
///
/// A file of ten million bad rows (`,,,` on every line) made ten million ``Reject`` values of
/// some 220 bytes each, 2.2 GB for a 39 MB input. Here a reject costs memory only until the next
/// 64 KiB of them is written out: the list holds its count, the count of each kind, and the
/// names of the columns and the first 65,536 distinct reasons, which the records refer to by
/// number (the same reason is written on every row of such a file). The records are read back,
/// in order, each time the list is iterated: into the store's `rejects` table, a `--rejects`
/// file, or a summary.
///
/// Rejects added after the file was read (duplicates, suspects) are written out the same way, in
/// runs of rising line numbers, and merged in by line when the list is read: ten million copies of
/// one identifier cost no more memory than ten million bad rows.
///
/// For example:
///
/// ```swift
/// let summary = try store.load(csvAt: "wells.csv", rejects: { rejects in
///     for reject in rejects.prefix(10) { print(reject.line, reject.reason) }
/// })
/// ```
public struct RejectList: Sequence, Sendable {
    private var storage = Storage()
    /// Rejects added after the file was read: runs, each in line order, merged by line when the list is read.
    private var later: [Storage] = []
    /// Applied to each reject as it is read (a container's rows named by their sheet or member).
    private var relabel: (@Sendable (inout Reject) -> Void)?

    /// Every reject, written out and in memory.
    public var count: Int { later.reduce(storage.count) { $0 + $1.count } }
    public var isEmpty: Bool { count == 0 }
    /// How many rejects of each kind: what ``LoadSummary/rejectReasons`` counts, without reading the list.
    package var kinds: [RejectKind: Int] {
        var kinds = storage.kinds
        for run in later { kinds.merge(run.kinds, uniquingKeysWith: +) }
        return kinds
    }

    package init() {}

    /// The runs read in merging: the file's, and each run of rejects added later.
    package var runCount: Int { 1 + later.count }

    /// Adds a reject of the file as it is read: in line order, after every reject added so far this way.
    package mutating func append(_ reject: Reject) {
        unique()
        storage.append(reject)
    }

    /// Adds a reject found after the file was read, in any order; in line order (as each caller
    /// finds them) they make one run, written out as they come.
    package mutating func appendLater(_ reject: Reject) {
        // A run another list shares, or one this reject would put out of order, is left as it is.
        // (Asked before any other reference to the run is taken: a `let` of it would be a second one.)
        if !later.isEmpty, isKnownUniquelyReferenced(&later[later.count - 1]), later[later.count - 1].lastLine <= reject.line {
            later[later.count - 1].append(reject)
        } else {
            let run = Storage()
            run.append(reject)
            later.append(run)
        }
    }

    /// Adds the rejects of `other` (read after this list's part of the file) from line `fromLine` on.
    package mutating func append(contentsOf other: RejectList, fromLine: Int) {
        unique()
        for reject in other where reject.line >= fromLine { storage.append(reject) }
    }

    /// Has each reject pass through `change` as it is read (after any change given before).
    package mutating func relabel(_ change: @escaping @Sendable (inout Reject) -> Void) {
        let previous = relabel
        relabel = { reject in
            previous?(&reject)
            change(&reject)
        }
    }

    /// A copy of the storage before a change, if another list shares it.
    private mutating func unique() {
        guard !isKnownUniquelyReferenced(&storage) else { return }
        let copy = Storage()
        for reject in storage { copy.append(reject) }
        storage = copy
    }

    public func makeIterator() -> Iterator {
        Iterator(runs: [storage.makeIterator()] + later.map { $0.makeIterator() }, relabel: relabel)
    }

    /// The rejects in line order: those written as the file was read and the later runs, merged by line.
    public struct Iterator: IteratorProtocol {
        var runs: [Storage.Reader]
        /// The next reject of each run (nil once it is read to its end).
        var heads: [Reject?] = []
        let relabel: (@Sendable (inout Reject) -> Void)?

        init(runs: [Storage.Reader], relabel: (@Sendable (inout Reject) -> Void)?) {
            self.runs = runs
            self.relabel = relabel
        }

        public mutating func next() -> Reject? {
            if heads.isEmpty { heads = runs.indices.map { runs[$0].next() } }
            // Few runs (the file's, duplicates', suspects'): the smallest line by a scan. Ties go to the earlier run.
            var best: Int?
            for index in heads.indices {
                guard let head = heads[index] else { continue }
                if best.map({ head.line < heads[$0]!.line }) ?? true { best = index }
            }
            guard let best, var reject = heads[best] else { return nil }
            heads[best] = runs[best].next()
            relabel?(&reject)
            return reject
        }
    }
}

extension RejectList: Equatable {
    /// The same rejects in the same order (reads both lists).
    public static func == (lhs: RejectList, rhs: RejectList) -> Bool {
        lhs.count == rhs.count && lhs.elementsEqual(rhs)
    }
}

extension RejectList {
    /// The temporary file of the rejects written out, and the names their records refer to.
    final class Storage: Sequence, @unchecked Sendable {
        private(set) var count = 0
        /// The line of the last reject appended.
        private(set) var lastLine = Int.min
        private(set) var kinds: [RejectKind: Int] = [:]
        private var columns: [String] = [], columnCodes: [String: UInt16] = [:]
        private var reasons: [String] = [], reasonCodes: [String: UInt32] = [:]
        private var buffer: [UInt8] = []
        private var descriptor: Int32 = -1
        private var path: String?
        /// Bytes in the file.
        private var written = 0
        /// The first write error; the list then reads as it was up to it.
        private var failure: Int32 = 0

        static let maximumReasons = 1 << 16
        static let inline32 = UInt32.max
        static let inline16 = UInt16.max
        private static let kindsByIndex = RejectKind.allCases
        private static let indexOfKind = Dictionary(uniqueKeysWithValues: RejectKind.allCases.enumerated().map { ($1, UInt8($0)) })

        deinit {
            if descriptor >= 0 { close(descriptor) }
            if let path {
                unlink(path)
                TemporaryFiles.untrack(path)
            }
        }

        func append(_ reject: Reject) {
            count += 1
            lastLine = reject.line
            kinds[reject.kind, default: 0] += 1
            var line = Int64(reject.line)
            withUnsafeBytes(of: &line) { buffer.append(contentsOf: $0) }
            buffer.append(Self.indexOfKind[reject.kind]!)
            if let column = reject.column {
                if let code = columnCodes[column] {
                    put(code)
                } else if columns.count < Int(Self.inline16) - 1 {
                    columns.append(column)
                    columnCodes[column] = UInt16(columns.count)
                    put(UInt16(columns.count))
                } else {
                    put(Self.inline16)
                    putText(column)
                }
            } else {
                put(UInt16(0))
            }
            if let code = reasonCodes[reject.reason] {
                put(code)
            } else if reasons.count < Self.maximumReasons {
                reasonCodes[reject.reason] = UInt32(reasons.count)
                put(UInt32(reasons.count))
                reasons.append(reject.reason)
            } else {
                put(Self.inline32)
                putText(reject.reason)
            }
            putText(reject.raw)
            if buffer.count >= 1 << 16 { flush() }
        }

        private func put<T: FixedWidthInteger>(_ value: T) {
            var value = value
            withUnsafeBytes(of: &value) { buffer.append(contentsOf: $0) }
        }

        private func putText(_ text: String) {
            var text = text
            text.withUTF8 { bytes in
                put(UInt32(bytes.count))
                buffer.append(contentsOf: bytes)
            }
        }

        /// Writes the buffer to the file, made on the first flush in the temporary folder.
        func flush() {
            guard !buffer.isEmpty, failure == 0 else { return }
            if descriptor < 0 {
                let name = FileManager.default.temporaryDirectory.appendingPathComponent("wells-rejects-\(UUID().uuidString)").path
                descriptor = open(name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
                guard descriptor >= 0 else {
                    failure = errno
                    return
                }
                path = name
                TemporaryFiles.track(name)
            }
            var done = 0
            while done < buffer.count {
                let n = buffer.withUnsafeBytes { pwrite(descriptor, $0.baseAddress! + done, $0.count - done, off_t(written + done)) }
                if n < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    return
                }
                done += n
            }
            written += done
            buffer.removeAll(keepingCapacity: true)
        }

        func makeIterator() -> Reader {
            flush()
            return Reader(storage: self, end: written, tail: failure == 0 ? [] : buffer)
        }

        /// Reads the records back, 64 KiB of the file at a time.
        struct Reader: IteratorProtocol {
            let storage: Storage
            let end: Int
            /// What the file could not take (a full disk), read after it.
            let tail: [UInt8]
            var chunk: [UInt8] = []
            var position = 0
            var offset = 0
            var readTail = false

            init(storage: Storage, end: Int, tail: [UInt8]) {
                self.storage = storage
                self.end = end
                self.tail = tail
            }

            /// Makes sure `count` bytes from `position` are in `chunk`; false at the end.
            private mutating func need(_ count: Int) -> Bool {
                if chunk.count - position >= count { return true }
                chunk.removeSubrange(0..<position)
                position = 0
                while chunk.count < count {
                    if offset < end {
                        let want = Swift.min(end - offset, Swift.max(1 << 16, count - chunk.count))
                        let old = chunk.count
                        chunk.append(contentsOf: repeatElement(0, count: want))
                        let n = chunk.withUnsafeMutableBytes { pread(storage.descriptor, $0.baseAddress! + old, want, off_t(offset)) }
                        guard n > 0 else {
                            chunk.removeSubrange((old + Swift.max(n, 0))...)
                            return false
                        }
                        chunk.removeSubrange((old + n)...)
                        offset += n
                    } else if !readTail {
                        readTail = true
                        chunk.append(contentsOf: tail)
                    } else {
                        return false
                    }
                }
                return true
            }

            private mutating func take<T: FixedWidthInteger>(_: T.Type) -> T {
                var value = T.zero
                withUnsafeMutableBytes(of: &value) { target in
                    chunk.withUnsafeBytes { target.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[position..<(position + MemoryLayout<T>.size)])) }
                }
                position += MemoryLayout<T>.size
                return value
            }

            private mutating func text() -> String? {
                guard need(4) else { return nil }
                let length = Int(take(UInt32.self))
                guard need(length) else { return nil }
                defer { position += length }
                return chunk.withUnsafeBufferPointer { String(decoding: UnsafeBufferPointer(rebasing: $0[position..<(position + length)]), as: UTF8.self) }
            }

            mutating func next() -> Reject? {
                guard need(8 + 1 + 2) else { return nil }
                let line = Int(take(Int64.self))
                let kind = Storage.kindsByIndex[Int(take(UInt8.self))]
                let column: String?
                switch take(UInt16.self) {
                case 0: column = nil
                case Storage.inline16: guard let text = text() else { return nil }; column = text
                case let code: column = storage.columns[Int(code) - 1]
                }
                guard need(4) else { return nil }
                let reason: String
                switch take(UInt32.self) {
                case Storage.inline32: guard let text = text() else { return nil }; reason = text
                case let code: reason = storage.reasons[Int(code)]
                }
                guard let raw = text() else { return nil }
                return Reject(line: line, column: column, kind: kind, reason: reason, raw: raw)
            }
        }
    }
}
