import GRDB

// Decoding the projections straight from GRDB rows: the fetches' hot path, with no `WellRow` in between.

extension WellPin {
    /// Decodes by position, in the order of ``selection``, straight from GRDB's row: the bounding-box
    /// fetches decode pins this way, with no ``WellRow`` in between.
    init(_ row: Row) {
        id = row[0]
        name = row[1]
        latitude = row[2]
        longitude = row[3]
    }

    /// Every pin `statement` selects, in order.
    static func fetchAll(_ statement: Statement) throws -> [WellPin] {
        try Array(Row.fetchCursor(statement).map(WellPin.init))
    }
}

extension Well {
    /// Decodes a row of ``selection``.
    init(_ row: Row) {
        pin = WellPin(row)
        detail = WellDetail(row: row, from: WellPin.selection.count)
    }

    /// Every well `statement` selects, in order.
    static func fetchAll(_ statement: Statement) throws -> [Well] {
        try Array(Row.fetchCursor(statement).map(Well.init))
    }
}
