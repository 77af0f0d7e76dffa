/// An error that stops a load, with the file, line and column it concerns and how to fix it.
///
/// For example:
///
/// ```
/// wells.csv: no latitude/longitude columns found among: Utmx, Utmy, x, y; projected x/y
/// need a CRS (see `wells load --help`), or name the columns with --map lat=COL --map lon=COL
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
        case invalidOption
        case interrupted
        case notText
        case ambiguousCoordinates
    }

    public let code: Code
    public let message: String
    public var file: String?
    public var line: Int?
    public var column: String?

    public init(_ code: Code, _ message: String, file: String? = nil, line: Int? = nil, column: String? = nil) {
        self.code = code
        self.message = message
        self.file = file
        self.line = line
        self.column = column
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
