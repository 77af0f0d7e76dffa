import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// Files of point features, written to a ``CSVSpool`` as a table: GeoJSON FeatureCollections, KML
/// placemarks and (in Shapefile+Points.swift) point shapefiles.
///
/// Each feature is a record: its attributes (GeoJSON properties, KML `name`, `ExtendedData`'s
/// `Data` and `SimpleData`) are columns, in the order they first appear, so that the loader infers
/// the identifier and the other fields among them as among a CSV's columns; the point is two more
/// columns, `longitude` and `latitude` (or `x` and `y` in a projected CRS), which the load reads
/// as the position. A feature that is not a point keeps its geometry's type in those columns
/// (`LineString, not a point`), so that it is rejected with its number and that reason.
struct FeatureTable {
    /// The columns of the attributes, in order of first appearance.
    var columns: [String] = []
    private var index: [String: Int] = [:]
    /// Each feature's attributes by column, and its point (or why it has none).
    var rows: [(values: [String], x: String, y: String)] = []
    /// The CRS the coordinates are in; nil for WGS 84 longitude and latitude.
    var crs: String?

    mutating func column(_ name: String) -> Int {
        if let k = index[name] { return k }
        columns.append(name)
        index[name] = columns.count - 1
        return columns.count - 1
    }

    mutating func append(_ attributes: [(String, String)], x: String, y: String) {
        var values = [String](repeating: "", count: columns.count)
        for (name, value) in attributes {
            let k = column(name)
            while values.count <= k { values.append("") }
            values[k] = value
        }
        rows.append((values, x, y))
    }

    /// The names of the coordinate columns: `longitude`/`latitude`, or `x`/`y` in a projected CRS,
    /// with `geometry_` before them when an attribute has that name already.
    var pointColumns: (x: String, y: String) {
        let base = crs == nil ? ("longitude", "latitude") : ("x", "y")
        let taken = Set(columns.map { $0.lowercased() })
        return taken.contains(base.0) || taken.contains(base.1) ? ("geometry_" + base.0, "geometry_" + base.1) : base
    }

    /// Writes the table to `spool`, each row as a record of `unit` numbered from 1.
    func write(to spool: CSVSpool, unit: Int) throws {
        let point = pointColumns
        try spool.write(columns + [point.x, point.y], unit: nil, native: 0)
        var fields: [String] = []
        for (k, row) in rows.enumerated() {
            fields.removeAll(keepingCapacity: true)
            fields.append(contentsOf: row.values)
            while fields.count < columns.count { fields.append("") }
            fields.append(row.x)
            fields.append(row.y)
            try spool.write(fields, unit: unit, native: k + 1)
        }
    }

    /// Tells the load which columns hold the point, unless the user named coordinates himself.
    func apply(to options: inout LoadOptions) {
        let point = pointColumns
        let coordinates = options.coordinates
        let userGave = coordinates.xColumn != nil || coordinates.pointColumn != nil
            || options.mapping[WellField.latitude.rawValue] != nil || options.mapping[WellField.longitude.rawValue] != nil
        guard !userGave else { return }
        if let crs {
            if options.coordinates.crs == nil { options.coordinates.crs = crs }
            options.coordinates.xColumn = point.x
            options.coordinates.yColumn = point.y
            options.coordinates.generatedColumns = [point.x, point.y]
        } else {
            options.mapping[WellField.latitude.rawValue] = point.y
            options.mapping[WellField.longitude.rawValue] = point.x
        }
    }
}

extension FeatureTable {
    /// A GeoJSON FeatureCollection (or one Feature), read with the project's JSON reader.
    static func geoJSON(_ file: MappedFile, label: String) throws -> FeatureTable {
        let document: JSONDocument
        do {
            document = try JSONDocument.parse(Data(bytesNoCopy: UnsafeMutableRawPointer(mutating: file.bytes.baseAddress ?? UnsafePointer(bitPattern: 1)!),
                                                   count: file.bytes.count, deallocator: .none))
        } catch {
            throw ImportError(.notText, "the file is not valid GeoJSON: \(error); export it again, or check it with ogrinfo", file: label)
        }
        let features: [JSONDocument]
        switch document["type"]?.string {
        case "FeatureCollection": features = document["features"]?.array ?? []
        case "Feature": features = [document]
        default:
            throw ImportError(.notText, "the file is JSON but not a GeoJSON FeatureCollection (its \"type\" is "
                + "\(document["type"]?.string.map { "\"\($0)\"" } ?? "missing")); give a FeatureCollection of points", file: label)
        }
        var table = FeatureTable()
        if let name = document["crs"]?["properties"]?["name"]?.string {
            table.crs = Self.crsName(name)
        }
        for feature in features {
            var attributes: [(String, String)] = []
            if let id = feature["id"], feature["properties"]?["id"] == nil { attributes.append(("id", Self.text(id))) }
            if case .object(let members)? = feature["properties"] {
                for (key, value) in members { attributes.append((key, Self.text(value))) }
            }
            let geometry = feature["geometry"]
            var x = "", y = ""
            switch geometry?["type"]?.string {
            case "Point":
                if let c = geometry?["coordinates"]?.array, c.count >= 2, let lon = c[0].number, let lat = c[1].number {
                    x = SheetRows.shortest(lon)
                    y = SheetRows.shortest(lat)
                }
            case nil: break
            case let type?:
                x = "\(type), not a point"
                y = x
            }
            table.append(attributes, x: x, y: y)
        }
        return table
    }

    /// `urn:ogc:def:crs:EPSG::26913` → `EPSG:26913`; OGC's CRS84 (longitude, latitude) → nil, WGS 84.
    static func crsName(_ name: String) -> String? {
        let upper = name.uppercased()
        if upper.hasSuffix("CRS84") || upper.hasSuffix("EPSG::4326") || upper == "EPSG:4326" { return nil }
        if let range = upper.range(of: "EPSG::") { return "EPSG:" + upper[range.upperBound...] }
        if let range = upper.range(of: "EPSG/0/") { return "EPSG:" + upper[range.upperBound...] }
        return name
    }

    /// A property's value as a CSV cell: text as it is, numbers in their shortest form, objects and arrays as JSON.
    static func text(_ value: JSONDocument) -> String {
        switch value {
        case .null: return ""
        case .bool(let b): return b ? "true" : "false"
        case .number(let n): return SheetRows.shortest(n)
        case .string(let s): return s
        case .array(let items): return "[" + items.map(json).joined(separator: ",") + "]"
        case .object: return json(value)
        }
    }

    private static func json(_ value: JSONDocument) -> String {
        switch value {
        case .string(let s):
            var out = ""
            ExtraJSON.appendQuoted(s, to: &out)
            return out
        case .object(let members):
            return "{" + members.map { member in json(.string(member.key)) + ":" + json(member.value) }.joined(separator: ",") + "}"
        case .null: return "null"
        default: return text(value)
        }
    }
}

extension FeatureTable {
    /// KML placemarks, parsed as they stream: `name`, `ExtendedData`'s `Data`/`value` and
    /// `SimpleData` as columns, `Point`'s `coordinates` (`lon,lat[,alt]`, WGS 84) as the point.
    static func kml(_ path: String, label: String) throws -> FeatureTable {
        guard let stream = InputStream(fileAtPath: path) else {
            throw ImportError(.cannotOpen, "cannot open file: \(String(cString: strerror(errno)))", file: label)
        }
        let reader = Placemarks()
        let parser = XMLParser(stream: stream)
        parser.delegate = reader
        guard parser.parse() else {
            throw ImportError(.notText, "the KML cannot be read: \(parser.parserError?.localizedDescription ?? "unreadable XML") "
                + "near line \(parser.lineNumber); export it again", file: label)
        }
        return reader.table
    }
}

private final class Placemarks: NSObject, XMLParserDelegate {
    var table = FeatureTable()
    private var attributes: [(String, String)]?
    private var dataName: String?
    private var geometry: String?
    private var coordinates: String?
    private var text = ""
    private var depth = 0

    func parser(_ parser: XMLParser, didStartElement element: String, namespaceURI: String?, qualifiedName: String?,
                attributes attrs: [String: String] = [:]) {
        let local = element.split(separator: ":").last.map(String.init) ?? element
        text = ""
        switch local {
        case "Placemark":
            attributes = []
            geometry = nil
            coordinates = nil
        case "Data", "SimpleData": dataName = attrs["name"]
        case "Point", "LineString", "Polygon", "MultiGeometry", "LinearRing", "Track":
            if attributes != nil && geometry == nil { geometry = local }
        default: break
        }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }
    func parser(_ parser: XMLParser, foundCDATA data: Data) { text += String(decoding: data, as: UTF8.self) }

    func parser(_ parser: XMLParser, didEndElement element: String, namespaceURI: String?, qualifiedName: String?) {
        let local = element.split(separator: ":").last.map(String.init) ?? element
        guard attributes != nil else { return }
        switch local {
        case "name" where dataName == nil: attributes?.append(("name", text.trimmingCharacters(in: .whitespacesAndNewlines)))
        case "SimpleData", "value":
            if let name = dataName { attributes?.append((name, text)) }
            if local == "SimpleData" { dataName = nil }
        case "Data": dataName = nil
        case "coordinates" where coordinates == nil: coordinates = text
        case "Placemark":
            var x = "", y = ""
            if geometry == "Point", let c = coordinates {
                let parts = c.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ",")
                if parts.count >= 2 { x = String(parts[0]).trimmingCharacters(in: .whitespaces); y = String(parts[1]).trimmingCharacters(in: .whitespaces) }
            } else if let geometry {
                x = "\(geometry), not a point"
                y = x
            }
            table.append(attributes ?? [], x: x, y: y)
            attributes = nil
        default: break
        }
    }
}
