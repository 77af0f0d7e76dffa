import Foundation
import Glibc

/// Where each record of a converted input came from: its sheet, archive member or feature, and
/// its row, line or number there, by the line on which it starts in the temporary CSV.
///
/// A workbook, an archive, GeoJSON, KML and a shapefile are each written as a temporary UTF-8 CSV
/// (``CSVSpool``) that the load reads as it reads any CSV; rejects, suspects and warnings then name
/// the spool's lines, which the user never saw. ``describe(line:)`` turns one into the user's
/// position (`sheet "Wells" row 12`, `member wells.csv line 3`, `feature 7`). It costs 10 bytes a
/// record: three parallel arrays, not an object per record.
package struct SourceMap: Sendable {
    /// One sheet, member or feature collection, and what the load took from it.
    package struct Unit: Sendable {
        /// `sheet`, `member`, `feature`, `placemark` or `record`.
        var kind: String
        /// The sheet's or member's name; nil for a file of features.
        var name: String?
        /// What a position in it is called: `row`, `line`, or nothing (`feature 7`).
        var position: String?

        /// The member that holds it, for a sheet of a workbook inside an archive.
        var within: String?

        /// `sheet "Wells" row 12`, `member "wells.csv" line 3`, `feature 7`.
        func describe(_ native: Int) -> String {
            var parts: [String] = within.map { ["member \"\($0)\""] } ?? []
            if let name { parts.append("\(kind) \"\(name)\"") }
            parts.append(position.map { "\($0) \(native)" } ?? "\(kind) \(native)")
            return parts.joined(separator: " ")
        }

        /// `sheet "Wells"`, `member "wells.csv"`, or the kind alone.
        var title: String {
            (within.map { "member \"\($0)\" " } ?? "") + (name.map { "\(kind) \"\($0)\"" } ?? kind + "s")
        }
    }

    var units: [Unit] = []
    /// The spool line each record starts on, ascending, with its unit and its native position.
    private var starts: [Int32] = []
    private var unitOf: [UInt16] = []
    private var native: [Int32] = []
    /// Lines of the spool before the first record (the header, title lines) and what they were.
    var headerNative: (unit: Int, position: Int)?
    /// A unit whose lines are the spool's own (an archive's CSV member, extracted as it is).
    var identityUnit: Int?

    mutating func add(unit: Unit) -> Int {
        units.append(unit)
        return units.count - 1
    }

    mutating func record(line: Int, unit: Int, native position: Int) {
        starts.append(Int32(clamping: line))
        unitOf.append(UInt16(clamping: unit))
        native.append(Int32(clamping: position))
    }

    var recordCount: Int { starts.count }

    /// The unit and native position of the record that starts on spool `line` (or the last one before it).
    func locate(line: Int) -> (unit: Int, position: Int)? {
        var low = 0, high = starts.count
        while low < high {
            let mid = (low + high) / 2
            if Int(starts[mid]) <= line { low = mid + 1 } else { high = mid }
        }
        if let identityUnit { return (identityUnit, line) }
        guard low > 0 else { return headerNative }
        return (Int(unitOf[low - 1]), Int(native[low - 1]))
    }

    /// The user's position of spool `line`: `sheet "Wells" row 12`.
    func describe(line: Int) -> String? {
        guard let (unit, position) = locate(line: line), unit < units.count else { return nil }
        return units[unit].describe(position)
    }
}

/// A temporary CSV written record by record, with the ``SourceMap`` of where each record came from.
///
/// Fields are quoted as ``CSVWriter`` quotes them; a record's line breaks inside quotes are counted,
/// so that the map knows the line each record starts on. Writes go out 1 MiB at a time.
final class CSVSpool {
    let path: String
    /// The user's name for the input, for messages.
    let label: String
    private let fd: Int32
    private var buffer: [UInt8] = []
    /// The line the next record starts on.
    private(set) var line = 1
    private(set) var bytes = 0
    var map = SourceMap()
    /// The most bytes the spool may take (the free space of its folder, less a margin): an archive
    /// whose members would fill the disk is refused instead.
    let budget: Int

    init(path: String, label: String) throws {
        self.path = path
        self.label = label
        fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw ImportError(.cannotOpen, "cannot create a temporary copy in \(FileManager.default.temporaryDirectory.path): \(String(cString: strerror(errno)))", file: label)
        }
        budget = CSVSpool.freeBytes(atDirectoryOf: path)
        buffer.reserveCapacity(1 << 20)
    }

    deinit { close(fd) }

    /// Bytes free to an unprivileged writer in the folder of `path`, less a tenth; `Int.max` when unknown.
    static func freeBytes(atDirectoryOf path: String) -> Int {
        var info = statvfs()
        let folder = (path as NSString).deletingLastPathComponent
        guard statvfs(folder.isEmpty ? "." : folder, &info) == 0 else { return Int.max }
        let free = Double(info.f_bavail) * Double(info.f_frsize)
        return free >= Double(Int.max) ? Int.max : Int(free * 0.9)
    }

    /// Writes one record; `unit` and `native` say where it came from (nil for the header).
    func write(_ fields: [String], unit: Int?, native: Int) throws {
        if let unit { map.record(line: line, unit: unit, native: native) } else { map.headerNative = (max(0, map.units.count - 1), native) }
        for (k, field) in fields.enumerated() {
            if k > 0 { buffer.append(UInt8(ascii: ",")) }
            CSVWriter.append(field, to: &buffer)
            for byte in field.utf8 where byte == 0x0A { line += 1 }
        }
        buffer.append(0x0A)
        line += 1
        if buffer.count >= 1 << 20 { try flush() }
    }

    /// Writes the bytes as they are (a member that is already CSV), counting its lines.
    func writeRaw(_ chunk: UnsafeRawBufferPointer) throws {
        buffer.append(contentsOf: chunk)
        if buffer.count >= 1 << 20 { try flush() }
    }

    func flush() throws {
        bytes += buffer.count
        guard bytes <= budget else {
            throw ImportError(.notText, "its contents take more than the \(budget / (1 << 20)) MiB free in \(FileManager.default.temporaryDirectory.path), "
                + "where the load writes them out (an archive that expands this much may be a zip bomb); free space there, or set TMPDIR to a larger folder",
                file: label)
        }
        var done = 0
        while done < buffer.count {
            let n = buffer.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + done, $0.count - done) }
            if n < 0 {
                if errno == EINTR { continue }
                throw ImportError(.cannotOpen, "cannot write a temporary copy to \(path): \(String(cString: strerror(errno)))", file: label)
            }
            done += n
        }
        buffer.removeAll(keepingCapacity: true)
    }
}
