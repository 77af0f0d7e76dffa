import Foundation

// Writes of single wells and batches of them. Each is a load: the wells are written as a small
// CSV file of their fields (``EditFile``) and loaded with every check a load makes (coordinates in
// range and not 0/0, the place check, suspects, the bad values kept), through the engine's own
// write, in one transaction, with a `loads` row recording it. The engine checks inside that
// transaction what each identifier must find stored, and deletes. So a write keeps every
// invariant a load keeps (the pin and its detail together, the R*Tree, the lookups, the flags),
// and a results controller and `wells serve` see it as they see a load: it is one commit.

extension WellStore {
    /// Writes a batch of edits in one transaction: all of them, or, when one fails, none.
    ///
    /// For example, fetch a well, change it, and write it back:
    ///
    /// ```swift
    /// if var well = try store.well(identifier: "05-123-00001") {
    ///     well.detail.status = "Plugged"
    ///     try store.apply([.update(well), .delete(identifier: "05-123-00002")])
    /// }
    /// ```
    ///
    /// Each well is checked as a load checks its rows: values are stored as a load of them would
    /// store them (depths and elevations in metres, dates as days; a value that does not parse as
    /// its field's type is kept in the well's extra values and counted in ``LoadSummary/badValues``), and a
    /// well whose position a load would reject (out of range, 0/0, or mostly outside the places it names)
    /// fails the batch. A well the place check or the suspects' rules flag is written and flagged,
    /// as in a load (``LoadSummary/suspects``).
    ///
    /// A well's position is written in WGS 84 degrees: its source coordinates become the degrees
    /// written, whatever CRS it was first loaded in. New wells get pin ids after the largest in use.
    ///
    /// - Returns: The write's summary: its `loads` id, the wells inserted, updated and deleted, the
    ///   warnings and flags. The `loads` row names the file `(edit)` and lists the deleted identifiers.
    /// - Throws: ``WellEditError`` (an insert of a stored identifier, an update or delete of one not
    ///   stored, an identifier twice, a well a load would reject) and ``StoreError``; either way
    ///   the store is unchanged.
    /// - Complexity: O(k log n) for k edits into a store of n wells, up to 256 wells; a bigger
    ///   batch is written as a load of that many rows.
    @discardableResult
    public func apply(_ edits: [WellEdit]) throws -> LoadSummary {
        let file = try EditFile(edits)
        if edits.isEmpty { return LoadSummary(file: EditFile.name, sha256: "") }
        return try InputFile.withTemporaryFile(label: EditFile.name) { path in
            try file.csv.write(to: URL(fileURLWithPath: path))
            let clock = ContinuousClock.now, startedAt = Date()
            var scan: ScannedFile
            do {
                scan = try Self.scan(csvAt: path, options: file.options, name: EditFile.name)
            } catch let error as ImportError {
                // The place check's refusal of wells mostly outside the places they name, and the like.
                throw WellEditError(.rejected, identifier: edits.count == 1 ? edits[0].identifier : nil, error.reason)
            }
            if let reject = scan.rejects.first(where: { _ in true }) {
                throw WellEditError(.rejected, identifier: file.identifier(atLine: reject.line), reject.reason)
            }
            scan.summary.phases["read"] = (ContinuousClock.now - clock).seconds
            var prepared = PreparedLoad(scan: scan, options: file.options, startedAt: startedAt, clock: clock)
            prepared.edit = file.plan
            return try engine.write(prepared)
        }
    }

    /// Inserts a well the store does not hold: ``apply(_:)-68xod`` of one ``WellEdit/insert(_:)``.
    ///
    /// ```swift
    /// var well = Well(pin: WellPin(id: 0, name: "Discovery 1", latitude: 40.1, longitude: -104.9),
    ///                 detail: WellDetail(identifier: "05-123-99999"))
    /// well.detail.status = "Permitted"
    /// try store.insert(well)
    /// ```
    @discardableResult
    public func insert(_ well: Well) throws -> LoadSummary { try apply([.insert(well)]) }

    /// Inserts wells the store does not hold, in one transaction.
    @discardableResult
    public func insert(contentsOf wells: some Sequence<Well>) throws -> LoadSummary { try apply(wells.map(WellEdit.insert)) }

    /// Writes every field of a stored well, matched by its identifier: ``apply(_:)-68xod`` of one ``WellEdit/update(_:)``.
    @discardableResult
    public func update(_ well: Well) throws -> LoadSummary { try apply([.update(well)]) }

    /// Writes stored wells, matched by their identifiers, in one transaction.
    @discardableResult
    public func update(contentsOf wells: some Sequence<Well>) throws -> LoadSummary { try apply(wells.map(WellEdit.update)) }

    /// Deletes the well of `identifier`: its pin, its detail and its flag.
    ///
    /// - Throws: ``WellEditError/Code/notStored`` when the store holds no such well.
    @discardableResult
    public func delete(identifier: String) throws -> LoadSummary { try apply([.delete(identifier: identifier)]) }

    /// Deletes the wells of `identifiers`, in one transaction.
    @discardableResult
    public func delete(identifiers: some Sequence<String>) throws -> LoadSummary { try apply(identifiers.map { .delete(identifier: $0) }) }

    // MARK: Async

    /// ``apply(_:)-68xod`` without blocking the caller's thread: the write runs on a thread of its own,
    /// outside Swift's cooperative pool, while the task waits.
    @discardableResult
    public func apply(_ edits: [WellEdit]) async throws -> LoadSummary {
        try await Self.offThePool { [self] in try apply(edits) }
    }

    /// ``insert(_:)-7xzi6`` without blocking the caller's thread.
    @discardableResult
    public func insert(_ well: Well) async throws -> LoadSummary { try await apply([.insert(well)]) }

    /// ``insert(contentsOf:)`` without blocking the caller's thread.
    @discardableResult
    public func insert(contentsOf wells: some Sequence<Well>) async throws -> LoadSummary { try await apply(wells.map(WellEdit.insert)) }

    /// ``update(_:)`` without blocking the caller's thread.
    @discardableResult
    public func update(_ well: Well) async throws -> LoadSummary { try await apply([.update(well)]) }

    /// ``update(contentsOf:)`` without blocking the caller's thread.
    @discardableResult
    public func update(contentsOf wells: some Sequence<Well>) async throws -> LoadSummary { try await apply(wells.map(WellEdit.update)) }

    /// ``delete(identifier:)-6qggd`` without blocking the caller's thread.
    @discardableResult
    public func delete(identifier: String) async throws -> LoadSummary { try await apply([.delete(identifier: identifier)]) }

    /// ``delete(identifiers:)`` without blocking the caller's thread.
    @discardableResult
    public func delete(identifiers: some Sequence<String>) async throws -> LoadSummary {
        try await apply(identifiers.map { .delete(identifier: $0) })
    }
}
