import ArgumentParser
import WellKit

// The values of boxes, points, distances, `--map` and `--datum`: each parsed once, when ArgumentParser
// reads the command line, by the type that knows its syntax.
//
// A type keeps its parse error rather than failing `init?(argument:)`, because ArgumentParser would
// answer a failed init, or an error thrown from a `transform:`, with its own "The value '…' is invalid
// for '<box>'" and lose the message that says what is wrong. The command asks for the value where it
// always did: in `validate()`, which answers with a usage error, or in `run()`, which answers with a
// `wells: error:` line from `Wells.run`.

/// A box on the command line: `minLon,minLat,maxLon,maxLat` in degrees, or four numbers in another CRS.
///
/// For example:
///
/// ```swift
/// let argument = BoxArgument(argument: "-114.2,50.9,-113.9,51.2")
/// let box = try argument.box()          // BoundingBox(minLongitude: -114.2, …)
/// ```
package struct BoxArgument: ExpressibleByArgument, ExpressibleByStringLiteral, Equatable, Sendable {
    /// The argument as given.
    package let text: String
    private let parsed: Result<BoundingBox, any Error>
    /// The numbers between the commas, for a box in another CRS.
    private let numbers: [Double]

    package init(argument: String) {
        text = argument
        parsed = Result { try BoundingBox(parsing: argument) }
        numbers = argument.split(separator: ",").compactMap { Double($0.trimmingSpaces()) }
    }

    package init(stringLiteral value: String) { self.init(argument: value) }

    /// The box in EPSG:4326 degrees.
    ///
    /// - Throws: what `BoundingBox(parsing:)` threw.
    package func box() throws -> BoundingBox { try parsed.get() }

    /// The box as `minX,minY,maxX,maxY` in the units of `crs`.
    ///
    /// - Throws: ``StoreError/Code/invalidArgument`` unless the argument is four numbers.
    package func corners(in crs: String) throws -> (minX: Double, minY: Double, maxX: Double, maxY: Double) {
        guard numbers.count == 4 else {
            throw StoreError(.invalidArgument, "\(SafeText.quoted(text)) is not minX,minY,maxX,maxY in \(SafeText.quoted(crs))")
        }
        return (numbers[0], numbers[1], numbers[2], numbers[3])
    }

    package var defaultValueDescription: String { text }

    package static func == (a: Self, b: Self) -> Bool { a.text == b.text }
}

/// A point on the command line: `lat,lon` in degrees.
package struct PointArgument: ExpressibleByArgument, Sendable {
    /// The argument as given.
    package let text: String
    private let parsed: Result<Coordinate, any Error>

    package init(argument: String) {
        text = argument
        parsed = Result { try Coordinate(parsing: argument) }
    }

    /// The point.
    ///
    /// - Throws: what `Coordinate(parsing:)` threw.
    package func coordinate() throws -> Coordinate { try parsed.get() }
}

/// A distance on the Earth's surface on the command line: `500m`, `2km`, `1.5mi` or a bare number of metres.
package struct DistanceArgument: ExpressibleByArgument, Sendable {
    /// Half the Earth's circumference in metres, beyond which every point is within reach.
    package static let maximumMeters = 20_037_508.0

    /// The argument as given.
    package let text: String
    /// The metres `Distance(parsing:)` read, or nil when it refused the text.
    package let meters: Double?
    /// The size of a positive number in any notation (`inf` and `1e400` included), or nil.
    private let size: Double?

    package init(argument: String) {
        text = argument
        meters = (try? Distance(parsing: argument))?.meters
        let lower = argument.lowercased().trimmingCharacters(in: .whitespaces)
        let unit = [("km", 1000.0), ("mi", 1609.344), ("m", 1.0)].first { lower.hasSuffix($0.0) }
        if let number = Double(lower.dropLast(unit?.0.count ?? 0)), number > 0 { size = number * (unit?.1 ?? 1) } else { size = nil }
    }

    /// The distance in metres, at most half the Earth's circumference.
    ///
    /// - Throws: a `ValidationError` that names `option` when the text is not a distance, or is
    ///   infinite or longer than ``maximumMeters`` (checked first, since `Distance(parsing:)` may
    ///   refuse a non-finite number as "not a distance").
    package func checkedMeters(option: String) throws -> Double {
        let tooFar = ValidationError("\(option) must be a finite distance of at most 20,037.5 km (half the Earth's circumference), got \(SafeText.quoted(text))")
        if let size, !(size.isFinite && size <= Self.maximumMeters) { throw tooFar }
        guard let meters else {
            throw ValidationError("\(option) \(SafeText.quoted(text)) is not a distance; use a number with m, km or mi, such as 2km")
        }
        guard meters.isFinite && meters <= Self.maximumMeters else { throw tooFar }
        return meters
    }
}

/// A `--map field=Column` pair: a WellKit field and the file's column for it.
package struct MappingArgument: ExpressibleByArgument, Sendable {
    /// The argument as given.
    package let text: String
    /// The field and the column, split at the first `=`; nil without one.
    package let pair: (field: String, column: String)?

    package init(argument: String) {
        text = argument
        let parts = argument.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        pair = parts.count == 2 ? (String(parts[0]), String(parts[1])) : nil
    }

    /// The pair.
    ///
    /// - Throws: a `ValidationError` when the argument has no `=`.
    package func checked() throws -> (field: String, column: String) {
        guard let pair else { throw ValidationError("--map \"\(text)\" is not field=Column, for example --map lat=SURF_LAT") }
        return pair
    }
}

/// A `--date-format COLUMN=FORMAT` pair: a date field or source column and its strftime format (or `excel`).
package struct DateFormatArgument: ExpressibleByArgument, Sendable {
    /// The argument as given.
    package let text: String

    package init(argument: String) { text = argument }

    /// The column and its format.
    ///
    /// - Throws: a `ValidationError` (exit 64) when the argument has no `=` or the format a directive WellKit does not read.
    package func checked() throws -> (column: String, format: DateFormat) {
        let parts = text.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
            throw ValidationError("--date-format \"\(text)\" is not COLUMN=FORMAT, for example --date-format spud_date=%d/%m/%Y or --date-format spud_date=excel")
        }
        do {
            return (String(parts[0]), try DateFormat(String(parts[1])))
        } catch let error as ImportError {
            throw ValidationError("--date-format \(parts[0])=…: \(error.reason)")
        }
    }
}

/// A `--datum NAME=CRS` pair: a value of the datum column and the CRS it stands for.
package struct DatumArgument: ExpressibleByArgument, Sendable {
    /// The argument as given.
    package let text: String
    /// The datum name and the CRS, split at the first `=`; nil unless both are there.
    package let pair: (name: String, crs: String)?

    package init(argument: String) {
        text = argument
        let parts = argument.split(separator: "=", maxSplits: 1).map(String.init)
        pair = parts.count == 2 ? (parts[0], parts[1]) : nil
    }

    /// The pair.
    ///
    /// - Throws: a `ValidationError` when the argument is not `NAME=CRS`.
    package func checked() throws -> (name: String, crs: String) {
        guard let pair else { throw ValidationError("--datum \"\(text)\" is not NAME=CRS, for example --datum NAD27=EPSG:4267") }
        return pair
    }
}

/// Two column names, latitude's and longitude's, as `LAT,LON` (`--minutes LAT_MIN,LONG_MIN`).
package struct ColumnPair: ExpressibleByArgument, Sendable {
    package let latitude: String
    package let longitude: String

    package init?(argument: String) {
        let parts = argument.split(separator: ",", omittingEmptySubsequences: false).map { String($0.trimmingSpaces()) }
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else { return nil }
        (latitude, longitude) = (parts[0], parts[1])
    }
}

/// A number of bytes: `500M`, `2G`, `64K` or a plain count (binary multiples: K is 1,024 bytes).
package struct ByteCountArgument: ExpressibleByArgument, Sendable {
    package let bytes: Int

    package init?(argument: String) {
        let text = argument.trimmingCharacters(in: .whitespaces).uppercased()
        let units: [Character: Int] = ["K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40]
        var digits = Substring(text.hasSuffix("IB") ? String(text.dropLast(2)) : text.hasSuffix("B") ? String(text.dropLast()) : text)
        var multiple = 1
        if let last = digits.last, let unit = units[last] {
            multiple = unit
            digits = digits.dropLast()
        }
        guard let count = Int(digits), count > 0 else { return nil }
        let (bytes, overflow) = count.multipliedReportingOverflow(by: multiple)
        guard !overflow else { return nil }
        self.bytes = bytes
    }
}
