import Foundation
import WellKit

/// The areas of `--within` and `count --by-area`: WKT on the command line, or a polygon file with
/// optional selectors.
///
///     POLYGON((-90.1 35,-89.9 35,-89.9 35.2,-90.1 35))     WKT, EPSG:4326 (SRID=n; for another CRS)
///     counties.geojson                                     every feature of a GeoJSON file
///     counties.geojson:STATE=47,NAME=Overton               the features whose properties equal these
///     counties.geojson:#12                                 feature 12 (counted from 0)
///     counties.geojson:STATE=42:NAME                       count --by-area: PA's counties, labelled by NAME
///
/// A segment with `=` selects features (all its pairs must hold; values compare as text), `#N`
/// picks one feature, and a segment of bare names lists the properties `count --by-area` prints.
/// A `.wkt` file holds WKT; a `.shp` file is an ESRI shapefile. The file's CRS comes from its `crs`
/// member (GeoJSON), `SRID=n;` (WKT) or `.prj` (shapefile), else
/// `--within-crs`, else EPSG:4326.
struct AreaArgument {
    /// The areas selected, in file order.
    var areas: [Area]
    /// The properties to print per area (count --by-area), when named.
    var labels: [String]?
    /// The file the areas came from, nil for WKT.
    var path: String?

    /// Reads `spec`, the value of `option` (for messages), in `crs` unless the input says its own.
    init(_ spec: String, option: String, crs: String?) throws {
        let trimmed = spec.trimmingCharacters(in: .whitespacesAndNewlines)
        let head = trimmed.prefix(12).uppercased()
        if head.hasPrefix("POLYGON") || head.hasPrefix("MULTIPOLYGON") || head.hasPrefix("SRID=") {
            do { areas = [try Area(wkt: trimmed, crs: crs)] } catch let error as QueryError {
                throw AreaInputError("\(option): \(error.reason)", exitCode: 64)
            }
            return
        }
        // The longest prefix that names a file; the rest are selectors.
        var parts = spec.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        var path = spec, selectors: [String] = []
        while parts.count > 1, !FileManager.default.fileExists(atPath: parts.joined(separator: ":")) {
            selectors.insert(parts.removeLast(), at: 0)
            path = parts.joined(separator: ":")
        }
        guard FileManager.default.fileExists(atPath: path) else {
            throw AreaInputError("\(option) \(SafeText.quoted(spec)): no such file, and not WKT (POLYGON((lon lat, …)) or MULTIPOLYGON(…))", exitCode: 66)
        }
        self.path = path
        var all: [Area]
        do {
            switch URL(fileURLWithPath: path).pathExtension.lowercased() {
            case "wkt", "txt":
                do { all = [try Area(wkt: try String(contentsOfFile: path, encoding: .utf8), crs: crs)] } catch let error as QueryError {
                    throw AreaInputError("\(path): \(error.reason)", exitCode: 65)
                }
            case "shp":
                all = try Area.features(shapefileAt: URL(fileURLWithPath: path), crs: crs)
            default:
                all = try Area.features(geoJSONAt: URL(fileURLWithPath: path), crs: crs)
            }
        } catch let error as QueryError {
            throw AreaInputError(error.reason, exitCode: 65)   // the library's message names the file and the feature
        }
        let total = all.count
        for selector in selectors {
            if selector.hasPrefix("#") {
                guard let index = Int(selector.dropFirst()), all.indices.contains(index) else {
                    throw AreaInputError("\(option): \(selector) is not a feature of \(path), which has \(all.count) (#0 to #\(all.count - 1))", exitCode: 64)
                }
                all = [all[index]]
            } else if selector.contains("=") {
                let pairs = try selector.split(separator: ",").map { pair -> (String, String) in
                    let sides = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
                    guard sides.count == 2, !sides[0].isEmpty else {
                        throw AreaInputError("\(option): \(SafeText.quoted(String(pair))) is not KEY=VALUE", exitCode: 64)
                    }
                    return (sides[0], sides[1])
                }
                all = all.filter { area in pairs.allSatisfy { area.property($0.0)?.description == $0.1 } }
            } else if !selector.isEmpty {
                labels = selector.split(separator: ",").map(String.init)
            }
        }
        guard !all.isEmpty else {
            throw AreaInputError("\(option): no feature of \(path) (\(total) features) matches \(selectors.joined(separator: ":"))", exitCode: 65)
        }
        areas = all
    }

    /// The one area of `--within`: the union of the selected features.
    var union: Area {
        get throws { areas.count == 1 ? areas[0] : try Area(union: areas) }
    }
}

/// An area that cannot be read: the message names the input and what to do; usage (64), data (65)
/// or a missing file (66).
struct AreaInputError: Error, CustomStringConvertible {
    let description: String
    let exitCode: Int32

    init(_ description: String, exitCode: Int32) {
        self.description = description
        self.exitCode = exitCode
    }
}
