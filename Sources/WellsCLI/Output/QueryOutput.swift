import ArgumentParser
import Foundation
import WellKit

/// The output formats of the query commands: the text formats of ``OutputFormat`` and a GeoPackage file.
package enum QueryFormat: String, CaseIterable, ExpressibleByArgument, Sendable {
    case table, csv, json, ndjson, geojson, gpkg

    /// The text format, nil for a GeoPackage.
    package var text: OutputFormat? { OutputFormat(rawValue: rawValue) }
}

/// Where the rows of a query command go: standard output, or the `--out` file, as text or as a
/// GeoPackage layer (``GeoPackageWriter``); the `--to-crs` position as `x` and `y` columns, or as a
/// GeoPackage's geometry.
///
/// A file is written beside its target and renamed over it at the end (a failure or Ctrl-C leaves
/// whatever was there); it is never one of the command's inputs or the store's files, and an existing
/// file is replaced only when it is of the kind this format writes (a GeoPackage; text whose first
/// line is this output's), or with `--force`, as `wells generate --out` and `wells load --rejects` do.
package final class QueryOutput {
    /// A column: its name and the kind of its values (the GeoPackage column type).
    package typealias Column = GeoPackageWriter.Column

    private enum Sink {
        case text(ResultWriter)
        case geoPackage(GeoPackageWriter)
    }

    private let sink: Sink
    private let transformer: CoordinateTransformer?
    private let latIndex: Int?
    private let lonIndex: Int?

    private init(sink: Sink, transformer: CoordinateTransformer?, columns: [Column]) {
        self.sink = sink
        self.transformer = transformer
        latIndex = columns.firstIndex { $0.name == "lat" }
        lonIndex = columns.firstIndex { $0.name == "lon" }
    }

    /// Writes one row, its values in the order of the columns.
    package func write(_ values: [WellValue]) throws {
        var point: (x: Double, y: Double)?
        if let latIndex, let lonIndex, let lat = values[latIndex].double, let lon = values[lonIndex].double {
            point = (lon, lat)
        }
        switch sink {
        case .text(let writer):
            guard let transformer else { return writer.write(values) }
            writer.write(values + (try point.map { try transformer.outputXY(longitude: $0.x, latitude: $0.y) } ?? [.null, .null]))
        case .geoPackage(let writer):
            if let transformer, let p = point { point = try transformer.transform(x: p.x, y: p.y) }
            try writer.add(values, x: point?.x, y: point?.y)
        }
    }

    /// Runs `body` with an output for `columns` in the format of `options`, and ends the document.
    ///
    /// - Parameter inputs: The files the command reads (besides `--within`'s and the store's), which `--out` may not name.
    /// - Throws: A usage error (exit 64) for an `--out` that names an input, or an existing file of another kind;
    ///   exit 73 when the file cannot be created; what `body` throws.
    package static func write<R>(options: QueryOptions, columns: [Column], store: String, inputs: [String] = [],
                                 _ body: (QueryOutput) throws -> R) throws -> R {
        let transformer = try options.toCRS.map { try TransformCache.shared.transformer(from: "EPSG:4326", to: $0) }
        guard let out = options.out else {
            let output = StandardOutput()
            let writer = ResultWriter(terminal: options.format.text ?? .table, columns: textColumns(columns, transformer)) { output.write($0) }
            let result = try body(QueryOutput(sink: .text(writer), transformer: transformer, columns: columns))
            writer.finish()
            output.flush()
            return result
        }
        try refuse(out, options: options, columns: textColumns(columns, transformer), store: store, inputs: inputs)
        var started = false
        do {
            guard let format = options.format.text else {
                return try GeoPackageWriter.write(to: out, layer: GeoPackageWriter.layerName(forFileAt: out), columns: columns,
                                                  crs: options.toCRS ?? "EPSG:4326") { gpkg in
                    started = true
                    return try body(QueryOutput(sink: .geoPackage(gpkg), transformer: transformer, columns: columns))
                }
            }
            return try Wells.Generate.replacing(out) { temporary in
                let file = try FileOutput(path: temporary)
                started = true
                let writer = ResultWriter(format: format, columns: textColumns(columns, transformer)) { file.write($0) }
                let result = try body(QueryOutput(sink: .text(writer), transformer: transformer, columns: columns))
                writer.finish()
                try file.close()
                return result
            }
        } catch let error where !started || error is FileOutput.Failure {
            throw Wells.Generate.cannotCreate(out, error)
        }
    }

    /// Writes text already rendered (a `wells list` page) to standard output or to `--out`, as ``write(options:columns:store:inputs:_:)`` would.
    package static func write(text: String, options: QueryOptions, columns: [String], store: String) throws {
        guard let out = options.out else { return Terminal.writeStandardOutput(text) }
        try refuse(out, options: options, columns: columns, store: store, inputs: [])
        do {
            try Wells.Generate.replacing(out) { temporary in
                let file = try FileOutput(path: temporary)
                file.write(text)
                try file.close()
            }
        } catch {
            throw Wells.Generate.cannotCreate(out, error)
        }
    }

    /// The text columns: the columns, then `x` and `y` for `--to-crs`.
    private static func textColumns(_ columns: [Column], _ transformer: CoordinateTransformer?) -> [String] {
        columns.map(\.name) + (transformer == nil ? [] : ["x", "y"])
    }

    /// Refuses an `--out` that names the store, an input, or an existing file of another kind (without `--force`).
    private static func refuse(_ out: String, options: QueryOptions, columns: [String], store: String, inputs: [String]) throws {
        var protected = OutputPaths.storeFiles(store).map { (path: $0, what: "the store or one of its files") }
        if let within = options.filter.within {
            // A GeoJSON area may carry selectors after its path (counties.geojson:NAME=Overton).
            for path in [within, String(within.prefix { $0 != ":" })] where FileManager.default.fileExists(atPath: path) {
                protected.append((path, "the --within file"))
            }
        }
        protected += inputs.map { ($0, "an input file") }
        try OutputPaths.refuse(out, option: "--out", protected: protected)
        switch options.format {
        case .gpkg:
            try OutputPaths.refuseToReplace(out, option: "--out", force: options.force, kind: "a GeoPackage",
                                            recognized: GeoPackageWriter.isGeoPackage(atPath:))
        case .csv:
            try OutputPaths.refuseToReplace(out, option: "--out", force: options.force, kind: "this command's CSV",
                                            firstLine: CSVWriter.line(columns))
        case .json:
            try OutputPaths.refuseToReplace(out, option: "--out", force: options.force, kind: "JSON", firstLine: "[")
        case .ndjson:
            try OutputPaths.refuseToReplace(out, option: "--out", force: options.force, kind: "NDJSON", firstLine: "{")
        case .geojson:
            try OutputPaths.refuseToReplace(out, option: "--out", force: options.force, kind: "a GeoJSON FeatureCollection",
                                            firstLine: #"{"type":"FeatureCollection""#)
        case .table:
            try OutputPaths.refuseToReplace(out, option: "--out", force: options.force, kind: "a table of these columns",
                                            firstLine: columns.first ?? "")
        }
    }
}

/// A new file written through a 64 KiB buffer; a failed write is kept and thrown by ``close()``.
private final class FileOutput {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    private let handle: FileHandle
    private var buffer = ""
    private var failure: (any Error)?

    init(path: String) throws {
        guard FileManager.default.createFile(atPath: path, contents: nil), let handle = FileHandle(forWritingAtPath: path) else {
            throw Failure(description: String(cString: strerror(errno)))
        }
        self.handle = handle
    }

    func write(_ text: String) {
        buffer += text
        if buffer.utf8.count >= 1 << 16 { flush() }
    }

    private func flush() {
        guard failure == nil, !buffer.isEmpty else { return }
        do { try handle.write(contentsOf: Data(buffer.utf8)) } catch { failure = error }
        buffer = ""
    }

    func close() throws {
        flush()
        try? handle.close()
        if let failure { throw Failure(description: (failure as NSError).localizedDescription) }
    }
}
