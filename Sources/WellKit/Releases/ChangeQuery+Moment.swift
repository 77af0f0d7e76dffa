import Foundation

extension ChangeQuery {
    /// A date (`2026-05-01`, midnight UTC) or an RFC 3339 moment (`2026-05-01T12:00:00Z`, `…+02:00`),
    /// as /api's pattern for `since` allows it; a day past its month's end rolls over (`02-31` is 3 March).
    package static func moment(_ text: String) -> Date? {
        let parts = text.split(separator: "T", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        guard let date = parts.first, date.count == 10, text.allSatisfy(\.isASCII) else { return nil }
        let day = date.split(separator: "-").compactMap { Int($0) }
        guard day.count == 3, (1...12).contains(day[1]), (1...31).contains(day[2]) else { return nil }
        var components = DateComponents(year: day[0], month: day[1], day: day[2])
        var offset = 0
        if parts.count == 2 {
            var time = parts[1]
            if time.hasSuffix("Z") {
                time.removeLast()
            } else if let sign = time.lastIndex(where: { $0 == "+" || $0 == "-" }) {
                let zone = time[time.index(after: sign)...].split(separator: ":").compactMap { Int($0) }
                guard zone.count == 2 else { return nil }
                offset = (zone[0] * 3600 + zone[1] * 60) * (time[sign] == "-" ? -1 : 1)
                time = String(time[..<sign])
            } else {
                return nil
            }
            let clock = time.split(separator: ":").compactMap { Int($0) }
            guard clock.count == 3, (0...23).contains(clock[0]), (0...59).contains(clock[1]), (0...60).contains(clock[2]) else { return nil }
            (components.hour, components.minute, components.second) = (clock[0], clock[1], clock[2])
        }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar.date(from: components).map { $0.addingTimeInterval(TimeInterval(-offset)) }
    }
}
