/// One rejected record: where it is, why, and its raw text.
public struct Reject: Sendable, Equatable {
    public var line: Int
    public var column: String?
    /// A short kind for counting, such as ``RejectKind/latitudeOutOfRange``.
    public var kind: RejectKind
    /// The full reason, with the value and how to fix it.
    public var reason: String
    public var raw: String
}

/// Why a row did not load, for counting and matching; the raw value is the text that
/// ``LoadSummary/rejectReasons`` counts under, such as "latitude out of range".
public enum RejectKind: String, Sendable, CaseIterable, Codable {
    case malformedQuoting = "malformed quoting"
    case wrongFieldCount = "wrong field count"
    case unknownDatum = "unknown datum"
    case notTransformable = "coordinates not transformable"
    case coordinatesSwapped = "coordinates swapped"
    case latitudeOutOfRange = "latitude out of range"
    case longitudeOutOfRange = "longitude out of range"
    case zeroCoordinates = "zero coordinates"
    case missingIdentifier = "missing identifier"
    case missingCoordinates = "missing coordinates"
    case coordinateNotANumber = "coordinate not a number"
    /// A PLSS legal description (`Section 11, T6S, R24W, SM`) where the coordinates should be.
    case legalDescription = "legal description, not coordinates"
    case duplicateIdentifier = "duplicate identifier"
    case duplicateWell = "duplicate well"
    /// ``LoadOptions/rejectSuspects``: the longitude's sign looks flipped.
    case suspectLongitudeSign = "suspect: longitude sign"
    /// ``LoadOptions/rejectSuspects``: the latitude's sign looks flipped.
    case suspectLatitudeSign = "suspect: latitude sign"
    /// ``LoadOptions/rejectSuspects``: latitude and longitude look swapped.
    case suspectSwapped = "suspect: swapped"
    /// ``LoadOptions/rejectSuspects``: a coordinate looks like it lost a digit.
    case suspectLostDigit = "suspect: lost digit"
    /// ``LoadOptions/rejectSuspects``: the well lies far from all the others.
    case suspectFarFromOthers = "suspect: far from the others"
    /// ``LoadOptions/rejectSuspects``: the well lies outside the state or country its row names, and no slip explains it.
    case suspectOutsidePlace = "suspect: outside named place"

    /// The kind for a suspect finding's reason, one of ``SuspectCoordinates``' slips.
    init(suspect reason: String) {
        guard let kind = RejectKind(rawValue: "suspect: " + reason) else {
            preconditionFailure("RejectKind: SuspectCoordinates reported \"\(reason)\", which has no case")
        }
        self = kind
    }
}
