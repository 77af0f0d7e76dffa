import Foundation
import GRDB

/// The reads of the releases ``ReleaseWriter`` records: the releases, the changes between two, and
/// one well's history.
extension SQLiteEngine {
    func releases(source: String?) throws -> [WellRelease] {
        try reading { db in try Self.releases(db, source: source) }
    }

    static func releases(_ db: Database, source: String?) throws -> [WellRelease] {
        guard try db.tableExists("releases") else { return [] }
        let rows = try Row.fetchAll(db, sql: """
            SELECT r.source, r.number, r.load_id, l.file, l.sha256, l.started_at, r.wells, r.summary
            FROM releases r JOIN loads l ON l.id = r.load_id
            WHERE ?1 IS NULL OR r.source = ?1 ORDER BY r.source, r.number
            """, arguments: [source])
        return try rows.map { row in
            WellRelease(source: row[0], number: row[1], loadID: row[2], file: row[3], sha256: row[4], loadedAt: row[5], wells: row[6],
                        summary: try JSONDecoder().decode(ReleaseSummary.self, from: Data((row[7] as String).utf8)))
        }
    }

    /// The source a query names, or the store's only one.
    private static func source(_ db: Database, named name: String?) throws -> (name: String, releases: [WellRelease]) {
        let all = try releases(db, source: nil)
        let sources = Array(Set(all.map(\.source))).sorted()
        if let name {
            guard sources.contains(name) else {
                throw ReleaseError(.unknownSource, "no releases of \(SafeText.quoted(name)) in this store; "
                                   + (sources.isEmpty ? "load one with wells load FILE --release --source \(name)" : "its sources are \(sources.joined(separator: ", "))"))
            }
            return (name, all.filter { $0.source == name })
        }
        guard let only = sources.first else {
            throw ReleaseError(.unknownSource, "this store has no releases; load one with wells load FILE --release")
        }
        guard sources.count == 1 else {
            throw ReleaseError(.unknownSource, "this store has releases of \(sources.count) sources (\(sources.joined(separator: ", "))): name one with --source")
        }
        return (only, all)
    }

    func changes(_ query: ChangeQuery) throws -> ReleaseChanges {
        try reading { db in
            let (source, releases) = try Self.source(db, named: query.source)
            let last = releases.last!.number
            let to = query.to ?? last
            guard releases.contains(where: { $0.number == to }) else {
                throw ReleaseError(.unknownRelease, "\(source) has no release \(to); its releases are 1 to \(last)")
            }
            var from = query.from ?? max(0, to - 1)
            if let since = query.since {
                let formatter = ISO8601DateFormatter()
                let dated = releases.last { ($0.number <= to) && (formatter.date(from: $0.loadedAt).map { $0 <= since } ?? false) }?.number ?? 0
                from = max(query.from ?? 0, dated)
            }
            guard from >= 0, from <= to, from == 0 || releases.contains(where: { $0.number == from }) else {
                throw ReleaseError(.unknownRelease, "\(source) has no release \(from) before release \(to); its releases are 1 to \(last)")
            }
            let span = releases.filter { $0.number > from && $0.number <= to }
            let wholeRelease = Set(span.flatMap(\.summary.wholeReleaseFields))
            let rows = try Row.fetchCursor(db, sql: """
                SELECT r.number, c.kind, c.uwi, c.field, c.old, c.new, c.meters, c.lat, c.lon
                FROM changes c JOIN releases r ON r.id = c.release_id
                WHERE r.source = ? AND r.number > ? AND r.number <= ?
                ORDER BY r.number, c.id
                """, arguments: [source, from, to])
            // One well's changes together, under every spelling of its identifier (a re-spelled release).
            var groups: [String: [WellChange]] = [:]
            while let row = try rows.next() {
                let change = WellChange(kind: WellChange.Kind(rawValue: row[1]) ?? .changed, identifier: row[2], source: source, release: row[0],
                                        field: row[3], old: row[4], new: row[5], meters: row[6], latitude: row[7], longitude: row[8])
                groups[WellRelease.normalizedIdentifier(change.identifier), default: []].append(change)
            }
            let changes = groups.values.flatMap { Self.collapse($0) }.filter { change in
                if !query.kinds.isEmpty && !query.kinds.contains(change.kind) { return false }
                if change.kind == .changed, let field = change.field {
                    if query.fields.isEmpty ? wholeRelease.contains(field) : !query.fields.contains(field) { return false }
                } else if !query.fields.isEmpty && !query.kinds.contains(change.kind) {
                    return false
                }
                if change.kind == .moved && !(change.meters ?? 0 > query.movedOver) { return false }
                if let box = query.box, !box.contains(longitude: change.longitude, latitude: change.latitude) { return false }
                return true
            }.sorted { ($0.identifier, $0.kind.rawValue, $0.field ?? "") < ($1.identifier, $1.kind.rawValue, $1.field ?? "") }
            return ReleaseChanges(source: source, from: from, to: to, releases: span, changes: changes)
        }
    }

    /// One well's changes over several releases, in release order, as one release's would be:
    /// new then gone is nothing, gone then back is what changed in between, a field's first old
    /// value against its last new one, a move from its first place to its last.
    static func collapse(_ changes: [WellChange]) -> [WellChange] {
        guard let last = changes.last else { return [] }
        guard Set(changes.map(\.release)).count > 1 else { return changes }
        let presence = changes.filter { [.new, .gone, .back].contains($0.kind) }
        let wasListed = presence.first.map { $0.kind == .gone } ?? true
        let isListed = presence.last.map { $0.kind != .gone } ?? true
        var to = last
        to.field = nil; to.old = nil; to.new = nil; to.meters = nil
        switch (wasListed, isListed) {
        case (false, false): return []
        case (false, true):
            to.kind = presence.first!.kind == .back ? .back : .new
            return [to]
        case (true, false):
            return [presence.last!]
        case (true, true):
            var result: [WellChange] = []
            var fields: [String: (old: String?, new: String?, change: WellChange)] = [:]
            var order: [String] = []
            for change in changes where change.kind == .changed {
                let field = change.field ?? ""
                if let known = fields[field] {
                    fields[field] = (known.old, change.new, change)
                } else {
                    fields[field] = (change.old, change.new, change)
                    order.append(field)
                }
            }
            for field in order {
                let (old, new, change) = fields[field]!
                guard old != new else { continue }
                var merged = change
                merged.old = old; merged.new = new; merged.release = last.release; merged.identifier = last.identifier
                result.append(merged)
            }
            let moves = changes.filter { $0.kind == .moved }
            if let firstMove = moves.first, let lastMove = moves.last {
                var move = lastMove
                move.old = firstMove.old; move.identifier = last.identifier
                if moves.count > 1, let a = firstMove.previousPosition {
                    move.meters = moves.count == 1 ? lastMove.meters
                        : Geodesic.distance(fromLatitude: a.latitude, longitude: a.longitude, toLatitude: lastMove.latitude, longitude: lastMove.longitude)
                }
                result.append(move)
            }
            return result
        }
    }

    func history(of identifier: String) throws -> [WellHistoryEntry] {
        try reading { db in
            guard try db.tableExists("changes") else { return [] }
            // The well's identifiers over time: a re-spelling is a change of its `uwi`.
            var identifiers = [identifier]
            while let older = try String.fetchOne(db, sql: "SELECT old FROM changes WHERE field = 'uwi' AND new = ? ORDER BY id DESC LIMIT 1",
                                                  arguments: [identifiers.last!]), !identifiers.contains(older) {
                identifiers.append(older)
            }
            let placeholders = identifiers.map { _ in "?" }.joined(separator: ", ")
            let rows = try Row.fetchAll(db, sql: """
                SELECT r.source, r.number, c.kind, c.field, c.old, c.new, c.lat, c.lon
                FROM changes c JOIN releases r ON r.id = c.release_id WHERE c.uwi IN (\(placeholders)) ORDER BY r.number, c.id
                """, arguments: StatementArguments(identifiers))
            // The source: of the well's changes, or of the release whose load wrote it last.
            let statement = try db.makeStatement(sql: """
                SELECT \((WellPin.selection + DetailColumn.sqliteSelection).joined(separator: ", ")) FROM pins p JOIN details d ON d.pin_id = p.id WHERE d.uwi = ?
                """)
            statement.arguments = [identifier]
            let stored = try Well.fetchAll(statement).first
            var source: String? = rows.first.map { $0[0] }
            if source == nil, let loadID = stored?.detail.loadID {
                source = try String.fetchOne(db, sql: "SELECT r.source FROM release_loads rl JOIN releases r ON r.id = rl.release_id WHERE rl.load_id = ?",
                                             arguments: [loadID])
            }
            guard let source else { return [] }
            let releases = try Self.releases(db, source: source)
            let changes = rows.filter { ($0[0] as String) == source }
            // From the last release back: each release's values, then its changes undone.
            var values: [String: String]? = stored.map(ReleaseWriter.values(of:))
            var entries: [WellHistoryEntry] = []
            for release in releases.reversed() {
                let own = changes.filter { ($0[1] as Int) == release.number }
                var kinds: [WellChange.Kind] = []
                for kind in own.compactMap({ WellChange.Kind(rawValue: $0[2]) }) where !kinds.contains(kind) { kinds.append(kind) }
                entries.append(WellHistoryEntry(source: source, release: release.number, kinds: kinds, values: values))
                for change in own.reversed() {
                    switch WellChange.Kind(rawValue: change[2]) {
                    case .changed:
                        let field: String = change[3]
                        values?[field] = change[4]
                    case .moved:
                        let old = (change[4] as String?)?.split(separator: ",").map(String.init) ?? []
                        if old.count == 2 { values?["lat"] = old[0]; values?["lon"] = old[1] }
                    case .new, .back:
                        values = nil
                    case .gone:
                        values = (change[4] as String?).flatMap { try? JSONDecoder().decode([String: String].self, from: Data($0.utf8)) }
                    case nil: break
                    }
                }
            }
            return entries.reversed()
        }
    }
}
