import Foundation

/// An error that stops a load, with the file, line and column it concerns and how to fix it.
///
/// For example:
///
/// ```
/// wells.csv: no latitude/longitude columns among: Utmx, Utmy, x, y. If a column holds decimal
/// degrees or DMS, name it in LoadOptions.mapping …
/// ```
///
/// The remedy is also data, ``remedy``, so that a program can act on it:
///
/// ```swift
/// catch let error as ImportError {
///     if case .giveCRS(let candidates)? = error.remedy { print(candidates.map(\.crs)) }
/// }
/// ```
public struct ImportError: Error, CustomStringConvertible, Sendable {
    /// What went wrong, in a form that `switch` and `catch` can match.
    public enum Code: String, Sendable {
        case cannotOpen
        case emptyFile
        case noCoordinateColumns
        case unknownColumn
        case unknownField
        case duplicateHeader
        case malformedHeader
        /// The header has more columns than ``WellStore/maximumColumns``.
        case tooManyColumns
        case invalidOption
        case interrupted
        case notText
        case ambiguousCoordinates
        /// Most wells lie outside the places their rows name, or outside the area of use of their CRS.
        case misplaced
        /// Records were read, but every one was rejected.
        case nothingLoaded
        /// A row or feature of a points file (``PointsFile``) is not a point.
        case badPoint
        /// A stream's copy would pass ``LoadOptions/spoolLimit`` or the free space of the temporary folder.
        case tooLarge
    }

    /// A load option that names a column.
    public enum ColumnOption: Sendable, Equatable {
        /// ``LoadOptions/identifier`` as `.column(_:)`.
        case identifier
        /// ``LoadOptions/mapping`` for the field of this name, such as "lat".
        case mapping(field: String)
        /// ``CoordinateOptions/xColumn``.
        case xColumn
        /// ``CoordinateOptions/yColumn``.
        case yColumn
        /// ``CoordinateOptions/datumColumn``.
        case datumColumn
        /// A minutes column of ``CoordinateOptions/minutesAndSeconds``.
        case minutesColumn
        /// A seconds column of ``CoordinateOptions/minutesAndSeconds``.
        case secondsColumn
    }

    /// A CRS that projected x/y columns could be in, with the evidence from the file.
    public struct CRSCandidate: Sendable, Equatable {
        public var crs: String
        public var xColumn: String
        public var yColumn: String
        public var evidence: String
    }

    /// How to fix the error, as data; ``message`` says it in the API's words.
    public enum Remedy: Sendable, Equatable {
        /// Name the latitude and longitude columns in ``LoadOptions/mapping``, or, for projected x/y,
        /// give ``CoordinateOptions/crs`` with ``CoordinateOptions/xColumn`` and ``CoordinateOptions/yColumn``.
        case mapColumns
        /// Give ``CoordinateOptions/crs``, ``CoordinateOptions/xColumn`` and ``CoordinateOptions/yColumn``:
        /// one of the candidates found in the file, or, when there are none, the CRS the file's x/y are in.
        case giveCRS(candidates: [CRSCandidate])
        /// Set ``CoordinateOptions/crs`` for the x and y columns given.
        case crsForXY
        /// Give both ``CoordinateOptions/xColumn`` and ``CoordinateOptions/yColumn``, or neither.
        case giveBothXAndY
        /// Say which hemisphere unsigned DMS longitudes are in (``CoordinateOptions/impliedWest``).
        case impliedHemisphere
        /// Name a column the header has (``ImportError/header``) in `option`, instead of `given`.
        case chooseColumn(ColumnOption, given: String)
        /// Map one of the valid fields (``WellField/mappable``) instead of `given`.
        case chooseField(given: String)
        /// Decompress the gzip file first.
        case decompress
        /// Load with the settings of the fix (nil: none was found), or with ``LoadOptions/checkLocations`` off to load as given, flagged.
        case relocate(PlacementFix?)
    }

    public let code: Code
    /// What went wrong, without the remedy.
    public let reason: String
    public var file: String?
    public var line: Int?
    public var column: String?
    /// The file's header, when the error is about its columns.
    public var header: [String]?
    /// How to fix it, when WellKit knows.
    public var remedy: Remedy?

    public init(_ code: Code, _ reason: String, remedy: Remedy? = nil, header: [String]? = nil,
                file: String? = nil, line: Int? = nil, column: String? = nil) {
        self.code = code
        self.reason = reason
        self.remedy = remedy
        self.header = header
        self.file = file
        self.line = line
        self.column = column
    }

    /// A header's columns for a message: at most about 200 characters of them, then how many more,
    /// so that a file of one huge line cannot make a message as long.
    public static func listing(_ header: [String]) -> String {
        var text = ""
        for (k, column) in header.enumerated() {
            let shown = column.count > 60 ? column.prefix(60) + "…" : Substring(column)
            if !text.isEmpty && text.count + shown.count > 200 {
                return text + ", … (\(header.count - k) more of \(header.count) columns)"
            }
            text += (text.isEmpty ? "" : ", ") + shown
        }
        return text
    }

    /// The reason and, when there is one, the remedy in the API's words.
    public var message: String {
        guard let remedy else { return reason }
        let columns = Self.listing(header ?? [])
        switch remedy {
        case .mapColumns:
            return reason + " If a column holds decimal degrees or DMS, name it in LoadOptions.mapping[\"lat\"] and [\"lon\"];"
                + " if the file has projected x/y (such as UTM metres), set LoadOptions.coordinates.crs, .xColumn and .yColumn"
        case .giveCRS(let candidates) where candidates.isEmpty:
            return reason + " If a column holds decimal degrees or DMS, name it in LoadOptions.mapping[\"lat\"] and [\"lon\"];"
                + " if the file has projected x/y, set LoadOptions.coordinates.crs (such as EPSG:26916), .xColumn and .yColumn"
        case .giveCRS(let candidates):
            return reason + " The file has projected x/y columns; candidate CRSs (set LoadOptions.coordinates.crs, .xColumn and .yColumn):"
                + candidates.map { "\n  \($0.crs) for \($0.xColumn)/\($0.yColumn): \($0.evidence)" }.joined()
        case .crsForXY:
            return reason + "; set LoadOptions.coordinates.crs, the CRS of those columns, such as EPSG:26916 for UTM zone 16N metres"
        case .giveBothXAndY:
            return reason + "; set both LoadOptions.coordinates.xColumn and .yColumn, or neither"
        case .impliedHemisphere:
            return reason + "; set LoadOptions.coordinates.impliedWest to true (the Americas) or false"
        case .chooseColumn(let option, let given):
            let name = switch option {
            case .identifier: "LoadOptions.identifier .column(\"\(given)\")"
            case .mapping(let field): "LoadOptions.mapping[\"\(field)\"] = \"\(given)\""
            case .xColumn: "LoadOptions.coordinates.xColumn \"\(given)\""
            case .yColumn: "LoadOptions.coordinates.yColumn \"\(given)\""
            case .datumColumn: "LoadOptions.coordinates.datumColumn \"\(given)\""
            case .minutesColumn: "LoadOptions.coordinates.minutesAndSeconds minutes \"\(given)\""
            case .secondsColumn: "LoadOptions.coordinates.minutesAndSeconds seconds \"\(given)\""
            }
            return "\(name): \(reason); the header has: \(columns)"
                + (option == .identifier ? "; or set LoadOptions.identifier to .none for generated FILE@TAG:LINE identifiers" : "")
        case .chooseField(let given):
            return "LoadOptions.mapping[\"\(given)\"]: \(reason); valid fields: \(WellField.mappable.map(\.rawValue).joined(separator: ", "))"
        case .decompress:
            return reason + "; decompress it first, for example with gunzip"
        case .relocate(let fix?):
            return reason + " Load with \(fix.apiText)"
                + (code == .misplaced ? "; or set LoadOptions.checkLocations = false to load the wells as they are, flagged" : "")
        case .relocate(nil):
            return reason + " Set LoadOptions.checkLocations = false to load the wells as they are, flagged"
        }
    }

    public var description: String {
        var location = file ?? ""
        if let line { location += ":\(line)" }
        if let column { location += (location.isEmpty ? "" : ": ") + "column \"\(column)\"" }
        return location.isEmpty ? message : "\(location): \(message)"
    }
}

extension ImportError.Code {
    /// Lets `catch ImportError.Code.noCoordinateColumns` match a thrown ``ImportError``.
    public static func ~= (code: Self, error: any Error) -> Bool {
        (error as? ImportError)?.code == code
    }
}

/// `localizedDescription` says what ``ImportError/description`` says (never `(WellKit.ImportError error 1.)`).
extension ImportError: LocalizedError {
    public var errorDescription: String? { description }
}
