import Foundation
import ZIPFoundation

/// What agencies publish besides delimited text, told by the file's first bytes (its name only
/// breaks ties): a workbook or an archive (ZIP, `PK\x03\x04`), gzip (`1f 8b`), a point shapefile
/// (file code 9994), GeoJSON (`{` and a `Feature`), KML (`<kml`).
///
/// Each is written as a temporary UTF-8 CSV (``CSVSpool``) which ``WellStore/scan(csvAt:options:name:)``
/// reads as any CSV, so that every promise of a CSV load holds for it (one transaction, rejects,
/// identities and reloads, the place check, inference, progress); then the rejects, suspects and
/// the summary are given the user's positions (``SourceMap``): `sheet "Wells" row 12`.
enum ContainerKind: Equatable {
    case gzip, zip, shapefile, geoJSON, kml

    static func detect(_ head: [UInt8], name: String) -> ContainerKind? {
        if head.starts(with: [0x1F, 0x8B]) { return .gzip }
        if head.starts(with: [0x50, 0x4B, 0x03, 0x04]) || head.starts(with: [0x50, 0x4B, 0x05, 0x06]) { return .zip }
        if head.starts(with: [0x00, 0x00, 0x27, 0x0A]) && name.lowercased().hasSuffix(".shp") { return .shapefile }
        var k = head.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        while k < head.count, [0x20, 0x09, 0x0A, 0x0D].contains(head[k]) { k += 1 }
        guard k < head.count else { return nil }
        let text = String(decoding: head[k...], as: UTF8.self)
        if head[k] == UInt8(ascii: "{") && (text.contains("\"Feature") || [".geojson", ".json"].contains { name.lowercased().hasSuffix($0) }) { return .geoJSON }
        if head[k] == UInt8(ascii: "<") && text.contains("<kml") { return .kml }
        return nil
    }
}

/// The temporary files of one container's load, removed together afterwards.
final class TemporaryPaths {
    private(set) var paths: [String] = []

    func make() -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("wells-\(UUID().uuidString).csv").path
        TemporaryFiles.track(path)
        paths.append(path)
        return path
    }

    deinit {
        for path in paths {
            try? FileManager.default.removeItem(atPath: path)
            TemporaryFiles.untrack(path)
        }
    }
}

extension WellStore {
    /// Loads a workbook, archive, gzip, GeoJSON, KML or shapefile through a temporary CSV.
    static func scanContainer(_ kind: ContainerKind, path: String, options: LoadOptions, label: String) throws -> ScannedFile {
        let temps = TemporaryPaths()
        do {
            switch kind {
            case .gzip:
                let inner = temps.make()
                try Gzip.decompress(path, to: inner, label: label)
                return try scan(csvAt: inner, options: options, name: label)
            case .zip:
                let archive = try ZipMembers.open(path, label: label)
                let units = archive["xl/workbook.xml"] != nil
                    ? try workbookUnits(archive, label: label, within: nil, options: options, temps: temps)
                    : try memberUnits(archive, label: label, options: options, temps: temps)
                return try scanUnits(units, sameHeader: archive["xl/workbook.xml"] == nil, options: options, label: label, temps: temps)
            case .geoJSON, .kml, .shapefile:
                let table = switch kind {
                case .geoJSON: try FeatureTable.geoJSON(MappedFile(path: path), label: label)
                case .kml: try FeatureTable.kml(path, label: label)
                default: try FeatureTable.shapefile(path, label: label)
                }
                let spool = try CSVSpool(path: temps.make(), label: label)
                let unit = spool.map.add(unit: .init(kind: kind == .geoJSON ? "feature" : kind == .kml ? "placemark" : "record"))
                try table.write(to: spool, unit: unit)
                try spool.flush()
                var options = options
                table.apply(to: &options)
                return try scanSpool(spool.path, map: spool.map, merged: [0], options: options, label: label)
            }
        } catch var error as ImportError where error.file.map(temps.paths.contains) ?? false {
            error.file = label
            throw error
        }
    }

    /// The sheets of a workbook, each written to its own spool (every sheet, or ``LoadOptions/sheet``).
    static func workbookUnits(_ archive: Archive, label: String, within: String?, options: LoadOptions, temps: TemporaryPaths) throws -> [UnitTable] {
        let book = try Workbook(archive: archive, label: label)
        var sheets = book.sheets
        if let wanted = options.sheet {
            guard let sheet = sheets.first(where: { $0.name == wanted }) ?? sheets.first(where: { $0.name.lowercased() == wanted.lowercased() }) else {
                throw ImportError(.invalidOption, "the workbook has no sheet \"\(wanted)\"; its sheets are "
                    + sheets.map { "\"\($0.name)\"" }.joined(separator: ", ") + "; load one with \(options.describeRemedy(.sheet(sheets.first?.name)))",
                    file: label)
            }
            sheets = [sheet]
        }
        return try sheets.map { sheet in
            let spool = try CSVSpool(path: temps.make(), label: label)
            let unit = spool.map.add(unit: .init(kind: "sheet", name: sheet.name, position: "row", within: within))
            _ = try book.write(sheet, to: spool, unit: unit)
            try spool.flush()
            var table = UnitTable(path: spool.path, map: spool.map, unit: spool.map.units[unit])
            try table.examine(options: options, label: label)
            return table
        }
    }

    /// The members of an archive that are delimited text or workbooks (every one, or ``LoadOptions/member``).
    static func memberUnits(_ archive: Archive, label: String, options: LoadOptions, temps: TemporaryPaths) throws -> [UnitTable] {
        var members = ZipMembers.loadable(archive)
        if let wanted = options.member {
            guard let member = archive.first(where: { $0.type == .file && ($0.path == wanted || ($0.path as NSString).lastPathComponent == wanted) }) else {
                throw ImportError(.invalidOption, "the archive has no member \"\(wanted)\"; its members are "
                    + ZipMembers.loadable(archive).map { "\"\($0.path)\"" }.joined(separator: ", ")
                    + "; load one with \(options.describeRemedy(.member(ZipMembers.loadable(archive).first?.path)))", file: label)
            }
            members = [member]
        }
        guard !members.isEmpty else {
            let all = archive.filter { $0.type == .file }.prefix(10).map { "\"\($0.path)\"" }
            throw ImportError(.noCoordinateColumns, "the archive holds no delimited text (.csv, .tsv, .txt) or workbook (.xlsx)"
                + (all.isEmpty ? "" : "; it holds \(all.joined(separator: ", "))") + "; extract the well list and load it", file: label)
        }
        var units: [UnitTable] = []
        for member in members {
            let path = temps.make()
            try ZipMembers.withExtracted(member, from: archive, label: label) { extracted in
                if try Self.isZip(extracted) {
                    let inner = try ZipMembers.open(extracted, label: label)
                    guard inner["xl/workbook.xml"] != nil else {
                        throw ImportError(.notText, "member \"\(member.path)\" is itself an archive; extract it and load what it holds", file: label)
                    }
                    units += try workbookUnits(inner, label: label, within: member.path, options: options, temps: temps)
                } else {
                    try FileManager.default.moveItem(atPath: extracted, toPath: path)
                    var map = SourceMap()
                    map.identityUnit = map.add(unit: .init(kind: "member", name: member.path, position: "line"))
                    var table = UnitTable(path: path, map: map, unit: map.units[0])
                    try table.examine(options: options, label: label)
                    units.append(table)
                }
            }
        }
        return units
    }

    private static func isZip(_ path: String) throws -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        return (try handle.read(upToCount: 4)).map { [UInt8]($0) == [0x50, 0x4B, 0x03, 0x04] } ?? false
    }

    /// Scans the units that hold wells: one as it is, several combined (``UnitMerge``).
    static func scanUnits(_ units: [UnitTable], sameHeader: Bool, options: LoadOptions, label: String, temps: TemporaryPaths) throws -> ScannedFile {
        let wells = units.filter { $0.skipped == nil }
        guard !wells.isEmpty else {
            throw ImportError(.noCoordinateColumns, "no \(units.first?.unit.kind ?? "sheet") has wells (a header whose columns hold coordinates): "
                + units.map { "\($0.unit.title): \($0.skipped ?? "")" }.joined(separator: "; ")
                + "; name the coordinate columns with \(options.describeRemedy(.mapField("lat"))) and \(options.describeRemedy(.mapField("lon")))"
                + (units.count > 1 ? ", and the sheet with \(options.describeRemedy(.sheet(nil)))" : ""), file: label)
        }
        var result: ScannedFile
        if wells.count == 1 {
            result = try scanSpool(wells[0].path, map: wells[0].map, merged: [0], options: options, label: label)
        } else {
            let spool = try CSVSpool(path: temps.make(), label: label)
            let merged = try UnitMerge.merge(wells, sameHeader: sameHeader, into: spool, label: label)
            result = try scanSpool(spool.path, map: spool.map, merged: merged, options: options, label: label)
        }
        // Sheets without wells are named in the summary too, with why they were left out.
        var sources = result.summary.sources
        for unit in units where unit.skipped != nil {
            let index = units.firstIndex { $0.path == unit.path } ?? 0
            var source = LoadSource(kind: unit.unit.kind, name: unit.unit.name, member: unit.unit.within)
            source.records = unit.records
            source.skipped = unit.skipped
            sources.insert(source, at: min(index, sources.count))
        }
        result.summary.sources = sources
        return result
    }

    /// Scans a spool as a CSV, then gives its rejects, suspects and errors the user's positions.
    static func scanSpool(_ spool: String, map: SourceMap, merged: [Int], options: LoadOptions, label: String) throws -> ScannedFile {
        var result: ScannedFile
        do {
            result = try scan(csvAt: spool, options: options, name: label)
        } catch var error as ImportError {
            if error.file == spool { error.file = label }
            if let line = error.line, let position = map.describe(line: line) {
                throw ImportError(error.code, "\(position): \(error.reason)", remedy: error.remedy, header: error.header, file: label,
                                  line: nil, column: error.column)
            }
            throw error
        }
        var sources = map.units.enumerated().map { k, unit in
            var source = LoadSource(kind: unit.kind, name: unit.name, member: unit.within)
            source.merged = k < merged.count ? merged[k] : 0
            return source
        }
        for k in 0..<result.records.count {
            if let unit = map.locate(line: result.records[k].line)?.unit, unit < sources.count { sources[unit].wells += 1 }
        }
        for reject in result.rejects {
            if let unit = map.locate(line: reject.line)?.unit, unit < sources.count { sources[unit].rejected += 1 }
        }
        // Each reject named by its sheet, member or feature and its place there, as it is read.
        result.rejects.relabel { reject in
            guard let (unit, position) = map.locate(line: reject.line) else { return }
            reject.reason = "\(map.units[unit].describe(position)): \(reject.reason)"
            reject.line = position
        }
        for k in result.summary.suspects.indices {
            let suspect = result.summary.suspects[k]
            guard let (unit, position) = map.locate(line: suspect.line) else { continue }
            result.summary.suspects[k].line = position
            result.summary.suspects[k].detail = "\(map.units[unit].describe(position)): \(suspect.detail)"
        }
        for k in sources.indices { sources[k].records = sources[k].wells + sources[k].rejected + sources[k].merged }
        result.summary.sources = sources
        if map.units.count > 1 || map.units.first?.kind == "sheet" {
            result.summary.inferences.insert(Inference(
                subject: "sources", column: nil,
                value: sources.map { "\($0.title): \($0.wells) wells" + ($0.merged > 0 ? ", \($0.merged) rows merged into the same wells of an earlier one" : "") }
                    .joined(separator: "; "),
                evidence: map.units.count > 1 ? "columns matched by the field each maps to, else by name; rows matched by identifier" : "the one sheet with wells",
                override: map.units.first?.kind == "member" ? options.describeRemedy(.member(nil)) : options.describeRemedy(.sheet(nil))), at: 0)
        }
        return result
    }
}
