import Foundation

/// The output formats of the query commands.
package enum OutputFormat: String, Sendable, CaseIterable {
    case table, csv, json, ndjson, geojson
}

/// Writes query rows as a table, CSV, JSON, NDJSON or GeoJSON, one row at a time.
///
/// For example:
///
/// ```swift
/// let writer = ResultWriter(format: .geojson, columns: ["id", "name", "lat", "lon"]) { print($0, terminator: "") }
/// try store.forEachRow(request, fields: [.id, .name, .latitude, .longitude]) { writer.write((0..<4).map { k in $0[k] as WellValue }) }
/// writer.finish()
/// ```
///
/// Rows are not kept: memory does not grow with the result, except that a table holds its
/// first 100 rows to size its columns. GeoJSON follows RFC 7946: a FeatureCollection of
/// Points in EPSG:4326, longitude first; the `lat` and `lon` columns become the geometry.
package final class ResultWriter {
    private let format: OutputFormat
    private let columns: [String]
    private let emit: (String) -> Void
    private var count = 0
    private var pending: [[WellValue]] = []
    private var widths: [Int]?
    private let latIndex: Int?
    private let lonIndex: Int?
    /// The column whose value is a GeoJSON feature's `id`.
    private let idIndex: Int?
    private let tableCell: (String) -> String
    /// Each column's JSON key and colon (`"name":`) as UTF-8, written before its value.
    private let keys: [[UInt8]]
    /// The bytes of the row being written, kept between rows for their storage.
    private var scratch: [UInt8] = []

    /// - Parameters:
    ///   - columns: The column names, in row order. GeoJSON needs `lat` and `lon` among them.
    ///   - tableCell: Makes each cell and column name of a table safe to show, for example by escaping
    ///     control characters, before its width is taken and it is padded; CSV and JSON are written as they are.
    ///   - featureID: The column whose value is each GeoJSON feature's `id` (it stays among the properties too).
    ///   - emit: Receives the output text, piece by piece.
    package init(format: OutputFormat, columns: [String], tableCell: @escaping (String) -> String = { $0 },
                featureID: String = "id", emit: @escaping (String) -> Void) {
        self.format = format
        self.columns = columns
        self.tableCell = tableCell
        self.emit = emit
        latIndex = columns.firstIndex(of: "lat")
        lonIndex = columns.firstIndex(of: "lon")
        idIndex = columns.firstIndex(of: featureID)
        keys = columns.map { column in
            var key: [UInt8] = []
            var column = column
            column.withUTF8 { ExtraJSON.appendQuoted($0, to: &key) }
            key.append(UInt8(ascii: ":"))
            return key
        }
        switch format {
        case .csv: emit(CSVWriter.line(columns) + "\n")
        case .json: emit("[")
        case .geojson: emit(#"{"type":"FeatureCollection","features":["#)
        case .table, .ndjson: break
        }
    }

    /// Writes one row, its values in the order of `columns`; GeoJSON takes `geometry` (GeoJSON
    /// geometry text, such as an area's polygon) when given, else the point of `lat` and `lon`.
    package func write(_ values: [WellValue], geometry: String? = nil) {
        defer { count += 1 }
        switch format {
        case .csv:
            scratch.removeAll(keepingCapacity: true)
            for (k, value) in values.enumerated() {
                if k > 0 { scratch.append(UInt8(ascii: ",")) }
                CSVWriter.append(Self.text(value), to: &scratch)
            }
            scratch.append(0x0A)
            emit(String(decoding: scratch, as: UTF8.self))
        case .json, .ndjson, .geojson:
            scratch.removeAll(keepingCapacity: true)
            write(values, geometry: geometry, appendingTo: &scratch)
            emit(String(decoding: scratch, as: UTF8.self))
        case .table:
            if widths == nil {
                pending.append(values)
                if pending.count == 100 { flushTable() }
            } else {
                emitTableRow(values.map { tableCell(Self.text($0)) })
            }
        }
    }

    /// Writes one row of JSON, NDJSON or GeoJSON as ``write(_:geometry:)`` does, with its separator,
    /// appending its UTF-8 text to `out` instead of emitting it: a server builds a page this way
    /// with no string made per row or per value.
    package func write(_ values: [WellValue], geometry: String? = nil, appendingTo out: inout [UInt8]) {
        precondition(format == .json || format == .ndjson || format == .geojson, "ResultWriter: write(_:appendingTo:) writes JSON, NDJSON and GeoJSON")
        defer { count += 1 }
        if format != .ndjson { out.append(contentsOf: count == 0 ? [0x0A] : [0x2C, 0x0A]) }
        if format == .geojson {
            appendFeature(values, geometry: geometry, to: &out)
        } else {
            appendObject(values, to: &out)
            if format == .ndjson { out.append(0x0A) }
        }
    }

    /// Ends the document: closes JSON arrays, flushes a short table, prints the row count for tables.
    package func finish() {
        switch format {
        case .json: emit(count == 0 ? "]\n" : "\n]\n")
        case .geojson: emit(count == 0 ? "]}\n" : "\n]}\n")
        case .table:
            if widths == nil { flushTable() }
            emit("(\(count) row\(count == 1 ? "" : "s"))\n")
        case .csv, .ndjson: break
        }
    }

    /// Ends a GeoJSON FeatureCollection with more top-level members after `features`, such as
    /// OGC API's `"numberMatched":12,"links":[…]`: `members` is their JSON text without braces.
    package func finish(geoJSONMembers members: String) {
        precondition(format == .geojson, "ResultWriter: finish(geoJSONMembers:) ends GeoJSON only")
        emit((count == 0 ? "]" : "\n]") + (members.isEmpty ? "" : "," + members) + "}\n")
    }

    // MARK: - Formats

    private func appendObject(_ values: [WellValue], to out: inout [UInt8]) {
        out.append(UInt8(ascii: "{"))
        for (k, value) in values.enumerated() {
            if k > 0 { out.append(UInt8(ascii: ",")) }
            out.append(contentsOf: keys[k])
            Self.appendJSON(value, to: &out)
        }
        out.append(UInt8(ascii: "}"))
    }

    /// One row as a GeoJSON Feature, as ``write(_:geometry:)`` writes it into a collection.
    package func feature(_ values: [WellValue], geometry given: String? = nil) -> String {
        var out: [UInt8] = []
        appendFeature(values, geometry: given, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends ``feature(_:geometry:)``'s text as UTF-8: each key's bytes made once per writer,
    /// each value written in place. As `String`s, a page of wells with every field was a large
    /// share of a server's time for uncached city boxes (`perf`, `wells-bench serve`).
    private func appendFeature(_ values: [WellValue], geometry given: String?, to out: inout [UInt8]) {
        out.append(contentsOf: #"{"type":"Feature","#.utf8)
        if let idIndex {
            out.append(contentsOf: #""id":"#.utf8)
            Self.appendJSON(values[idIndex], to: &out)
            out.append(UInt8(ascii: ","))
        }
        out.append(contentsOf: #""geometry":"#.utf8)
        if let given {
            out.append(contentsOf: given.utf8)
        } else if let latIndex, let lonIndex, let lat = values[latIndex].double, let lon = values[lonIndex].double, lat.isFinite, lon.isFinite {
            out.append(contentsOf: #"{"type":"Point","coordinates":["#.utf8)
            Self.appendNumber(lon, to: &out)
            out.append(UInt8(ascii: ","))
            Self.appendNumber(lat, to: &out)
            out.append(contentsOf: "]}".utf8)
        } else {
            out.append(contentsOf: "null".utf8)
        }
        out.append(contentsOf: #","properties":{"#.utf8)
        var first = true
        for (k, value) in values.enumerated() where k != latIndex && k != lonIndex {
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
            out.append(contentsOf: keys[k])
            Self.appendJSON(value, to: &out)
        }
        out.append(contentsOf: "}}".utf8)
    }

    private func flushTable() {
        let header = columns.map(tableCell)
        let cells = pending.map { $0.map { tableCell(Self.text($0)) } }
        var widths = header.map(\.count)
        for row in cells {
            for (k, cell) in row.enumerated() { widths[k] = min(40, max(widths[k], cell.count)) }
        }
        self.widths = widths
        emitTableRow(header)
        emit(widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ") + "\n")
        for row in cells { emitTableRow(row) }
        pending = []
    }

    private func emitTableRow(_ cells: [String]) {
        guard let widths else { return }
        emit(Self.tableLine(cells, widths: widths))
    }

    /// One line of a table, with its line break: each cell on one line, cut to its column's
    /// width with `…` or padded to it (in characters), two spaces between columns, no space at
    /// the end: a line whose first cell is empty or begins with spaces keeps them, and its
    /// columns their places.
    ///
    /// In the standard library's `String`, not Foundation's: `replacingOccurrences`, `padding` and
    /// `trimmingCharacters` bridged every cell through `NSString` on Linux, which took most of a
    /// big table's time (`perf`).
    package static func tableLine(_ cells: [String], widths: [Int]) -> String {
        var line = ""
        for (k, (cell, width)) in zip(cells, widths).enumerated() {
            if k > 0 { line += "  " }
            let flat = oneLine(cell)
            let length = flat.count
            if length > width {
                line += flat.prefix(max(0, width - 1))
                line += "…"
            } else {
                line += flat
                line += String(repeating: " ", count: width - length)
            }
        }
        return trimmingTrailingSpaces(line) + "\n"
    }

    /// `cell` with each line feed made a space and each carriage return dropped.
    private static func oneLine(_ cell: String) -> String {
        guard cell.utf8.contains(where: { $0 == 0x0A || $0 == 0x0D }) else { return cell }
        var scalars = String.UnicodeScalarView()
        for scalar in cell.unicodeScalars where scalar != "\r" { scalars.append(scalar == "\n" ? " " : scalar) }
        return String(scalars)
    }

    /// `line` without the tabs and space separators (Unicode's Zs) at its end.
    private static func trimmingTrailingSpaces(_ line: String) -> String {
        let scalars = line.unicodeScalars
        guard let last = scalars.lastIndex(where: { $0 != "\t" && $0.properties.generalCategory != .spaceSeparator }) else { return "" }
        return String(scalars[...last])
    }

    /// Counts `rows` that the caller wrote in this writer's format, with their separators (`"\n"`
    /// before the first, `",\n"` before each other), into the bytes this writer's text goes to,
    /// such as features of ``appendPinFeature(id:identifier:name:latitude:longitude:to:)``.
    package func appended(rows: Int) {
        count += rows
    }

    /// Appends one pin as the GeoJSON Feature that ``write(_:)`` writes for the columns
    /// `wellkit_id, uwi, name, lat, lon` with `featureID: "uwi"` (a server's feature, whose id is
    /// the well's identifier), byte for byte, into a byte buffer.
    ///
    /// The hot path of a server's `items`: building the feature as `String`s through
    /// ``feature(_:geometry:)`` was a large share of the server's time for city boxes (`perf`, `wells-bench serve`).
    package static func appendPinFeature(id: Int64, identifier: String?, name: String?, latitude: Double, longitude: Double, to out: inout [UInt8]) {
        func appendText(_ text: String?) {
            if var text {
                text.withUTF8 { ExtraJSON.appendQuoted($0, to: &out) }
            } else {
                out.append(contentsOf: "null".utf8)
            }
        }
        out.append(contentsOf: #"{"type":"Feature","id":"#.utf8)
        appendText(identifier)
        out.append(contentsOf: #","geometry":{"type":"Point","coordinates":["#.utf8)
        out.append(contentsOf: number(longitude).utf8)
        out.append(UInt8(ascii: ","))
        out.append(contentsOf: number(latitude).utf8)
        out.append(contentsOf: #"]},"properties":{"wellkit_id":"#.utf8)
        out.append(contentsOf: String(id).utf8)
        out.append(contentsOf: #","uwi":"#.utf8)
        appendText(identifier)
        out.append(contentsOf: #","name":"#.utf8)
        appendText(name)
        out.append(contentsOf: "}}".utf8)
    }

    // MARK: - Values

    /// A value as plain text: numbers in their shortest form, NULL as empty.
    package static func text(_ value: WellValue) -> String {
        switch value {
        case .null: ""
        case .integer(let n): String(n)
        case .real(let d): number(d)
        case .text(let s): s
        case .blob(let data): data.base64EncodedString()
        }
    }

    /// Appends ``number(_:)`` of `value` to `out` as UTF-8.
    package static func appendNumber(_ value: Double, to out: inout [UInt8]) {
        out.append(contentsOf: number(value).utf8)
    }

    /// The shortest text that reads back as the same double: `51.05`, not `51.050000000000004`.
    package static func number(_ value: Double) -> String {
        value.rounded() == value && abs(value) < 1e15 ? String(Int64(value)) : "\(value)"
    }
}
