/// A change to a load's options that puts a misplaced file's wells where the file says they are,
/// found by trying the usual slips on the whole file (``ImportError/Remedy/relocate(_:)``).
public struct PlacementFix: Sendable, Equatable {
    /// What the slip was, such as "the longitudes lost their minus sign".
    public var slip: String
    /// How many of the wells checked land where their rows say with the fix, and how many were checked.
    public var fits = 0
    public var checked = 0
    /// Read unsigned longitudes as west (``CoordinateOptions/impliedWest``).
    public var impliedWest = false
    /// Read unsigned latitudes as south (``CoordinateOptions/impliedSouth``).
    public var impliedSouth = false
    /// Field → column, for `lat` and `lon` (``LoadOptions/mapping``).
    public var mapping: [String: String] = [:]
    /// The CRS and x/y columns to read instead (``CoordinateOptions``).
    public var crs: String?
    public var xColumn: String?
    public var yColumn: String?
    /// Take out ``CoordinateOptions/impliedWest`` (``CoordinateOptions/impliedSouth``): given by
    /// habit to a list that is not west (south), it put the wells in the wrong hemisphere.
    public var withoutImpliedWest = false
    public var withoutImpliedSouth = false
    /// Read degrees, minutes and seconds (``CoordinateOptions/dms``).
    public var dms = false
    /// Divide the coordinates by this number (``CoordinateOptions/degreeDivisor``).
    public var degreeDivisor: Double?
    /// Read longitudes over 180 as west (``CoordinateOptions/longitudes0To360``).
    public var longitudes0To360 = false
    /// Read numbers with a decimal comma (``CoordinateOptions/decimalComma``).
    public var decimalComma = false

    /// The settings in the API's terms.
    public var apiText: String {
        var parts: [String] = []
        if impliedWest { parts.append(LoadRemedy.impliedWest.apiText) }
        if impliedSouth { parts.append(LoadRemedy.impliedSouth.apiText) }
        if withoutImpliedWest { parts.append("CoordinateOptions.impliedWest = false") }
        if withoutImpliedSouth { parts.append("CoordinateOptions.impliedSouth = false") }
        if dms { parts.append(LoadRemedy.parseDMS.apiText) }
        if let degreeDivisor { parts.append(LoadRemedy.degreeDivisor(degreeDivisor).apiText) }
        if longitudes0To360 { parts.append(LoadRemedy.longitudes0To360.apiText) }
        if decimalComma { parts.append(LoadRemedy.decimalComma.apiText) }
        for (field, column) in mapping.sorted(by: { $0.key < $1.key }) { parts.append(#"LoadOptions.mapping["\#(field)"] = "\#(column)""#) }
        if let crs { parts.append(#"CoordinateOptions.crs = "\#(crs)""#) }
        if let xColumn, let yColumn { parts.append(#"CoordinateOptions.xColumn = "\#(xColumn)", yColumn = "\#(yColumn)""#) }
        return parts.joined(separator: ", ")
    }
}
