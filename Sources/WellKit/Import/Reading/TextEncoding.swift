import Foundation

/// What a file's first bytes say it is: UTF-8 text (with or without a byte order mark), UTF-16
/// text with a byte order mark (as Excel writes "Unicode text"), or binary data that is no text
/// at all. Workbooks, archives, gzip, GeoJSON, KML and shapefiles never get here: the load tells
/// them by their first bytes first (``ContainerKind``) and reads them through a temporary CSV.
///
/// For example:
///
/// ```swift
/// switch try TextEncoding.classify(Array(file.bytes.prefix(TextEncoding.sniffLength)), file: file.path) {
/// case .utf8: break                                                       // read in place
/// case .utf16(let bigEndian): try TextEncoding.transcodeUTF16(file, bigEndian: bigEndian, to: spool)
/// }
/// ```
enum TextEncoding: Equatable {
    case utf8
    case utf16(bigEndian: Bool)

    /// How many leading bytes are looked at for NUL bytes, the mark of binary data.
    static let sniffLength = 4096

    /// Classifies a file from its first bytes (at most ``sniffLength`` of them).
    static func classify(_ head: [UInt8], file: String) throws -> TextEncoding {
        if head.starts(with: [0xFF, 0xFE]) { return .utf16(bigEndian: false) }
        if head.starts(with: [0xFE, 0xFF]) { return .utf16(bigEndian: true) }
        if let nul = head.firstIndex(of: 0) {
            throw ImportError(.notText, "the file is not text: it has a NUL byte at offset \(nul); "
                + "expected CSV or TSV in UTF-8, Latin-1 or UTF-16 with a byte order mark, an .xlsx workbook, a .zip or gzip archive "
                + "of them, GeoJSON, KML or a point shapefile (.shp)", file: file)
        }
        return .utf8
    }

    /// Writes the UTF-16 text of `file` (after its byte order mark) as UTF-8 to `spool`, a chunk
    /// of `chunkUnits` code units at a time: memory holds a chunk and its UTF-8, not the file.
    /// Decoded whole, through `Data` and `String`, a file would take about three times its size.
    ///
    /// - Throws: ``ImportError`` when the file is not valid UTF-16 (an odd number of bytes, a lone
    ///   surrogate) or the spool cannot be written.
    static func transcodeUTF16(_ file: MappedFile, bigEndian: Bool, to spool: String, chunkUnits: Int = 1 << 19) throws {
        precondition(chunkUnits >= 2, "a chunk holds at least a surrogate pair")
        let bytes = file.bytes, path = file.path
        func invalid(_ what: String) -> ImportError {
            ImportError(.notText, "the file starts with a UTF-16 byte order mark but is not valid UTF-16: \(what); "
                + "save it again as CSV (UTF-8)", file: path)
        }
        guard bytes.count % 2 == 0 else { throw invalid("it has an odd number of bytes (\(bytes.count))") }
        guard FileManager.default.createFile(atPath: spool, contents: nil), let output = FileHandle(forWritingAtPath: spool) else {
            throw ImportError(.cannotOpen, "cannot write the UTF-8 copy of the file to \(spool)", file: path)
        }
        defer { try? output.close() }
        @inline(__always) func unit(at offset: Int) -> UInt16 {
            let first = UInt16(bytes[offset]), second = UInt16(bytes[offset + 1])
            return bigEndian ? first << 8 | second : second << 8 | first
        }
        var units: [UInt16] = [], utf8: [UInt8] = []
        units.reserveCapacity(chunkUnits)
        utf8.reserveCapacity(3 * chunkUnits)
        var behind = MappedFile.ReleaseBehind(file, from: 0)
        var start = 2  // after the byte order mark
        while start < bytes.count {
            var end = min(start + 2 * chunkUnits, bytes.count)
            units.removeAll(keepingCapacity: true)
            for offset in stride(from: start, to: end, by: 2) { units.append(unit(at: offset)) }
            // A surrogate pair that the chunk's end splits goes whole into the next chunk.
            if end < bytes.count, let last = units.last, UTF16.isLeadSurrogate(last) {
                units.removeLast()
                end -= 2
            }
            utf8.removeAll(keepingCapacity: true)
            let failed = transcode(units.makeIterator(), from: UTF16.self, to: UTF8.self, stoppingOnError: true) { utf8.append($0) }
            if failed {
                let k = Self.firstLoneSurrogate(in: units) ?? 0, byte = start + 2 * k
                // Lines are counted only for the message, from the file's start.
                let line = 1 + stride(from: 2, to: byte, by: 2).lazy.filter { unit(at: $0) == 0x0A }.count
                throw invalid("a lone surrogate (0x\(String(units[k], radix: 16, uppercase: true))) on line \(line), at byte \(byte)")
            }
            do {
                try utf8.withUnsafeBytes { try output.write(contentsOf: $0) }
            } catch {
                throw ImportError(.cannotOpen, "cannot write the UTF-8 copy of the file to \(spool): \(error.localizedDescription)", file: path)
            }
            behind.done(before: end)
            start = end
        }
        // The load reads the UTF-8 copy from here on: the UTF-16 pages, read in up front below
        // ``MappedFile/releaseThreshold``, leave the process's memory.
        file.release(0..<bytes.count)
    }

    /// The index of the first code unit of `units` that is half a surrogate pair without its other half.
    static func firstLoneSurrogate(in units: [UInt16]) -> Int? {
        var k = 0
        while k < units.count {
            if UTF16.isTrailSurrogate(units[k]) { return k }
            if UTF16.isLeadSurrogate(units[k]) {
                guard k + 1 < units.count, UTF16.isTrailSurrogate(units[k + 1]) else { return k }
                k += 1
            }
            k += 1
        }
        return nil
    }
}
