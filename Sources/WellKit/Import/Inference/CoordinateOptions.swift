import Foundation

/// How the loader reads each well's position: columns, coordinate reference system, datum per row, DMS text.
///
/// For example, Indiana's list has only NAD83 / UTM zone 16N metres:
///
/// ```swift
/// var options = LoadOptions()
/// options.coordinates = CoordinateOptions(crs: "EPSG:26916", xColumn: "Utmx", yColumn: "Utmy")
/// ```
///
/// Pins are always stored in EPSG:4326 with x = longitude; the source values and CRS are kept in
/// `details.source_x`, `source_y` and `source_crs`, and the load records which PROJ operation
/// converted them and its stated accuracy.
public struct CoordinateOptions: Sendable, Equatable {
    /// The CRS of the coordinate columns; nil means EPSG:4326 (WGS 84 degrees).
    public var crs: String?
    /// The easting/longitude column, when not the automatic longitude column.
    public var xColumn: String?
    /// The northing/latitude column, when not the automatic latitude column.
    public var yColumn: String?
    /// A column naming each row's datum, such as USGS NWIS `dec_coord_datum_cd`.
    public var datumColumn: String?
    /// Datum names in that column → CRS codes. Names are compared without case.
    public var datums: [String: String] = CoordinateOptions.defaultDatums
    /// Parse coordinates as degrees-minutes-seconds: `875013.67` or `36°54'1.2"N`.
    public var dms = false
    /// With ``dms``: longitudes without a sign or hemisphere are west (negated), as in US lists.
    public var impliedWest = false
    /// With ``dms``: longitudes without a sign or hemisphere are east, and need no inference.
    public var impliedEast = false
    /// Latitudes without a sign or hemisphere are south (negated): a southern list whose minus signs
    /// were lost, or DMS written without its `S`.
    public var impliedSouth = false
    /// The datum of rows whose ``datumColumn`` cell is empty; nil rejects such rows as an unknown datum.
    public var emptyDatum: String?
    /// A column holding both coordinates (`POINT (-97.5 35.4)`, `SRID=4326;POINT(…)`, `(35.4, -97.5)`,
    /// `37°36'37.8"N 121°2'17.9"W`), instead of separate latitude and longitude columns.
    /// Inferred from the values, or set by mapping `lat` (and `lon`) to the column.
    public var pointColumn: String?
    /// The coordinates are degrees times this number, as a database that keeps fixed-point degrees
    /// writes them (`36469556` for 36.469556° is 1,000,000): each latitude and longitude is divided
    /// by it before anything else reads it. nil reads degrees as written.
    public var degreeDivisor: Double?
    /// Longitudes run from 0 to 360 east, as in climate and ocean data: one over 180 is read as that
    /// less 360 (274.738694 → -85.261306).
    public var longitudes0To360 = false
    /// Minutes and seconds in columns of their own, beside latitude and longitude columns that hold
    /// whole degrees (`LAT_DEG`, `LAT_MIN`, `LAT_SEC`, `LONG_DEG`, …), as older agency lists keep
    /// them: each coordinate is its degrees plus minutes / 60 plus seconds / 3600, with the degrees'
    /// sign. Inferred from the names and values of such columns; nil reads one column per coordinate.
    public var minutesAndSeconds: MinutesAndSeconds?
    /// Numbers are written with a decimal comma (`36,020983`), as in `;`-separated European files:
    /// coordinates and numeric fields are read so. Inferred from the values when the delimiter is not a comma.
    public var decimalComma = false
    /// Columns the load made itself (the point of a GeoJSON feature, a placemark or a shapefile
    /// record, as `x`/`y`): read as the position, never kept in `details.extra` beside `source_x`/`source_y`.
    var generatedColumns: Set<String> = []

    public init(crs: String? = nil, xColumn: String? = nil, yColumn: String? = nil, datumColumn: String? = nil, dms: Bool = false,
                impliedWest: Bool = false, impliedEast: Bool = false, impliedSouth: Bool = false) {
        self.crs = crs
        self.xColumn = xColumn
        self.yColumn = yColumn
        self.datumColumn = datumColumn
        self.dms = dms
        self.impliedWest = impliedWest
        self.impliedEast = impliedEast
        self.impliedSouth = impliedSouth
    }

    /// The columns of ``minutesAndSeconds``: the minutes of each coordinate, and its seconds when the file has them.
    public struct MinutesAndSeconds: Sendable, Equatable {
        public var latitudeMinutes: String
        public var longitudeMinutes: String
        public var latitudeSeconds: String?
        public var longitudeSeconds: String?

        public init(latitudeMinutes: String, longitudeMinutes: String, latitudeSeconds: String? = nil, longitudeSeconds: String? = nil) {
            self.latitudeMinutes = latitudeMinutes
            self.longitudeMinutes = longitudeMinutes
            self.latitudeSeconds = latitudeSeconds
            self.longitudeSeconds = longitudeSeconds
        }
    }

    /// Common North American datum codes (as NWIS writes them) and their geographic CRSs.
    public static let defaultDatums: [String: String] = [
        "NAD27": "EPSG:4267", "NAD83": "EPSG:4269", "WGS84": "EPSG:4326", "WGS 84": "EPSG:4326",
        "NAD83(HARN)": "EPSG:4152", "NAD83(CSRS)": "EPSG:4617", "NAD83(2011)": "EPSG:6318", "OLDHI": "EPSG:4135",
    ]

    /// What is wrong with the options on their own, before any file is read: an x column without a
    /// y column or the reverse, or x and y columns without their CRS. The loader throws it as an
    /// ``ImportError``; `wells load` checks it while parsing its arguments.
    package var inconsistency: ImportError? {
        if (xColumn == nil) != (yColumn == nil) {
            return ImportError(.invalidOption, "an x column without a y column, or a y column without an x column", remedy: .giveBothXAndY)
        }
        if xColumn != nil && crs == nil {
            return ImportError(.invalidOption, "x and y columns without the CRS they are in", remedy: .crsForXY)
        }
        // Nanodegrees (10⁹) are the finest fixed point in use; 10¹² leaves room and keeps every count of the messages an integer.
        if let degreeDivisor, !(degreeDivisor >= 1 && degreeDivisor <= 1e12) {
            return ImportError(.invalidOption, "the degree divisor must be a number from 1 to 1000000000000, such as 1000000 for degrees written as 36469556; "
                               + "got \(LoadRemedy.number(degreeDivisor))")
        }
        if degreeDivisor != nil && dms {
            return ImportError(.invalidOption, "a degree divisor reads decimal degrees written as whole numbers, not degrees, minutes and seconds: give one of the two")
        }
        if minutesAndSeconds != nil && (dms || degreeDivisor != nil) {
            return ImportError(.invalidOption, "minutes and seconds in columns of their own are read beside whole degrees, "
                               + (dms ? "not with degrees, minutes and seconds in one column (--dms): give one of the two"
                                      : "not with degrees written as whole numbers (a degree divisor): give one of the two"))
        }
        if longitudes0To360 && (impliedWest || impliedEast) {
            return ImportError(.invalidOption, "longitudes from 0 to 360 are all east and carry no sign to imply: give either, not both")
        }
        return nil
    }

    /// Whether the values are projected x and y (metres or feet) rather than degrees: x/y columns, or
    /// a column of points, in a CRS that is not geographic (EPSG:26916, not EPSG:4267). Asks PROJ;
    /// a CRS PROJ does not know counts as projected (the load stops on it with its own error).
    /// Signs and hemispheres (``impliedWest``, ``impliedSouth``, ``dms``) apply to degrees only.
    package var valuesAreProjected: Bool { projectedCRS.projected }

    /// ``valuesAreProjected``, with PROJ's description of the CRS when it knows it (one lookup, which opens its database).
    private var projectedCRS: (projected: Bool, info: CRSInfo?) {
        guard let crs, xColumn != nil || pointColumn != nil else { return (false, nil) }
        let info = try? CRSInfo.describe(crs)
        return (info?.isGeographic != true, info)
    }

    /// The options that read degrees (``impliedWest``, ``impliedEast``, ``impliedSouth``, ``dms``,
    /// ``degreeDivisor``, ``longitudes0To360``, ``minutesAndSeconds``)
    /// given with projected values, which they would not change: an error naming them, worded by `describe`.
    package func degreeOptionsOnProjectedValues(describe: (LoadRemedy) -> String) -> ImportError? {
        let given: [LoadRemedy] = [(impliedWest, LoadRemedy.impliedWest), (impliedEast, .impliedEast), (impliedSouth, .impliedSouth),
                                   (dms, .parseDMS), (degreeDivisor != nil, .degreeDivisor(degreeDivisor ?? 1)),
                                   (longitudes0To360, .longitudes0To360), (minutesAndSeconds != nil, .minutesAndSeconds)].filter(\.0).map(\.1)
        guard !given.isEmpty, let crs else { return nil }
        let (projected, info) = projectedCRS
        guard projected else { return nil }
        let columns = xColumn.map { "the x and y columns (\($0), \(yColumn ?? ""))" } ?? "the points of \(pointColumn ?? "")"
        let name = info.map { " (\($0.name))" } ?? ""
        let options = given.map(describe).joined(separator: " and ")
        return ImportError(.invalidOption, "\(options) read\(given.count == 1 ? "s" : "") degrees, but \(columns) are in \(crs)\(name), "
                           + "a projected CRS, whose values are metres or feet, not degrees: "
                           + "load without \(given.count == 1 ? "it" : "them"), or give the CRS the values are in if they are degrees")
    }

    /// Whether positions need PROJ at all.
    var needsTransform: Bool {
        datumColumn != nil || !(crs == nil || crs == "EPSG:4326" || crs == "4326")
    }

    /// The CRS a row's coordinates are in, given its datum cell and ``datumLookup``.
    func crs(forDatum datum: String?, in lookup: [String: String]) -> String? {
        guard datumColumn != nil else { return crs ?? "EPSG:4326" }
        var name = String((datum ?? "").trimmingSpaces())
        if name.isEmpty, let emptyDatum { name = emptyDatum }
        return lookup[Self.datumKey(name)]
    }

    /// ``datums`` by ``datumKey(_:)``, with each CRS's own code as a name too (`EPSG:4267`, `4267`).
    var datumLookup: [String: String] {
        var lookup: [String: String] = [:]
        for (name, crs) in datums {
            lookup[Self.datumKey(name)] = crs
            lookup[Self.datumKey(crs)] = crs
        }
        return lookup
    }

    /// A datum name as the key it is looked up by, so that the usual spellings of one datum meet:
    /// `NAD 27`, `NAD-27`, `nad27`, `NAD1927`, `North American Datum 1927`, `GCS_North_American_1927`
    /// → `NAD27`; `WGS 1984` → `WGS84`; `NAD83(HARN)` → `NAD83HARN`; `4267` → `EPSG:4267`.
    static func datumKey(_ name: String) -> String {
        var key = name.uppercased().filter { !" -_.()/".contains($0) }
        if key.allSatisfy(\.isNumber), !key.isEmpty { return "EPSG:" + key }
        if key.hasPrefix("GCS") { key.removeFirst(3) }
        if key.hasPrefix("D") && key.dropFirst().hasPrefix("NORTHAMERICAN") { key.removeFirst() }   // ESRI's D_North_American_1927
        for (long, short) in [("NORTHAMERICANDATUM", "NAD"), ("NORTHAMERICAN", "NAD"), ("WORLDGEODETICSYSTEM", "WGS")] where key.hasPrefix(long) {
            key = short + key.dropFirst(long.count)
        }
        for (year, short) in [("1927", "27"), ("1983", "83"), ("1984", "84"), ("1972", "72")] {
            for datum in ["NAD", "WGS"] where key.hasPrefix(datum + year) {
                key = datum + short + key.dropFirst(datum.count + year.count)
            }
        }
        return key
    }
}
