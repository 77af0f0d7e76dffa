import ArgumentParser
import Foundation
import WellKit

extension OutputFormat: ExpressibleByArgument {}
extension BoundingBox.AntimeridianRule: ExpressibleByArgument {}

/// The filter, sort, paging, field and format options shared by the query commands.
package struct QueryOptions: ParsableArguments {
    package init() {}

    @OptionGroup package var filter: FilterOptions

    @Option(help: ArgumentHelp("Sort by a field or an unmapped column, such as detail.spud_date:desc or extra.DRILLER (as text) (repeatable).", valueName: "field[:asc|desc]"))
    package var sort: [String] = []

    @Option(help: "Return at most this many wells.")
    package var limit: Int?

    @Option(help: "Skip this many wells first.")
    package var offset: Int?

    @Option(help: ArgumentHelp("The fields to print, comma-separated (default: id,uwi,name,lat,lon): fields, extra.NAME for an unmapped source column, or * for every field then every unmapped column.", valueName: "list"))
    package var fields: String?

    @Option(help: "The output format; gpkg (a GeoPackage layer, for QGIS and GDAL) needs --out.")
    package var format: QueryFormat = .table

    @Option(help: ArgumentHelp("Write to this file instead of standard output (beside it, then renamed into place). An existing file is replaced only if it is of the format's kind (a GeoPackage; text that starts as this output does), or with --force.", valueName: "path"))
    package var out: String?

    @Flag(help: "Replace an existing --out file whatever it holds.")
    package var force = false

    @Option(name: .customLong("to-crs"), help: ArgumentHelp("Add x and y columns in this CRS, such as EPSG:3400 (not for GeoJSON, which is always EPSG:4326); for gpkg, the CRS of the layer's points.", valueName: "crs"))
    package var toCRS: String?

    package func validate() throws {
        if format == .gpkg && out == nil {
            throw ValidationError("--format gpkg writes a GeoPackage file: give its path with --out, such as --out wells.gpkg")
        }
        if toCRS != nil && format == .geojson {
            throw ValidationError("--to-crs does not apply to GeoJSON, which RFC 7946 fixes to EPSG:4326 longitude/latitude; use csv or json")
        }
        if let limit, limit < 0 { throw ValidationError("--limit must be zero or more, got '\(limit)'") }
        if let offset, offset < 0 { throw ValidationError("--offset must be zero or more, got '\(offset)'") }
        if let fields, fields.split(separator: ",").allSatisfy({ $0.trimmingSpaces().isEmpty }) {
            throw ValidationError("--fields needs at least one field, such as id,uwi,name; got \(SafeText.quoted(fields))")
        }
    }

    /// The fetch request these options describe.
    package func request() throws -> WellFetchRequest {
        var request = WellFetchRequest(limit: limit, offset: offset)
        try filter.apply(to: &request)
        request.sortDescriptors = try sort.flatMap { $0.split(separator: ",") }.map { try WellSortDescriptor(parsing: String($0)) }
        return request
    }

    /// The fields to print; GeoJSON and GeoPackage always get lat and lon for their geometry, --to-crs needs them for x and y.
    /// `*` is every field, then every unmapped column of `store` (``WellStore/extraColumnNames()``: one
    /// pass over the store), or no such column without a store.
    package func fieldList(in store: WellStore? = nil) throws -> [WellAttribute] {
        var list: [WellAttribute] = []
        for name in (fields ?? "id,uwi,name,lat,lon").split(separator: ",").map({ String($0.trimmingSpaces()) }) {
            guard name == "*" else { list.append(try WellAttribute(keyPath: name)); continue }
            let every = WellAttribute.fields + (try store?.extraColumnNames() ?? []).map(WellAttribute.extra)
            list += every.filter { !list.contains($0) }
        }
        if format == .geojson || format == .gpkg || toCRS != nil {
            for field in [WellAttribute.latitude, .longitude] where !list.contains(field) { list.append(field) }
        }
        return list
    }
}

/// The conditions and the area shared by the query commands and `count`.
package struct FilterOptions: ParsableArguments {
    package init() {}

    @Option(name: .customLong("where"), help: ArgumentHelp(
        "A condition such as 'status = Abandoned' or 'operator contains[cd] \"acme\"' (repeatable; all must hold).",
        valueName: "condition"))
    package var conditions: [String] = []

    @Option(help: ArgumentHelp(
        "Keep only the wells in an area, its boundary included: WKT such as 'POLYGON((-90.1 35,-89.9 35,-89.9 35.2,-90.1 35))', or a GeoJSON file with optional selectors, such as counties.geojson:STATE=47,NAME=Overton or counties.geojson:#12 (the union of the features selected).",
        valueName: "area"))
    package var within: String?

    @Option(name: .customLong("within-crs"), help: ArgumentHelp("The CRS of --within's coordinates when the area does not say (a GeoJSON crs member, SRID=n;); default EPSG:4326.", valueName: "crs"))
    package var withinCRS: String?

    /// Sets the request's predicate (all conditions) and area.
    package func apply(to request: inout WellFetchRequest) throws {
        let predicates = try conditions.map { try WellPredicate(parsing: $0) }
        if !predicates.isEmpty { request.predicate = predicates.count == 1 ? predicates[0] : .and(predicates) }
        if let within { request.within = try AreaArgument(within, option: "--within", crs: withinCRS).union }
    }
}
