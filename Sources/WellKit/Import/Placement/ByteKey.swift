#if canImport(Glibc)
import Glibc
#endif

/// Bytes as a dictionary key, hashed in one call over them: `[UInt8]`'s own `hash(into:)` feeds
/// the hasher a byte at a time. The place check looks the places rows name up by their bytes,
/// without making a `String` per row; one key is kept and refilled from row to row, so a lookup
/// allocates nothing. (The row builder's lookups of names' codes, eleven a row, use ``ByteCodes``.)
struct ByteKey: Hashable {
    var bytes: [UInt8] = []

    init(_ bytes: [UInt8] = []) { self.bytes = bytes }

    func hash(into hasher: inout Hasher) {
        bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
    }

    /// One `memcmp`, not `Array`'s generic comparison element by element.
    static func == (a: ByteKey, b: ByteKey) -> Bool {
        a.bytes.count == b.bytes.count && a.bytes.withUnsafeBytes { x in
            b.bytes.withUnsafeBytes { y in x.count == 0 || memcmp(x.baseAddress!, y.baseAddress!, x.count) == 0 }
        }
    }
}
