/// Builds the JSON array of a row's unmapped and bad values in a SQLite store's `details.extra`
/// (schema version 3): at index k the value of the column at position k of the store's
/// `extra_keys`, null where the row has none, up to its last value; since version 4 a value kept
/// once in `extra_values` is its code, a JSON integer (``ExtraValues``). The store names each column
/// once instead of every row repeating its key.
package struct ExtraArray {
    /// The row's values, each at its position: where its quoted text lies in ``text``.
    private var members: [(position: Int, range: Range<Int>)] = []
    private var text: [UInt8] = []

    /// Empties the array, keeping its storage for the next record.
    mutating func reset() {
        members.removeAll(keepingCapacity: true)
        text.removeAll(keepingCapacity: true)
    }

    /// Whether the array has a value at `position`. A column named twice keeps its first value, as
    /// a JSON object's first member is the one read.
    func holds(_ position: Int) -> Bool { members.contains { $0.position == position } }

    /// Adds `value` (UTF-8) at `position`, unless it ``holds(_:)`` one.
    mutating func append(position: Int, value: UnsafeBufferPointer<UInt8>) {
        guard !holds(position) else { return }
        let start = text.count
        ExtraJSON.appendQuoted(value, to: &text)
        members.append((position, start..<text.count))
    }

    /// Adds the code of a value kept in `extra_values` (``ExtraValues``) at `position`, as a JSON integer.
    mutating func append(position: Int, code: Int64) {
        guard !holds(position) else { return }
        let start = text.count
        // The digits, written in place rather than through a `String` per code.
        var rest = code
        repeat {
            text.append(UInt8(ascii: "0") + UInt8(rest % 10))
            rest /= 10
        } while rest > 0
        text[start...].reverse()
        members.append((position, start..<text.count))
    }

    /// Calls `body` with the array's UTF-8 text, or nil when the row has no value.
    func withFinished<R>(_ body: (UnsafeBufferPointer<UInt8>?) -> R) -> R {
        guard !members.isEmpty else { return body(nil) }
        var out: [UInt8] = [UInt8(ascii: "[")]
        out.reserveCapacity(text.count + 2 * members.count + 8)
        var next = 0
        for member in members.sorted(by: { $0.position < $1.position }) {
            while next < member.position {
                out += Array(next == 0 ? "null".utf8 : ",null".utf8)
                next += 1
            }
            if next > 0 { out.append(UInt8(ascii: ",")) }
            out += text[member.range]
            next += 1
        }
        out.append(UInt8(ascii: "]"))
        return out.withUnsafeBufferPointer { body($0) }
    }
}

/// Builds the JSON object of unmapped and bad values kept in a PostgreSQL store's `details.extra`
/// (a SQLite store keeps an ``ExtraArray``), and in `--dry-run`'s preview.
///
/// Hand-written because it runs once per row on the load's hot path and writes only a flat
/// object of strings; `JSONSerialization` would allocate a dictionary and bridge each value.
/// It collects bytes and makes one string at the end: appending to a `String` piece by piece
/// shows in a dry run's profile (`perf`).
package struct ExtraJSON {
    private var bytes: [UInt8] = []

    var isEmpty: Bool { bytes.isEmpty }

    /// Empties the object, keeping its storage for the next record.
    mutating func reset() { bytes.removeAll(keepingCapacity: true) }

    mutating func append(key: String, value: String) {
        var key = key, value = value
        key.withUTF8 { key in value.withUTF8 { value in append(key: key, value: value) } }
    }

    /// Appends a member whose key and value are UTF-8 text.
    mutating func append(key: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>) {
        if bytes.isEmpty {
            bytes.reserveCapacity(128)
            bytes.append(UInt8(ascii: "{"))
        } else {
            bytes.append(UInt8(ascii: ","))
        }
        Self.appendQuoted(key, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        Self.appendQuoted(value, to: &bytes)
    }

    func finished() -> String? {
        withFinished { $0.map { String(decoding: $0, as: UTF8.self) } }
    }

    /// Calls `body` with the object's UTF-8 text, or nil when it has no members.
    func withFinished<R>(_ body: (UnsafeBufferPointer<UInt8>?) -> R) -> R {
        guard !bytes.isEmpty else { return body(nil) }
        var closed = bytes
        closed.append(UInt8(ascii: "}"))
        return closed.withUnsafeBufferPointer { body($0) }
    }
}
