import Foundation

/// How a load is taken as a release of a well list (``LoadOptions/release``): the complete current
/// list of its source, whose wells absent from it are gone.
public struct ReleaseOptions: Sendable, Equatable {
    /// The source's name (`co-ecmc`); nil for the name of the file with any date in it removed
    /// (``WellRelease/sourceName(ofFile:)``).
    public var source: String?
    /// Mark the wells gone even when most of the source's wells are missing from the release
    /// (a truncated download, unless the agency really dropped them); otherwise such a load stops
    /// with ``ReleaseError/Code/mostGone`` and changes nothing.
    public var confirmGone: Bool

    public init(source: String? = nil, confirmGone: Bool = false) {
        self.source = source
        self.confirmGone = confirmGone
    }
}

/// One release of a source's well list: its number (from 1, in load order), the load that brought
/// it, and what changed in it since the release before.
public struct WellRelease: Sendable, Codable, Equatable {
    public var source: String
    public var number: Int
    /// The load (`loads.id`) that brought the release, its file, sha256 and start.
    public var loadID: Int64
    public var file: String
    public var sha256: String
    public var loadedAt: String
    /// The wells the release lists.
    public var wells: Int
    /// Its changes since the release before (none for the first).
    public var summary: ReleaseSummary

    /// The name of a source whose releases are files named as `file` is: its file name without
    /// the folder, the extensions and any date in it (`co-orphans-2026-05.csv` and
    /// `co-orphans_20260601.csv.gz` are releases of `co-orphans`).
    public static func sourceName(ofFile file: String) -> String {
        var name = (file as NSString).lastPathComponent
        let extensions: Set = ["csv", "tsv", "txt", "psv", "dat", "rdb", "gz", "zip", "xlsx", "json", "geojson", "kml", "shp"]
        while let dot = name.lastIndex(of: "."), dot > name.startIndex, extensions.contains(name[name.index(after: dot)...].lowercased()) {
            name = String(name[..<dot])
        }
        let months = "jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec|january|february|march|april|june|july|august|september|october|november|december"
        let patterns = [
            #"(19|20)\d\d[-_. ]?(0[1-9]|1[0-2])([-_. ]?(0[1-9]|[12]\d|3[01]))?"#,  // 2026-05, 2026-05-31, 20260531
            #"(0?[1-9]|1[0-2])[-_.](0?[1-9]|[12]\d|3[01])[-_.](19|20)\d\d"#,  // 05-31-2026
            #"(0?[1-9]|[12]\d|3[01])[-_. ]?(\#(months))[-_. ]?(19|20)?\d\d"#,  // 31may2026
            #"(\#(months))[-_. ]?(19|20)\d\d"#,  // may2026
            #"(19|20)\d\d"#,  // 2026
        ]
        for pattern in patterns {
            name = name.replacingOccurrences(of: #"(?i)(?<![A-Za-z0-9])"# + pattern + #"(?![A-Za-z0-9])"#, with: "", options: .regularExpression)
        }
        name = name.replacingOccurrences(of: #"[-_. ]{2,}"#, with: "-", options: .regularExpression)
        let trimmed = name.trimmingCharacters(in: CharacterSet(charactersIn: "-_. "))
        return trimmed.isEmpty ? (file as NSString).lastPathComponent : trimmed
    }

    /// An identifier as releases compare re-spelled ones: its letters and digits, upper-cased, and a
    /// US API number's 12- or 14-digit form cut to its 10 digits when the rest is zeros
    /// (`05-001-20345`, `0500120345` and `05-001-20345-00-00` are one well).
    public static func normalizedIdentifier(_ identifier: String) -> String {
        var kept = String(identifier.unicodeScalars.filter { CharacterSet.alphanumerics.contains($0) }.map(Character.init)).uppercased()
        if kept.allSatisfy(\.isASCII), kept.allSatisfy(\.isNumber), kept.count == 12 || kept.count == 14, kept.dropFirst(10).allSatisfy({ $0 == "0" }) {
            kept = String(kept.prefix(10))
        }
        return kept
    }
}

/// What changed in one release since the release before, as `wells changes` shows it first.
public struct ReleaseSummary: Sendable, Codable, Equatable {
    /// The wells the release lists.
    public var wells = 0
    public var new = 0
    public var gone = 0
    public var back = 0
    /// Wells with at least one changed field (re-spelled identifiers and whole-release fields aside).
    public var changed = 0
    /// Wells whose position moved, by any distance (`wells changes` shows those over its tolerance).
    public var moved = 0
    /// Wells listed under a re-spelled identifier (``WellRelease/normalizedIdentifier(_:)``): the same well.
    public var respelled = 0
    /// Changes that hold for the whole release, said once: re-spelled identifiers, a change of CRS
    /// or datum, a common shift of every well, columns added, dropped or renamed.
    public var notes: [String] = []
    /// Fields whose change is the whole release's (a column added or dropped, `uwi` re-spelled):
    /// their changes are recorded, for a well's history, and listed only when asked for by name.
    public var wholeReleaseFields: [String] = []
    /// The common shift of every well's position, east and north in metres, when the release has
    /// one (a change of datum the file did not declare); moves are measured after it.
    public var commonShift: [Double]?
    /// The most frequent changes of each lookup field (status, operator, …): `Active → Orphaned 120`.
    public var transitions: [Transition] = []
    /// The mapped fields and unmapped columns the release's file had, to compare the next with.
    public var columns: [String: String] = [:]
    public var extraColumns: [String] = []
    /// The CRS its coordinates were read in.
    public var crs = "EPSG:4326"
    /// True when the load was a release already loaded (the same file): nothing changed, and no
    /// release was added.
    public var reloaded = false

    public struct Transition: Sendable, Codable, Equatable {
        public var field: String
        public var old: String?
        public var new: String?
        public var count: Int
    }

    public init() {}
}

/// One change of one well in a release, as `wells changes` lists it.
public struct WellChange: Sendable, Codable, Equatable {
    public enum Kind: String, Sendable, Codable, CaseIterable {
        /// Listed for the first time.
        case new
        /// Listed before, absent from this release: kept, with its last values, and left out of queries.
        case gone
        /// Gone before, listed again.
        case back
        /// One field's value changed (``field``, ``old``, ``new``).
        case changed
        /// The position moved (``meters``; ``old`` and ``new`` are `lat,lon`).
        case moved
    }

    public var kind: Kind
    public var identifier: String
    /// The source and number of the release in which it changed.
    public var source: String
    public var release: Int
    public var field: String?
    public var old: String?
    public var new: String?
    /// How far a moved well moved, after any common shift of the release (``ReleaseSummary/commonShift``).
    public var meters: Double?
    /// The well's position in the release (a gone well's last).
    public var latitude: Double
    public var longitude: Double

    /// A moved well's position before the move, from ``old``.
    public var previousPosition: Coordinate? {
        guard kind == .moved, let old else { return nil }
        let parts = old.split(separator: ",").compactMap { Double($0) }
        return parts.count == 2 ? Coordinate(latitude: parts[0], longitude: parts[1]) : nil
    }
}

/// What `WellStore.changes(_:)` lists: a source's changes between two of its releases.
public struct ChangeQuery: Sendable, Equatable {
    /// The source; nil for the store's only source (more than one is an error that names them).
    public var source: String?
    /// The release compared from (its state), and the one compared to; nil `to` is the last release,
    /// nil `from` the one before `to`.
    public var from: Int?
    public var to: Int?
    /// The last release loaded before this moment; with `from`, the later of the two.
    public var since: Date?
    /// Only these kinds; empty for all.
    public var kinds: Set<WellChange.Kind> = []
    /// Only changes of these fields (`status`, `extra.Permit`); empty for all but the whole-release
    /// fields (``ReleaseSummary/wholeReleaseFields``), which are listed only when named here.
    public var fields: Set<String> = []
    /// Moves of at most this many metres are not listed.
    public var movedOver: Double = ChangeQuery.defaultMovedOver
    /// Only wells in this box (their position in the later release, or a gone well's last).
    public var box: BoundingBox?

    /// One metre: coordinates published to five decimal places are about a metre apart, so a
    /// smaller difference is a rounding of the same position.
    public static let defaultMovedOver = 1.0

    public init(source: String? = nil, from: Int? = nil, to: Int? = nil) {
        self.source = source
        self.from = from
        self.to = to
    }
}

/// A source's changes between two releases: the releases compared and the changes, in identifier order.
public struct ReleaseChanges: Sendable, Equatable {
    public var source: String
    /// The releases compared: `from` (0 before the first) and `to`.
    public var from: Int
    public var to: Int
    /// The summaries of the releases after `from` up to `to`, in order.
    public var releases: [WellRelease]
    public var changes: [WellChange]
}

/// One release's values of one well (`WellStore.history(of:)`).
public struct WellHistoryEntry: Sendable, Equatable {
    public var source: String
    public var release: Int
    /// What the release did to the well: new, back, gone, changed, moved; empty when it listed it unchanged.
    public var kinds: [WellChange.Kind]
    /// The well's values in that release, as `wells show` names them; nil when the release did not
    /// list it (before it was new, or once it is gone: the gone release's change keeps its last values).
    public var values: [String: String]?
}

/// A release that cannot be loaded or a change query that cannot be answered.
public struct ReleaseError: Error, CustomStringConvertible, Sendable, Equatable {
    public enum Code: String, Sendable {
        /// Most of the source's wells are missing from the release: see ``ReleaseOptions/confirmGone``.
        case mostGone
        /// No such source, or none named where the store has several.
        case unknownSource
        /// No such release of the source.
        case unknownRelease
        /// The store's engine keeps no releases.
        case unsupported
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
