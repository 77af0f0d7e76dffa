import Testing
@testable import WellKit

/// The row builder's table of codes by name (``ByteCodes``) answers as a `[[UInt8]: Int64]` does.
struct ByteCodesTests {
    /// Names of every length around the hash's eight-byte steps, with shared prefixes, zero bytes,
    /// the empty name and non-ASCII UTF-8; set, reset and looked up in a shuffled order against a
    /// dictionary, through many growths of the table and its arena.
    @Test func answersAsADictionary() {
        var names: [[UInt8]] = [[], [0], [0, 0], Array("é".utf8), Array("ÉTAT".utf8)]
        for length in 1...40 {
            names.append(Array(repeating: UInt8(ascii: "A"), count: length))
            names.append(Array(repeating: UInt8(ascii: "A"), count: length - 1) + [UInt8(ascii: "B")])
            names.append([UInt8(ascii: "B")] + Array(repeating: UInt8(ascii: "A"), count: length - 1))
            names.append(Array(repeating: 0, count: length))
        }
        var generator = SystemRandomNumberGenerator()
        for k in 0..<20_000 {
            names.append(Array("OPERATOR \(k) LTD.".utf8))
            names.append((0..<Int.random(in: 0...24, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) })
        }
        let table = ByteCodes()
        var model: [[UInt8]: Int64] = [:]
        for (k, name) in names.shuffled().enumerated() {
            name.withUnsafeBufferPointer { bytes in
                #expect(table[bytes] == model[name])
                table.set(bytes, Int64(k))
                #expect(table[bytes] == Int64(k))
            }
            model[name] = Int64(k)
        }
        #expect(table.count == model.count)
        // A code set again replaces the old one and adds no name.
        for name in names.prefix(1_000) {
            name.withUnsafeBufferPointer { table.set($0, -1) }
            model[name] = -1
        }
        #expect(table.count == model.count)
        for (name, code) in model {
            name.withUnsafeBufferPointer { #expect(table[$0] == code) }
        }
        // Names the table never met, one byte off those it has.
        for name in names.prefix(2_000) where !name.isEmpty {
            var other = name
            other[other.count - 1] &+= 1
            if model[other] == nil { other.withUnsafeBufferPointer { #expect(table[$0] == nil) } }
            let longer = name + [UInt8(ascii: " ")]
            if model[longer] == nil { longer.withUnsafeBufferPointer { #expect(table[$0] == nil) } }
        }
    }
}
