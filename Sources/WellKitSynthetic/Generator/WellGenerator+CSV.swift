extension WellGenerator {
    // MARK: - ASCII

    /// Byte values used while writing CSV.
    enum ASCII {
        static let comma = UInt8(ascii: ",")
        static let quote = UInt8(ascii: "\"")
        static let newline = UInt8(ascii: "\n")
        static let carriageReturn = UInt8(ascii: "\r")
        static let minus = UInt8(ascii: "-")
        static let dot = UInt8(ascii: ".")
        static let space = UInt8(ascii: " ")
        static let zero = UInt8(ascii: "0")
    }

    // MARK: - CSVOutput

    /// The pending output chunk: CSV records written in place, field by field, with RFC 4180 quoting.
    ///
    /// Noncopyable and backed by its own allocation, so appends are plain pointer stores. The
    /// fields of the record being written can be read back (``currentFields()``) and the record
    /// discarded, which is how dirty mode rewrites a row.
    struct CSVOutput: ~Copyable {
        private var base: UnsafeMutablePointer<UInt8>
        private var capacity: Int
        /// Bytes written and not yet flushed.
        private(set) var count = 0
        private var recordStart = 0
        private var recordEnd = 0
        private var fieldStarts: [Int] = []

        init(capacity: Int) {
            self.capacity = max(capacity, 64)
            base = .allocate(capacity: self.capacity)
            fieldStarts.reserveCapacity(32)
        }

        deinit { base.deallocate() }

        /// Makes room for `extra` more bytes.
        @inline(__always)
        mutating func reserve(_ extra: Int) {
            guard count + extra > capacity else { return }
            var newCapacity = capacity * 2
            while count + extra > newCapacity { newCapacity *= 2 }
            let newBase = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
            newBase.update(from: base, count: count)
            base.deallocate()
            base = newBase
            capacity = newCapacity
        }

        /// Appends one byte.
        @inline(__always)
        mutating func append(byte: UInt8) {
            reserve(1)
            base[count] = byte
            count += 1
        }

        /// Appends bytes verbatim (also for deliberately malformed records).
        mutating func appendRaw<C: Collection>(_ bytes: C) where C.Element == UInt8 {
            reserve(bytes.count)
            let done: Void? = bytes.withContiguousStorageIfAvailable { buffer in
                if let source = buffer.baseAddress { (base + count).update(from: source, count: buffer.count) }
            }
            if done == nil {
                var index = count
                for byte in bytes {
                    base[index] = byte
                    index += 1
                }
            }
            count += bytes.count
        }

        /// Starts a record.
        mutating func beginRecord() {
            recordStart = count
            fieldStarts.removeAll(keepingCapacity: true)
        }

        /// Starts a field of the current record, writing the separating comma.
        @inline(__always)
        mutating func beginField() {
            if !fieldStarts.isEmpty { append(byte: ASCII.comma) }
            fieldStarts.append(count)
        }

        /// Ends the current record with LF.
        mutating func endRecord() {
            recordEnd = count
            append(byte: ASCII.newline)
        }

        /// Writes `value` as a whole field, quoted and with doubled quotes only when needed.
        mutating func appendField(_ value: [UInt8]) {
            value.withUnsafeBufferPointer { appendField($0) }
        }

        /// Writes `value` as a whole field, quoted and with doubled quotes only when needed.
        mutating func appendField(_ value: UnsafeBufferPointer<UInt8>) {
            beginField()
            var plain = true
            for byte in value where byte <= ASCII.comma { // ',' '"' CR LF all sort at or below ','
                if byte == ASCII.comma || byte == ASCII.quote || byte == ASCII.newline || byte == ASCII.carriageReturn {
                    plain = false
                    break
                }
            }
            reserve(2 * value.count + 2)
            guard !plain else {
                if let source = value.baseAddress { (base + count).update(from: source, count: value.count) }
                count += value.count
                return
            }
            var p = base + count
            p.pointee = ASCII.quote
            p += 1
            for byte in value {
                p.pointee = byte
                p += 1
                if byte == ASCII.quote {
                    p.pointee = ASCII.quote
                    p += 1
                }
            }
            p.pointee = ASCII.quote
            count = p + 1 - base
        }

        /// Writes a whole record of `fields`.
        mutating func appendRecord(_ fields: [[UInt8]]) {
            beginRecord()
            for field in fields { appendField(field) }
            endRecord()
        }

        /// Number of fields begun in the current record.
        var currentFieldCount: Int { fieldStarts.count }

        /// The unquoted values of the fields of the last ended record.
        func currentFields() -> [[UInt8]] {
            (0..<fieldStarts.count).map { index in
                let raw = rawField(index)
                guard raw.first == ASCII.quote, raw.count >= 2 else { return Array(raw) }
                var value: [UInt8] = []
                var position = 1
                while position < raw.count - 1 { // drop the outer quotes, undouble the inner ones
                    value.append(raw[position])
                    position += raw[position] == ASCII.quote ? 2 : 1
                }
                return value
            }
        }

        /// The bytes of field `index` of the last ended record as written (quoted if it needed
        /// quotes); valid until the next mutation.
        func rawField(_ index: Int) -> UnsafeBufferPointer<UInt8> {
            let end = index + 1 < fieldStarts.count ? fieldStarts[index + 1] - 1 : recordEnd
            return UnsafeBufferPointer(start: base + fieldStarts[index], count: end - fieldStarts[index])
        }

        /// Forgets the current record, as if it had never been begun.
        mutating func discardRecord() {
            count = recordStart
            fieldStarts.removeAll(keepingCapacity: true)
        }

        /// Calls `body` with the pending bytes.
        func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
            try body(UnsafeRawBufferPointer(start: base, count: count))
        }

        /// Empties the buffer after it has been handed to the sink.
        mutating func removeAll() {
            count = 0
            recordStart = 0
            fieldStarts.removeAll(keepingCapacity: true)
        }

        /// Appends `value` in decimal, zero-padded to at least `width` digits.
        mutating func append(decimal value: Int, width: Int = 1) {
            reserve(32)
            count += Format.decimal(value, width: width, into: base + count)
        }

        /// Appends `value` rounded to `decimals` places, like `%.Nf` (ties to even on the scaled value).
        mutating func append(fixed value: Double, decimals: Int) {
            reserve(32)
            count += Format.fixed(value, decimals: decimals, into: base + count)
        }

        /// Appends an ISO `yyyy-mm-dd` date given as days since 1970-01-01.
        mutating func append(date days: Int) {
            let (year, month, day) = CivilDate.components(of: days)
            reserve(32)
            var p = base + count
            p += Format.decimal(year, width: 4, into: p)
            p.pointee = ASCII.minus
            p += 1
            p += Format.decimal(month, width: 2, into: p)
            p.pointee = ASCII.minus
            p += 1
            p += Format.decimal(day, width: 2, into: p)
            count = p - base
        }
    }
}
