import Foundation

/// The points of a proximity join (``WellStore/proximity(of:radius:request:pairs:)``), such as
/// schools or water intakes, read from a delimited text file or a GeoJSON file.
///
/// For example:
///
/// ```swift
/// let schools = try PointsFile.read(atPath: "schools.csv")
/// let results = try store.proximity(of: schools.points.map(\.coordinate), radius: 1_000)
/// ```
///
/// A CSV, TSV or other delimited file is read as `wells load` reads a well list, by the same code:
/// the delimiter, encoding, title and comment lines, the latitude/longitude (or point, DMS, datum)
/// columns from their names and values, projected x/y in a CRS given in
/// ``CoordinateOptions``, and the identifier and name columns. Every row must be a point: a row the
/// loader would reject (no coordinates, out of range, a repeated identifier) is an error naming its line.
///
/// A GeoJSON file is a FeatureCollection of Points, one Point Feature, or a Point geometry, in
/// EPSG:4326 or the CRS of its legacy `crs` member. A feature's identifier is its `id`, else the
/// property whose name names one (as the loader picks an identifier column); its name the property
/// the loader would map to `name`.
public struct PointsFile: Sendable {
    /// One point and what identifies it.
    public struct Point: Sendable, Equatable {
        public var coordinate: Coordinate
        /// The 1-based line of a delimited file on which its record starts; a GeoJSON feature's index, from 0.
        public var position: Int
        /// The value of the identifier column or property, when the file has one.
        public var identifier: String?
        /// The value of the name column or property, when the file has one.
        public var name: String?
    }

    public var points: [Point]
    /// Whether the file was GeoJSON: ``Point/position`` is then a feature index, not a line.
    public var isGeoJSON: Bool
    /// The column (or property) identifiers come from, nil when the file has none.
    public var identifierColumn: String?
    /// The column (or property) names come from, nil when the file has none.
    public var nameColumn: String?
    /// What was inferred about a delimited file's columns, as `wells load --dry-run` shows it.
    public var inferences: [Inference] = []

    /// Reads the points of the file at `path`: GeoJSON when it starts with `{` (or is named `.geojson`/`.json`), else delimited text.
    ///
    /// - Parameters:
    ///   - path: The file to read.
    ///   - options: How to read a delimited file, as for a load (CRS, x/y columns, mapping); unused for GeoJSON.
    /// - Throws: ``ImportError`` naming the file, and the line or feature, of what cannot be read as a point
    ///   (`cannotOpen` for a file that cannot be opened).
    public static func read(atPath path: String, options: LoadOptions = LoadOptions()) throws -> PointsFile {
        if try looksLikeGeoJSON(path) { return try readGeoJSON(atPath: path) }
        return try readDelimited(atPath: path, options: options)
    }

    private static func looksLikeGeoJSON(_ path: String) throws -> Bool {
        let lower = path.lowercased()
        if lower.hasSuffix(".geojson") || lower.hasSuffix(".json") { return true }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw ImportError(.cannotOpen, "cannot open the points file: \(String(cString: strerror(errno)))", file: path)
        }
        defer { try? handle.close() }
        let head = (try? handle.read(upToCount: 256)) ?? Data()
        return String(decoding: head, as: UTF8.self).drop { $0.isWhitespace || $0 == "\u{FEFF}" }.first == "{"
    }

    // MARK: - Delimited text

    /// Reads the file as the loader does (``WellStore/scan(csvAt:options:name:)``); every record must be a point.
    private static func readDelimited(atPath path: String, options: LoadOptions) throws -> PointsFile {
        let scan = try WellStore.scan(csvAt: path, options: options)
        if let reject = scan.rejects.first(where: { _ in true }) {
            let more = scan.rejects.count > 1 ? " (and \(grouped(scan.rejects.count - 1)) more rows)" : ""
            throw ImportError(.badPoint, "this row is not a point: \(reject.reason)\(more)", file: path, line: reject.line, column: reject.column)
        }
        guard !scan.records.isEmpty else {
            throw ImportError(.emptyFile, "the points file has a header but no rows", file: path)
        }
        let identifierColumn = scan.mapping.column(for: .identifier)
        let nameColumn = scan.mapping.column(for: .name)
        var names: [String?] = []
        if nameColumn != nil {
            // The names as the loader builds its rows (trimmed, unquoted, decoded), in file order.
            names.reserveCapacity(scan.records.count)
            try RowPipeline.run(scan.records, count: scan.records.count, order: { $0 }, builder: scan.makeBuilder()) { batch in
                for k in 0..<batch.rows.count {
                    let row = batch.row(k)
                    names.append(batch.text(of: row[row.startIndex + RowBatch.Column.name]))
                }
            }
        }
        let points = scan.records.enumerated().map { k, record in
            Point(coordinate: Coordinate(latitude: record.lat, longitude: record.lon), position: record.line,
                  identifier: record.generatedIdentifier ? nil : scan.identifier(of: record), name: names.isEmpty ? nil : names[k])
        }
        return PointsFile(points: points, isGeoJSON: false, identifierColumn: identifierColumn, nameColumn: nameColumn,
                          inferences: scan.summary.inferences)
    }

    // MARK: - GeoJSON

    private static func readGeoJSON(atPath path: String) throws -> PointsFile {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            throw ImportError(.cannotOpen, "cannot read the points file: \(error.localizedDescription)", file: path)
        }
        let object: JSONDocument
        do { object = try JSONDocument.parse(data) } catch let error as QueryError {
            throw ImportError(.badPoint, "not JSON: \(error.reason)" + (error.offset.map { " (at byte \($0))" } ?? ""), file: path)
        }
        guard case .object = object else { throw ImportError(.badPoint, "not a GeoJSON object", file: path) }
        let features: [JSONDocument] = switch object["type"]?.string {
        case "FeatureCollection": object["features"]?.array ?? []
        case "Feature": [object]
        default: [.object([("type", .string("Feature")), ("geometry", object)])]
        }
        guard !features.isEmpty else { throw ImportError(.emptyFile, "the GeoJSON has no features", file: path) }
        let properties = features.map(GeoJSONArea.properties)
        // The identifier and name properties, chosen by name as the loader chooses columns.
        let keys = properties.flatMap { $0.map(\.key) }.uniqued()
        let identifierKey = keys.compactMap { key in ColumnInference.identifierRank(key).map { (key, $0) } }.min { $0.1 < $1.1 }?.0
        let nameKey = (try? ColumnMapping(header: keys.filter { $0 != identifierKey }, requireCoordinates: false))?.column(for: .name)
        let transformer = try GeoJSONArea.crs(of: object).map { try TransformCache.shared.transformer(from: $0, to: "EPSG:4326") }
        var points: [Point] = []
        points.reserveCapacity(features.count)
        for (index, feature) in features.enumerated() {
            func bad(_ reason: String) -> ImportError {
                ImportError(.badPoint, "feature \(index) \(reason); each feature needs a Point geometry, [longitude, latitude]", file: path)
            }
            guard let geometry = feature["geometry"], geometry["type"]?.string == "Point" else {
                throw bad("is " + (feature["geometry"]?["type"]?.string.map { "a \($0)" } ?? "without a geometry"))
            }
            guard let pair = geometry["coordinates"]?.array, pair.count >= 2, var x = pair[0].number, var y = pair[1].number,
                  x.isFinite, y.isFinite else { throw bad("has coordinates that are not [x, y] numbers") }
            if let transformer {
                do { (x, y) = try transformer.transform(x: x, y: y) } catch { throw bad("cannot be converted to EPSG:4326: \(error)") }
            }
            guard abs(y) <= 90, abs(x) <= 180 else { throw bad("is at longitude \(x), latitude \(y), off the globe") }
            let values = properties[index]
            func text(_ key: String?) -> String? {
                key.flatMap { key in values.first { $0.key == key }?.value }.flatMap { $0.isNull ? nil : ResultWriter.text($0) }
            }
            points.append(Point(coordinate: Coordinate(latitude: y, longitude: x), position: index,
                                identifier: text(identifierKey), name: text(nameKey)))
        }
        return PointsFile(points: points, isGeoJSON: true, identifierColumn: identifierKey, nameColumn: nameKey)
    }
}
