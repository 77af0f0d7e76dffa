import GRDB

/// What a SQLite store's compact detail rows (schema version 3) refer to, as the loader's
/// ``RowBuilder`` writes them: the codes of the lookup tables' names and the positions of
/// `extra_keys`.
///
/// A row keeps a date as its day number (``ValueParsing/days(year:month:day:)``), a repeated name
/// (``WellField/lookupTable``) as its code, with ``Schema/nullCode`` for none, and its unmapped
/// values as a JSON array by position (``ExtraArray``), so that no row repeats a name or a key.
/// Readers get the text back through ``WellField/sqliteValue(_:)`` and ``DetailColumn/sqliteSelection``.
///
/// The builder's thread asks for codes while the writer's binds the rows before: a name new to
/// the store gets the next code here and rides in its batch (``RowBatch/newNames``) to the writer,
/// which stores it (``insert(_:into:)``) before the batch's rows.
// @unchecked Sendable: used by the one builder thread of a load (RowPipeline), then dropped.
// Its mutable properties are `@exclusivity(unchecked)`, as ``RowBatch``'s are: one thread, several lookups a row.
package final class CompactDetails: @unchecked Sendable {
    /// Per detail value field (``WellField/detailValueFields``): the lookup's codes by name as
    /// UTF-8, empty for a field kept in its row (``hasLookup(_:)``). Keyed by bytes (``ByteCodes``) so
    /// that a row's name is looked up where it lies, without making a `String` (eight per row, a
    /// large share of the builder thread's time to make and free) or copying it.
    private let codes: [ByteCodes]
    private let lookups: [Bool]
    @exclusivity(unchecked) private var nextCode: [Int64]
    /// Per column of the file: its position in `extra_keys` (-1 for a column that never holds an extra value).
    let extraPositions: [Int]
    /// The codes of the extra values kept once (``ExtraValues``), by their UTF-8, the store's and this load's.
    private let extraCodes: ByteCodes
    @exclusivity(unchecked) private var nextExtraCode: Int64 = 1
    /// Per column of the file: the values this load met in it, each with its code, or 0 for a value
    /// met once so far. A value that repeats is found with one lookup. A column that meets more
    /// than ``ExtraValues/distinctPerColumn`` values is no longer looked up: its later values stay text.
    private let extraMet: [ByteCodes]

    /// Reads the store's lookups and extra keys, and adds to `extra_keys` the names of the file's
    /// columns `extraColumns` (those that may hold a value no field takes), in the order a row
    /// lists them, so that a store loaded once lists each row's values in the order of the file.
    init(_ db: Database, header: [String], extraColumns: [Int]) throws {
        var codes: [ByteCodes] = []
        nextCode = []
        lookups = WellField.detailValueFields.map { $0.lookupTable != nil }
        for field in WellField.detailValueFields {
            guard let table = field.lookupTable else {
                codes.append(ByteCodes())
                nextCode.append(0)
                continue
            }
            let (names, largest) = try Self.codes(db, sql: "SELECT code, value FROM \(table) WHERE value IS NOT NULL", none: Schema.nullCode)
            codes.append(names)
            nextCode.append(largest + 1)
        }
        self.codes = codes
        var positions: [String: Int] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT position, name FROM extra_keys") { positions[row[1]] = row[0] }
        var next = (positions.values.max() ?? -1) + 1
        let insert = try db.makeStatement(sql: "INSERT INTO extra_keys(position, name) VALUES (?, ?)")
        var columnPositions = Array(repeating: -1, count: header.count)
        for column in extraColumns {
            let name = header[column]
            if let position = positions[name] {
                columnPositions[column] = position
                continue
            }
            try insert.execute(arguments: [next, name])
            positions[name] = next
            columnPositions[column] = next
            next += 1
        }
        extraPositions = columnPositions
        extraMet = header.map { _ in ByteCodes() }
        let (values, largest) = try Self.codes(db, sql: "SELECT code, value FROM \(ExtraValues.table)", none: 0)
        extraCodes = values
        nextExtraCode = largest + 1
    }

    /// The codes a store's table holds by name (`sql` selects code, value), and the largest code, `none` when it holds none.
    private static func codes(_ db: Database, sql: String, none: Int64) throws -> (ByteCodes, largest: Int64) {
        let codes = ByteCodes()
        var largest = none
        let rows = try Row.fetchCursor(db, sql: sql)
        while let row = try rows.next() {
            var name: String = row[1]
            let code: Int64 = row[0]
            name.withUTF8 { codes.set($0, code) }
            largest = max(largest, code)
        }
        return (codes, largest)
    }

    /// Whether the field of detail value `slot` is kept as a code.
    @inline(__always) func hasLookup(_ slot: Int) -> Bool { lookups[slot] }

    /// The code of the name `bytes` (UTF-8) of detail value `slot`, a new one noted in `batch`.
    func code(_ slot: Int, _ bytes: UnsafeBufferPointer<UInt8>, _ batch: RowBatch) -> Int64 {
        if let code = codes[slot][bytes] { return code }
        let code = nextCode[slot]
        nextCode[slot] += 1
        codes[slot].set(bytes, code)
        batch.newNames.append((slot, code, String(decoding: bytes, as: UTF8.self)))
        return code
    }

    /// The code of field `index` of `fields`, a name of detail value `slot`.
    ///
    /// A method rather than a closure at the caller's: a closure that captured this object and the
    /// batch retained and released both on each of a row's eight lookups (`perf`). Not
    /// inlined: inlined into the builder, it retained them again.
    @inline(never)
    func code(_ slot: Int, of fields: RecordFields, _ index: Int, _ batch: RowBatch) -> Int64 {
        fields.withText(index) { code(slot, $0, batch) }
    }

    /// Adds field `index` of `fields`, an extra value at `position`, to `extras`: as its code when
    /// it has one (``extraCode(column:_:_:)``), else as text.
    @inline(never)
    func appendExtra(_ fields: RecordFields, _ index: Int, position: Int, to extras: inout ExtraArray, _ batch: RowBatch) {
        fields.withText(index) { value in
            if let code = extraCode(column: index, value, batch) {
                extras.append(position: position, code: code)
            } else {
                extras.append(position: position, value: value)
            }
        }
    }

    /// The code of the extra value `bytes` (UTF-8) of the file's column `column`, or nil to keep it
    /// as text: a value the store or this load has coded, or one this column met before in the
    /// load, gets one (a new one noted in `batch`), when its code is shorter than its quoted text.
    func extraCode(column: Int, _ bytes: UnsafeBufferPointer<UInt8>, _ batch: RowBatch) -> Int64? {
        guard extraMet[column].count < ExtraValues.distinctPerColumn else { return nil }
        if let met = extraMet[column][bytes] {
            if met > 0 { return met }
            // The second time: the store's code for it (met in another column), or a new one.
            let code: Int64
            if let known = extraCodes[bytes] {
                code = known
            } else {
                guard bytes.count + 2 > Self.decimalDigits(nextExtraCode) else { return nil }
                code = nextExtraCode
                nextExtraCode += 1
                extraCodes.set(bytes, code)
                batch.newExtraValues.append((code, String(decoding: bytes, as: UTF8.self)))
            }
            extraMet[column].set(bytes, code)
            return code
        }
        // The first time in this load: a value the store has coded keeps its code.
        let known = extraCodes[bytes]
        extraMet[column].set(bytes, known ?? 0)
        return known
    }

    private static func decimalDigits(_ value: Int64) -> Int {
        var digits = 1, rest = value
        while rest >= 10 { rest /= 10; digits += 1 }
        return digits
    }

    /// Stores the extra values new in a batch, before its rows refer to them.
    static func insert(extraValues: [(code: Int64, value: String)], into db: Database) throws {
        guard !extraValues.isEmpty else { return }
        let statement = try db.cachedStatement(sql: "INSERT INTO \(ExtraValues.table)(code, value) VALUES (?, ?)")
        for (code, value) in extraValues { try statement.execute(arguments: [code, value]) }
    }

    /// Stores the names new in a batch, before its rows refer to them.
    static func insert(_ names: [(slot: Int, code: Int64, name: String)], into db: Database) throws {
        for (slot, code, name) in names {
            let table = WellField.detailValueFields[slot].lookupTable!
            try db.execute(sql: "INSERT INTO \(table)(code, value) VALUES (?, ?)", arguments: [code, name])
        }
    }
}
