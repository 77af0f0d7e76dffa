import GRDBSQLite

/// Rows ready to bind: for each well, the cells of its pin and its detail.
///
/// A text cell is in the batch's ``arena``: the field's bytes copied there by the builder, or the
/// text it made (unescaped quotes, Latin-1 turned into UTF-8, a date rewritten as `yyyy-mm-dd`, the
/// JSON of the other columns). Text once pointed into the mapped file, so that only SQLite copied
/// it; but the writer then read each name and identifier at a random place of the file (wells are
/// written in spatial order), a cache and TLB miss on the writer's thread, which with the builder's
/// bounds the load. The builder copies bytes it has just read, and the writer reads one arena in
/// order (Benchmarks/README.md's "The rows' text in one arena").
// @unchecked Sendable: RowPipeline hands a batch between two threads with semaphores; one uses it at a time.
// Its mutable properties are `@exclusivity(unchecked)` for the same reason: a row appends some 25
// cells, and each append to a class's property was checked at run time (with the builder's, a share of a load's CPU in `perf`).
package final class RowBatch: @unchecked Sendable {
    /// The cells of a row, in this order: the pin's name, lat and lon, then the detail's columns in
    /// ``DetailColumn/all`` order, but `load_id`, which the writer binds once per load.
    package enum Column {
        static let name = 0, lat = 1, lon = 2
        /// The first detail cell: the detail column at index `k` is cell `detail + k`.
        package static let detail = 3
        static let identifier = detail + DetailColumn.index(of: .identifier)
        static let values = detail + DetailColumn.index(of: .value(WellField.detailValueFields[0]))
        static let sourceX = detail + DetailColumn.index(of: .sourceX)
        static let sourceY = detail + DetailColumn.index(of: .sourceY)
        static let sourceCRS = detail + DetailColumn.index(of: .sourceCRS)
        static let extra = detail + DetailColumn.index(of: .extra)
        package static let width = detail + DetailColumn.index(of: .loadID)
    }

    /// How many rows a batch holds.
    static let capacity = 1024

    /// The positions, in the write order, of this batch's rows.
    package var rows: Range<Int> = 0..<0
    @exclusivity(unchecked) var cells: [Cell] = []
    /// Text made for this batch's rows.
    @exclusivity(unchecked) var arena: [UInt8] = []
    /// The names new to a SQLite store's lookups that this batch's rows refer to (``CompactDetails``):
    /// the writer stores them before the rows.
    @exclusivity(unchecked) var newNames: [(slot: Int, code: Int64, name: String)] = []
    /// The extra values this batch's rows are the first to keep as codes (``ExtraValues``).
    @exclusivity(unchecked) var newExtraValues: [(code: Int64, value: String)] = []

    init() {
        cells.reserveCapacity(Self.capacity * Column.width)
        arena.reserveCapacity(Self.capacity * 160)
    }

    func reset(rows: Range<Int>) {
        self.rows = rows
        cells.removeAll(keepingCapacity: true)
        arena.removeAll(keepingCapacity: true)
        newNames.removeAll(keepingCapacity: true)
        newExtraValues.removeAll(keepingCapacity: true)
    }

    /// The cells of the `k`-th row of the batch.
    @inline(__always) func row(_ k: Int) -> ArraySlice<Cell> {
        cells[(k * Column.width)..<((k + 1) * Column.width)]
    }

    /// Appends `bytes` to the arena and returns a text cell for them.
    @inline(__always) func arenaText(_ bytes: UnsafeBufferPointer<UInt8>) -> Cell {
        let offset = arena.count
        arena.append(contentsOf: bytes)
        return Cell(kind: .arenaText, count: Int32(bytes.count), payload: UInt64(offset))
    }

    /// A cell as text, for `--dry-run`'s preview; nil for a null.
    func text(of cell: Cell) -> String? {
        switch cell.kind {
        case .null: return nil
        case .real: return String(Double(bitPattern: cell.payload))
        case .integer: return String(Int64(bitPattern: cell.payload))
        case .arenaText: return withText(cell) { String(decoding: $0, as: UTF8.self) }
        }
    }

    @inline(__always) private func withText<R>(_ cell: Cell, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        return arena.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[Int(cell.payload)..<(Int(cell.payload) + Int(cell.count))])) }
    }

    /// Calls `body` with the batch's cells and arena in place, to bind its rows.
    package func withRows<R>(_ body: (BindableRows) throws -> R) rethrows -> R {
        try cells.withUnsafeBufferPointer { cells in
            try arena.withUnsafeBufferPointer { arena in try body(BindableRows(cells: cells, arena: arena.baseAddress)) }
        }
    }
}

/// A batch's rows in place, bound to statements row by row without a copy.
package struct BindableRows {
    package let cells: UnsafeBufferPointer<Cell>
    package let arena: UnsafePointer<UInt8>?

    /// Row `k`'s pin coordinates, as bound (a pin's are always numbers).
    @inline(__always) func coordinates(row k: Int) -> (lon: Double, lat: Double) {
        let base = k * RowBatch.Column.width
        assert(cells[base + RowBatch.Column.lon].kind == .real && cells[base + RowBatch.Column.lat].kind == .real)
        return (Double(bitPattern: cells[base + RowBatch.Column.lon].payload), Double(bitPattern: cells[base + RowBatch.Column.lat].payload))
    }

    /// Binds the cells `columns` of row `k` to parameters `first`, `first + 1`… of `statement`.
    ///
    /// Text is bound without a copy (`SQLITE_STATIC`): the arena outlives the statement's step,
    /// and the writer clears the bindings before the batch is refilled.
    @inline(__always)
    func bind(row k: Int, _ columns: Range<Int>, to statement: OpaquePointer, from first: Int32) {
        var index = first
        for column in columns {
            let cell = cells[k * RowBatch.Column.width + column]
            switch cell.kind {
            case .null:
                sqlite3_bind_null(statement, index)
            case .real:
                sqlite3_bind_double(statement, index, Double(bitPattern: cell.payload))
            case .integer:
                sqlite3_bind_int64(statement, index, Int64(bitPattern: cell.payload))
            case .arenaText:
                sqlite3_bind_text(statement, index, UnsafeRawPointer(arena! + Int(cell.payload)).assumingMemoryBound(to: CChar.self),
                                  cell.count, SQLITE_STATIC)
            }
            index += 1
        }
    }
}

/// One value of a row: null, a real, an integer (a SQLite store's day numbers and codes), or
/// UTF-8 text in a batch's arena.
package struct Cell: Sendable {
    package enum Kind: UInt8, Sendable {
        case null, real, integer, arenaText
    }

    package var kind: Kind
    /// The text's length in bytes.
    package var count: Int32
    /// The real's or integer's bits, or the offset of arena text.
    package var payload: UInt64

    static let null = Cell(kind: .null, count: 0, payload: 0)

    @inline(__always) static func real(_ value: Double) -> Cell { Cell(kind: .real, count: 0, payload: value.bitPattern) }

    @inline(__always) static func integer(_ value: Int64) -> Cell { Cell(kind: .integer, count: 0, payload: UInt64(bitPattern: value)) }
}

private let SQLITE_STATIC = unsafeBitCast(0, to: sqlite3_destructor_type.self)
