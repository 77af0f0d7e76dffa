import Foundation

/// What a file's first bytes say it is: UTF-8 text (with or without a byte order mark), UTF-16
/// text with a byte order mark (as Excel writes "Unicode text"), or something that is not a
/// delimited text file at all (gzip, ZIP or an `.xlsx` workbook, other binary data).
///
/// For example:
///
/// ```swift
/// switch try TextEncoding.sniff(path: "wells.txt") {
/// case .utf8: break                                  // read in place
/// case .utf16: try TextEncoding.transcodeUTF16(path: "wells.txt", to: spool)
/// }
/// ```
enum TextEncoding: Equatable {
    case utf8
    case utf16(bigEndian: Bool)

    /// How many leading bytes are looked at for NUL bytes, the mark of binary data.
    static let sniffLength = 4096

    /// Reads the first bytes of the file at `path`.
    ///
    /// - Throws: ``ImportError`` with code `notText` for gzip, ZIP and other binary files, naming
    ///   what the file is and what to do; the message never echoes the raw bytes.
    static func sniff(path: String) throws -> TextEncoding {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw ImportError(.cannotOpen, "cannot open file: \(String(cString: strerror(errno)))", file: path)
        }
        defer { try? handle.close() }
        let head = [UInt8]((try? handle.read(upToCount: sniffLength)) ?? Data())
        return try classify(head, file: path)
    }

    /// Classifies a file from its first bytes (at most ``sniffLength`` of them).
    static func classify(_ head: [UInt8], file: String) throws -> TextEncoding {
        if head.starts(with: [0xFF, 0xFE]) { return .utf16(bigEndian: false) }
        if head.starts(with: [0xFE, 0xFF]) { return .utf16(bigEndian: true) }
        if head.starts(with: [0x1F, 0x8B]) {
            throw ImportError(.notText, "the file is gzip-compressed, not text", remedy: .decompress, file: file)
        }
        if head.starts(with: [0x50, 0x4B, 0x03, 0x04]) {
            throw ImportError(.notText, "the file is a ZIP archive (an .xlsx workbook is one), not delimited text; "
                + "unzip it, or save the sheet as CSV (UTF-8), then load the CSV", file: file)
        }
        if let nul = head.firstIndex(of: 0) {
            throw ImportError(.notText, "the file is not text: it has a NUL byte at offset \(nul); "
                + "expected CSV or TSV in UTF-8, Latin-1 or UTF-16 with a byte order mark", file: file)
        }
        return .utf8
    }

    /// Writes the UTF-16 file at `path` (with its byte order mark) as UTF-8 to `spool`.
    ///
    /// - Throws: ``ImportError`` when the file is not valid UTF-16 or the spool cannot be written.
    static func transcodeUTF16(path: String, to spool: String) throws {
        try transcodeUTF16(Data(contentsOf: URL(fileURLWithPath: path)), file: path, to: spool)
    }

    /// Writes the UTF-16 text `bytes` (with its byte order mark), read from `path`, as UTF-8 to `spool`.
    static func transcodeUTF16(_ bytes: UnsafeBufferPointer<UInt8>, file path: String, to spool: String) throws {
        try transcodeUTF16(Data(buffer: bytes), file: path, to: spool)
    }

    private static func transcodeUTF16(_ data: Data, file path: String, to spool: String) throws {
        guard let text = String(data: data, encoding: .utf16) else {
            throw ImportError(.notText, "the file starts with a UTF-16 byte order mark but is not valid UTF-16; "
                + "save it again as CSV (UTF-8)", file: path)
        }
        guard FileManager.default.createFile(atPath: spool, contents: Data(text.utf8)) else {
            throw ImportError(.cannotOpen, "cannot write the UTF-8 copy of the file to \(spool)", file: path)
        }
    }
}
