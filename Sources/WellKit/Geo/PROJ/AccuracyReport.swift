/// How well a CRS can be transformed to another on this machine, as data.
///
/// Produced by `CRSInfo.accuracyReport(to:area:)`. `best` is the operation PROJ
/// would choose if every grid were installed, `used` the one it chooses among
/// the operations it can run now. When they differ because of missing grids,
/// `missingGrids` lists what to install and `warning` says so in one sentence.
///
/// For example:
///
/// ```swift
/// let report = try CRSInfo.describe("EPSG:4267").accuracyReport(to: "EPSG:4326")
/// if let warning = report.warning { print("warning:", warning) }
/// for grid in report.missingGrids { print(grid.installCommand) }  // projsync --file ...
/// ```
public struct AccuracyReport: Sendable, Hashable, CustomStringConvertible {
    /// The source CRS identifier, e.g. "EPSG:4267".
    public let source: String
    /// The source CRS name, e.g. "NAD27".
    public let sourceName: String
    /// The target CRS identifier, e.g. "EPSG:4326".
    public let target: String
    /// The target CRS name, e.g. "WGS 84".
    public let targetName: String
    /// The area of interest the report was made for; nil = the source CRS's whole area.
    public let area: CRSInfo.Area?
    /// The best operation ignoring grid availability (PROJ's first choice); nil if none.
    public let best: OperationInfo?
    /// The best operation PROJ can run now; nil when nothing is runnable.
    public let used: OperationInfo?
    /// Grids `best` needs that are not available (install these to get `best`).
    public let missingGrids: [OperationInfo.Grid]
    /// Non-ballpark operations more accurate than `used` that cannot run for lack of grids.
    public let betterUnavailable: [OperationInfo]
    /// Number of operations PROJ knows between the two CRSs for the area.
    public let candidateCount: Int
    /// Whether PROJ networking (on-demand grid download from the CDN) is enabled.
    public let networkEnabled: Bool
    /// One-sentence warning when the result is degraded; nil when `used` is the best.
    public let warning: String?

    /// True when the operation in use is the best PROJ knows and not a ballpark one.
    public var isOptimal: Bool { warning == nil }

    init(source: String, sourceName: String, target: String, targetName: String,
         area: CRSInfo.Area?, candidates: [OperationInfo], used: OperationInfo?,
         networkEnabled: Bool) {
        self.source = source
        self.sourceName = sourceName
        self.target = target
        self.targetName = targetName
        self.area = area
        self.best = candidates.first
        self.used = used
        self.candidateCount = candidates.count
        self.networkEnabled = networkEnabled
        let best = candidates.first
        let bestIsUsed = best.map { $0.name == used?.name && $0.identifier == used?.identifier }
        missingGrids = bestIsUsed == true ? [] : (best?.missingGrids ?? [])
        betterUnavailable = candidates.filter { op in
            guard !op.isInstantiable, !op.isBallpark, let accuracy = op.accuracy else { return false }
            guard let usedAccuracy = used?.accuracy else { return true }
            return accuracy < usedAccuracy
        }
        warning = Self.warning(pair: "\(sourceName) -> \(targetName)", best: best, used: used,
                               missing: missingGrids, network: networkEnabled)
    }

    private static func warning(pair: String, best: OperationInfo?, used: OperationInfo?,
                                missing: [OperationInfo.Grid], network: Bool) -> String? {
        guard let best else { return "\(pair): PROJ knows no coordinate operation" }
        var parts: [String] = []
        if !missing.isEmpty {
            let names = missing.map(\.shortName).joined(separator: ", ")
            let commands = missing.map { "`\($0.installCommand)`" }.joined(separator: " and ")
            let how = network
                ? "not reachable even though PROJ_NETWORK is on; install with \(commands)"
                : "not installed; install with \(commands) or set PROJ_DATA / enable PROJ_NETWORK=ON"
            parts.append("best operation '\(best.name)' (\(best.accuracyText)) needs grid "
                         + "\(names) (\(how))")
        }
        guard let used else {
            parts.append("no operation can run now")
            return "\(pair): " + parts.joined(separator: "; ")
        }
        if !missing.isEmpty {
            let stated = used.accuracy == nil ? "unknown accuracy" : "stated accuracy \(used.accuracyText)"
            parts.append("falling back to '\(used.name)' with \(stated)"
                         + caveat(used))
        } else if used.isBallpark {
            parts.append("only the ballpark operation '\(used.name)' is available" + caveat(used))
        } else {
            return nil
        }
        return "\(pair): " + parts.joined(separator: "; ")
    }

    /// A plain-language hint of how far off results may be.
    private static func caveat(_ op: OperationInfo) -> String {
        if op.isBallpark {
            return " (ballpark: datum shift ignored, positions may be off by tens to hundreds of metres)"
        }
        guard let accuracy = op.accuracy else { return " (accuracy unknown)" }
        if accuracy >= 10 { return " (may be off by tens of metres)" }
        if accuracy >= 1 { return " (may be off by a few metres)" }
        return ""
    }

    /// A multi-line human-readable summary for the CLI and loader logs.
    public var description: String {
        var lines = ["\(sourceName) (\(source)) -> \(targetName) (\(target))"]
        if let area {
            lines.append("  area:    \(area.west), \(area.south), \(area.east), \(area.north)"
                         + (area.name.map { " (\($0))" } ?? ""))
        }
        lines.append("  candidates: \(candidateCount)"
                     + (networkEnabled ? " (PROJ_NETWORK on)" : " (PROJ_NETWORK off)"))
        lines.append("  best:    " + (best?.description ?? "none"))
        lines.append("  used:    " + (used?.description ?? "none"))
        if !betterUnavailable.isEmpty {
            var grids: [String] = []
            for op in betterUnavailable {
                for grid in op.missingGrids where !grids.contains(grid.shortName) {
                    grids.append(grid.shortName)
                }
            }
            lines.append("  \(betterUnavailable.count) more accurate operation(s) need missing "
                         + "grid(s): \(grids.prefix(8).joined(separator: ", "))"
                         + (grids.count > 8 ? ", ..." : ""))
        }
        lines.append("  warning: " + (warning ?? "none"))
        return lines.joined(separator: "\n")
    }
}
