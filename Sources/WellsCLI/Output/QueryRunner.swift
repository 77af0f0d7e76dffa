import Foundation
import WellKit

/// Runs a query and streams its rows to standard output or `--out` in the chosen format.
package enum QueryRunner {
    /// - Returns: The number of rows written.
    @discardableResult
    package static func run(store: WellStore, request: WellFetchRequest, options: QueryOptions, distanceFrom center: Coordinate? = nil) throws -> Int {
        let fields = try options.fieldList(in: store)
        let yearsAlone = options.format == .gpkg ? try Self.datesWithYearsAlone(fields, store: store, request: request) : []
        let columns = fields.map { QueryOutput.Column(name: $0.name, kind: yearsAlone.contains($0.name) ? .text : $0.kind) }
            + (center == nil ? [] : [.init(name: "distance_m", kind: .real)])
        return try QueryOutput.write(options: options, columns: columns, store: store.path) { output in
            var rows = 0
            try store.forEachRow(request, fields: fields, distanceFrom: center) { row in
                rows += 1
                var values = row.values
                if center != nil, let meters = values[values.count - 1].double {
                    values[values.count - 1] = .real((meters * 10).rounded() / 10)
                }
                try output.write(values)
            }
            return rows
        }
    }
}

extension QueryRunner {
    /// The date fields among `fields` of which some well of `request` holds a year alone (`1904`):
    /// a GeoPackage's DATE holds full dates only (GDAL drops another value with a warning), so such
    /// a column is written as TEXT, every value as `show` prints it. One pass over those columns.
    static func datesWithYearsAlone(_ fields: [WellAttribute], store: WellStore, request: WellFetchRequest) throws -> Set<String> {
        let dates = fields.filter { $0.kind == .date }
        guard !dates.isEmpty else { return [] }
        var found: Set<String> = []
        try store.forEachRow(request, fields: dates) { row in
            for (k, field) in dates.enumerated() where !found.contains(field.name) {
                if let text = row.values[k].description, text.utf8.count == 4 { found.insert(field.name) }
            }
        }
        return found
    }
}

extension CoordinateTransformer {
    /// The `x` and `y` columns of `--to-crs`: the position in the target CRS, to the millimetre.
    package func outputXY(longitude: Double, latitude: Double) throws -> [WellValue] {
        let p = try transform(x: longitude, y: latitude)
        return [.real((p.x * 1000).rounded() / 1000), .real((p.y * 1000).rounded() / 1000)]
    }
}

/// Standard output with a 64 KiB buffer.
package final class StandardOutput {
    private var buffer = ""

    package func write(_ text: String) {
        buffer += text
        if buffer.utf8.count >= 1 << 16 { flush() }
    }

    package func flush() {
        Terminal.writeStandardOutput(buffer)
        buffer = ""
    }
}
