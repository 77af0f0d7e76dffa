import Foundation

/// Title lines before a header, as exports write them (`Oklahoma Corporation Commission - Well
/// Data Export`, a blank line, then the header): found from the delimiters of the first lines.
///
/// The rule: among the first 8 lines, for one of the delimiters (comma, tab, semicolon, pipe), the
/// header and the rows after it (at least two lines) each have at least 2 delimiters, while each of
/// the 1 to 3 lines before them has at most one of every delimiter, and at most half the rows' median. Only
/// delimiters outside quotes count: a two-column header (`LocationID,Location`) over rows whose second
/// field is a quoted pair (`310932,"40.38, -102.29"`) has as many as its rows, and is no title. A quoted
/// field that spans lines makes the counts approximate, which is why the title lines must be so plainly short.
enum TitleLines {
    struct Found {
        var lines: [String] = []
        /// How many physical lines the titles (blank lines among them) take.
        var count = 0
        var headerOffset = 0
        var evidence = ""
    }

    static func find(_ bytes: UnsafeBufferPointer<UInt8>, from offset: Int) -> Found {
        var lines: [(start: Int, text: ArraySlice<UInt8>)] = []
        var k = offset
        while lines.count < 8 && k < bytes.count {
            var end = k
            while end < bytes.count && bytes[end] != 0x0A { end += 1 }
            var text = bytes[k..<end]
            if text.last == 0x0D { text = text.dropLast() }
            lines.append((k, ArraySlice(text)))
            k = end + 1
        }
        guard lines.count >= 3 else { return Found() }
        // The delimiter that splits the most fields wins: decimal commas in a `;` file must not pass for the delimiter.
        var best: (found: Found, median: Int)?
        let delimiters = [UInt8(ascii: ","), UInt8(ascii: "\t"), UInt8(ascii: ";"), UInt8(ascii: "|")]
        // A title has at most one of every delimiter: a header split by tabs is no title for commas in its rows.
        let plain = lines.map { line in delimiters.allSatisfy { d in unquotedCount(d, in: line.text) <= 1 } }
        for delimiter in delimiters {
            let counts = lines.map { line in unquotedCount(delimiter, in: line.text) }
            for titles in 1...3 where titles + 2 <= lines.count {
                let rest = counts[titles...]
                let median = rest.sorted()[rest.count / 2]
                guard rest.allSatisfy({ $0 >= 2 }), counts[titles] >= median - 1,
                      counts[..<titles].allSatisfy({ $0 * 2 <= median }), plain[..<titles].allSatisfy({ $0 }),
                      lines[..<titles].contains(where: { !$0.text.allSatisfy { $0 == 0x20 || $0 == 0x09 } }) else { continue }
                guard median > best?.median ?? 0 else { break }
                let name = delimiter == UInt8(ascii: ",") ? "commas" : delimiter == UInt8(ascii: "\t") ? "tabs" : delimiter == UInt8(ascii: ";") ? "semicolons" : "pipes"
                best = (Found(
                    lines: lines[..<titles].map { String(decoding: $0.text, as: UTF8.self) }.filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty },
                    count: titles, headerOffset: lines[titles].start,
                    evidence: "the line\(titles == 1 ? "" : "s") before the header \(titles == 1 ? "has" : "have") at most one of the \(name) that split the header and the rows after it \(median) times"),
                        median)
                break
            }
        }
        return best?.found ?? Found()
    }

    /// How many times `delimiter` occurs in `line` outside double quotes (a line is read on its own:
    /// a quote it leaves open closes with it).
    static func unquotedCount(_ delimiter: UInt8, in line: ArraySlice<UInt8>) -> Int {
        var inQuotes = false, count = 0
        for byte in line {
            if byte == UInt8(ascii: "\"") { inQuotes.toggle() } else if byte == delimiter && !inQuotes { count += 1 }
        }
        return count
    }
}
