// Stand-ins for library declarations whose real homes need PROJ, so the fuzz build can leave those
// files out. Keep them in step with the originals named below.

import Foundation

extension Double {
    /// A copy of `projDecimal` from Sources/WellKit/Geo/OperationInfo.swift (used by DMS's messages).
    func projDecimal(_ digits: Int) -> String {
        var text = String(format: "%.\(digits)f", self)
        if text.contains(".") {
            while text.hasSuffix("0") { text.removeLast() }
            if text.hasSuffix(".") { text.removeLast() }
        }
        return text
    }
}

/// Sources/WellKit/Geo/Geodesic.swift calls PROJ; the parsers only need the name to exist.
enum Geodesic {
    static func distance(fromLatitude lat1: Double, longitude lon1: Double, toLatitude lat2: Double, longitude lon2: Double) -> Double { 0 }
}
