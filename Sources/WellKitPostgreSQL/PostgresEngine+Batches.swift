import PostgresNIO
import WellKit

// The reads of ``BatchedResults``: a snapshot of the ids with their sections, and batches of rows by id.

extension PostgresEngine {
    func snapshot(_ request: WellFetchRequest, sectionKey: WellField?) throws -> ResultsSnapshot {
        let literal = try compiler.ids(request, sectionKey: sectionKey).literal
        return try bridge.wait { try await withConnection { try await snapshot(literal, sectioned: sectionKey != nil, on: $0) } }
    }

    func load<Element: BatchLoadable>(_ ids: [Int64], as type: Element.Type) throws -> [Int64: Element] {
        guard !ids.isEmpty else { return [:] }
        let (literal, width) = try loadQuery(ids, as: type)
        let clock = ContinuousClock.now
        let loaded = try bridge.wait { try await withConnection { try await load(literal, width: width, as: type, on: $0) } }
        reportFetch(since: clock, count: loaded.count)
        return loaded
    }

    func snapshot<Element: BatchLoadable>(_ request: WellFetchRequest, sectionKey: WellField?, reloading ids: [Int64],
                                          as type: Element.Type) throws -> (ResultsSnapshot, [Int64: Element]) {
        let literal = try compiler.ids(request, sectionKey: sectionKey).literal
        let reload = ids.isEmpty ? nil : try loadQuery(ids, as: type)
        // One snapshot of the database for both reads, as the file's read transaction.
        let read: (PostgresConnection) async throws -> UncheckedBox<(ResultsSnapshot, [Int64: Element])> = { connection in
            let snapshot = try await self.snapshot(literal, sectioned: sectionKey != nil, on: connection)
            var rows: [Int64: Element] = [:]
            if let reload { rows = try await self.load(reload.literal, width: reload.width, as: type, on: connection) }
            return UncheckedBox((snapshot, rows))
        }
        return try bridge.wait {
            try await withConnection { connection in
                try await inTransaction("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", on: connection) { try await read(connection) }
            }
        }.value
    }

    /// The batch load of `ids`: the element's columns, then `p.id`, `p.id = ANY($1::int8[])`.
    private func loadQuery<Element: BatchLoadable>(_ ids: [Int64], as type: Element.Type) throws -> (literal: BoundSQL, width: Int) {
        let selection = (Element.self as? any FixedSelection.Type)?.querySelection ?? .columns(Element.batchFields)
        return (try compiler.select(WellFetchRequest(), selection, extra: ["p.id"], ids: ids).literal, selection.expressions.count)
    }

    private func load<Element: BatchLoadable>(_ literal: BoundSQL, width: Int, as type: Element.Type,
                                              on connection: PostgresConnection) async throws -> [Int64: Element] {
        var objects: [Int64: Element] = [:]
        try await rows(literal, on: connection) { row in
            let values = try row.values()
            objects[values[width].int64!] = try Element(row: WellRow(values: Array(values[..<width])))
        }
        return objects
    }

    /// The ids in order with their sections, a section per run of equal keys, as the file engine makes them.
    private func snapshot(_ literal: BoundSQL, sectioned: Bool, on connection: PostgresConnection) async throws -> ResultsSnapshot {
        let clock = ContinuousClock.now
        var ids: [Int64] = []
        var sections: [ResultsSection] = []
        var key: String?? = .none
        try await rows(literal, on: connection) { row in
            let offset = ids.count
            ids.append(try row.int64())
            guard sectioned else { return }
            let name = try row.string()
            if case .some(let current) = key, current == name { return }
            key = .some(name)
            sections.append(ResultsSection(name: name, offset: offset, count: 0))
        }
        reportFetch(since: clock, count: ids.count, of: "ids")
        return ResultsSnapshot(ids: ids, sectionStarts: sectioned ? sections : nil)
    }
}
