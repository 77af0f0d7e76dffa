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

    /// - Parameters:
    ///   - columns: The column names, in row order. GeoJSON needs `lat` and `lon` among them.
    ///   - tableCell: Makes each cell and column name of a table safe to show, for example by escaping
    ///     control characters, before it is measured and padded; CSV and JSON are written as they are.
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
            emit(CSVWriter.line(values.map(Self.text)) + "\n")
        case .json:
            emit((count == 0 ? "\n" : ",\n") + object(values))
        case .ndjson:
            emit(object(values) + "\n")
        case .geojson:
            emit((count == 0 ? "\n" : ",\n") + feature(values, geometry: geometry))
        case .table:
            if widths == nil {
                pending.append(values)
                if pending.count == 100 { flushTable() }
            } else {
                emitTableRow(values.map { tableCell(Self.text($0)) })
            }
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

    private func object(_ values: [WellValue]) -> String {
        var out = "{"
        for (k, (column, value)) in zip(columns, values).enumerated() {
            if k > 0 { out += "," }
            ExtraJSON.appendQuoted(column, to: &out)
            out += ":" + Self.json(value)
        }
        return out + "}"
    }

    /// One row as a GeoJSON Feature, as ``write(_:)`` writes it into a collection.
    package func feature(_ values: [WellValue], geometry given: String? = nil) -> String {
        var geometry = given ?? "null"
        if given == nil, let latIndex, let lonIndex, let lat = values[latIndex].double, let lon = values[lonIndex].double {
            geometry = #"{"type":"Point","coordinates":[\#(Self.number(lon)),\#(Self.number(lat))]}"#
        }
        var properties = "{"
        var first = true
        for (k, (column, value)) in zip(columns, values).enumerated() where k != latIndex && k != lonIndex {
            if !first { properties += "," }
            first = false
            ExtraJSON.appendQuoted(column, to: &properties)
            properties += ":"
            Self.appendJSON(value, to: &properties)
        }
        let id = idIndex.map { #""id":\#(Self.json(values[$0])),"# } ?? ""
        return #"{"type":"Feature",\#(id)"geometry":\#(geometry),"properties":\#(properties)}}"#
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
        let line = zip(cells, widths).map { cell, width in
            let flat = cell.replacingOccurrences(of: "\n", with: " ").replacingOccurrences(of: "\r", with: "")
            return flat.count > width ? String(flat.prefix(width - 1)) + "…" : flat.padding(toLength: width, withPad: " ", startingAt: 0)
        }
        emit(line.joined(separator: "  ").trimmingCharacters(in: .whitespaces) + "\n")
    }

    /// Emits rows already written in this writer's format, with their separators (`"\n"` before
    /// the first, `",\n"` before each other), such as features of ``appendPinFeature(id:name:latitude:longitude:to:)``.
    package func append(raw text: String, rows: Int) {
        emit(text)
        count += rows
    }

    /// Appends one pin as the GeoJSON Feature that ``write(_:)`` writes for the columns
    /// `wellkit_id, uwi, name, lat, lon` with `featureID: "uwi"` (a server's feature, whose id is
    /// the well's identifier), byte for byte, into a byte buffer.
    ///
    /// The hot path of a server's `items`: building the feature as `String`s through
    /// ``feature(_:geometry:)`` took 18% of the server's time for city boxes (`perf`, `wells-bench serve`).
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

    /// A value as a JSON literal: a number, a string or null.
    package static func json(_ value: WellValue) -> String {
        var out = ""
        appendJSON(value, to: &out)
        return out
    }

    /// Appends ``json(_:)`` of `value` to `out`, a string quoted in place (a feature's properties
    /// are written this way, with no string made per value).
    package static func appendJSON(_ value: WellValue, to out: inout String) {
        switch value {
        case .null: out += "null"
        case .integer(let n): out += String(n)
        case .real(let d): out += d.isFinite ? number(d) : "null"
        case .text(let s): ExtraJSON.appendQuoted(s, to: &out)
        case .blob(let data): out += "\"\(data.base64EncodedString())\""
        }
    }

    /// The shortest text that reads back as the same double: `51.05`, not `51.050000000000004`.
    package static func number(_ value: Double) -> String {
        value.rounded() == value && abs(value) < 1e15 ? String(Int64(value)) : "\(value)"
    }
}
