/// A distance on the ground, parsed from text such as `500m`, `2km` or `1.5mi`.
///
/// For example:
///
/// ```swift
/// let radius = try Distance(parsing: "2km")   // radius.meters == 2000
/// ```
package struct Distance: Sendable, Hashable, CustomStringConvertible {
    /// The distance in metres: finite and zero or more.
    package let meters: Double

    /// Makes a distance of `meters`.
    ///
    /// - Throws: ``QueryError`` unless `meters` is finite and zero or more.
    package init(meters: Double) throws {
        guard meters.isFinite, meters >= 0 else {
            throw QueryError(.outOfRange, "distance \(meters) m must be a finite number of metres, zero or more", subject: .distance)
        }
        self.meters = meters
    }

    /// Parses a number with `m`, `km` or `mi` (case-insensitive, spaces around allowed), or a bare number of metres.
    ///
    /// - Throws: ``QueryError`` quoting the text when it is not a finite distance of zero or more.
    package init(parsing text: String) throws {
        var lower = Substring(text.lowercased())
        while lower.first?.isWhitespace == true { lower.removeFirst() }
        while lower.last?.isWhitespace == true { lower.removeLast() }
        var factor = 1.0
        for (suffix, unit) in [("km", 1000.0), ("mi", 1609.344), ("m", 1.0)] where lower.hasSuffix(suffix) {
            lower.removeLast(suffix.count)
            factor = unit
            break
        }
        while lower.last?.isWhitespace == true { lower.removeLast() }
        guard let number = ValueParsing.number(String(lower)), number >= 0, (number * factor).isFinite else {
            throw QueryError(.invalidValue, "\"\(text)\" is not a distance; use a number with m, km or mi, such as 2km", subject: .distance, text: text)
        }
        try self.init(meters: number * factor)
    }

    package var description: String { "\(meters) m" }
}
