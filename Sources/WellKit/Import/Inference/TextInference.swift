import Foundation

// What the text itself shows, before its columns: the encoding, the delimiter, the decimal mark, and
// NWIS RDB's column-format line.

extension WellStore {
    /// Whether the sample writes numbers with a decimal comma (`36,020983`): never in a comma-separated
    /// file; otherwise when at least as many cells are numbers with a decimal comma as with a point.
    static func decimalMark(_ sample: [[String]], delimiter: UInt8) -> (comma: Bool, commas: Int, points: Int) {
        guard delimiter != UInt8(ascii: ",") else { return (false, 0, 0) }
        var commas = 0, points = 0
        for row in sample.prefix(500) {
            for cell in row {
                let text = cell.trimmingCharacters(in: .whitespaces)
                guard let first = text.first, first.isNumber || first == "-" || first == "+" else { continue }
                if text.contains(","), !text.contains("."), ValueParsing.decimalComma(text) != nil { commas += 1 }
                else if text.contains("."), ValueParsing.number(text) != nil { points += 1 }
            }
        }
        return (commas > 0 && commas >= points, commas, points)
    }

    /// The inferences about the text itself: its encoding, delimiter and decimal mark.
    static func textInferences(_ file: MappedFile, sampleEnd: Int, delimiter: UInt8,
                               decimalMark: (comma: Bool, commas: Int, points: Int), options: LoadOptions) -> [Inference] {
        let head = UnsafeBufferPointer(rebasing: file.bytes[0..<min(sampleEnd, file.bytes.count)])
        let bom = head.starts(with: [0xEF, 0xBB, 0xBF])
        var encoding = Inference(subject: "encoding", column: nil, value: bom ? "UTF-8 (with a byte order mark)" : "UTF-8",
                                 evidence: "the first \(grouped(head.count)) bytes are valid UTF-8", override: "")
        if !isASCII(head), String(validating: head, as: UTF8.self) == nil {
            let bad = firstInvalidUTF8(head)
            let c1 = head.count { (0x80...0x9F).contains($0) }
            encoding.value = c1 > 0 ? "Windows-1252" : "Latin-1 (ISO 8859-1)"
            encoding.evidence = "byte 0x\(String(head[bad], radix: 16, uppercase: true)) at offset \(bad) is not UTF-8"
                + (c1 > 0 ? "; \(grouped(c1)) bytes 0x80–0x9F read as Windows-1252 punctuation (“ ” – — …), not as control characters" : "")
                + "; save the file as UTF-8 to be sure"
        }
        let names: [UInt8: String] = [UInt8(ascii: ","): "comma", UInt8(ascii: "\t"): "tab", UInt8(ascii: ";"): "semicolon", UInt8(ascii: "|"): "pipe"]
        let delimiterName = names[delimiter] ?? "0x\(String(delimiter, radix: 16))"
        var result = [encoding, Inference(subject: "delimiter", column: nil, value: delimiterName,
                                          evidence: options.delimiter == nil ? "detected from the header" : "given",
                                          override: "--delimiter comma|tab|semicolon|pipe")]
        if decimalMark.comma || decimalMark.commas > 0 {
            result.append(Inference(subject: "decimal mark", column: nil, value: options.coordinates.decimalComma ? "comma (36,020983)" : "point",
                                    evidence: "\(grouped(decimalMark.commas)) sampled numbers written with a decimal comma, \(grouped(decimalMark.points)) with a point",
                                    override: ""))
        }
        return result
    }

    /// The offset of the first byte that does not continue valid UTF-8.
    static func firstInvalidUTF8(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        var k = 0
        while k < bytes.count {
            let b = bytes[k]
            let length = b < 0x80 ? 1 : b >> 5 == 0b110 ? 2 : b >> 4 == 0b1110 ? 3 : b >> 3 == 0b11110 ? 4 : 0
            guard length > 0, k + length <= bytes.count,
                  (1..<length).allSatisfy({ bytes[k + $0] >> 6 == 0b10 }) else { return k }
            k += length
        }
        return k
    }

    /// Whether a record is NWIS RDB's column-format line: as many fields as the header, each a width and a type letter (`16n`, `10d`; `s` for text).
    static func isRDBFormatLine(_ fields: [String], header: [String]) -> Bool {
        fields.count == header.count && fields.allSatisfy { field in
            guard let type = field.last, "sndt".contains(type), field.count >= 2 else { return false }
            return field.dropLast().allSatisfy { $0.isASCII && $0.isNumber }
        }
    }
}
