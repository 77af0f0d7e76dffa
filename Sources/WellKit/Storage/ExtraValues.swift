/// Extra values that repeat, kept once (schema version 4): `extra_values(code, value)`, a row's
/// array holding the code (a JSON integer) where it would hold the text (a JSON string). Unmapped
/// columns hold text only, so an integer in the array is always a code.
///
/// The loader codes a value of a column from its second appearance in the load (the first stays
/// text), and any value the store has already coded. It codes the columns of few values (a
/// status, a source, a datum): once a column has met ``distinctPerColumn`` distinct values, its
/// later values stay text and are no longer looked up, so that a column of values that rarely
/// repeat (a page per well, licence numbers, dates) costs the load's builder no time and no memory.
enum ExtraValues {
    static let table = "extra_values"
    /// How many distinct values of one column a load codes.
    static let distinctPerColumn = 1024

    /// SQL for the text of an extra value, from its JSON type and value (`j.type` and `j.atom` of
    /// `json_each`, or `typeof(x)` and `x` of a stored value): a code's text, or the text itself.
    static func text(type: String, value: String) -> String {
        "CASE \(type) WHEN 'integer' THEN (SELECT v.value FROM \(table) v WHERE v.code = \(value)) ELSE \(value) END"
    }

    /// SQL that is true where `stored` (an extra value as its row's array holds it: text or code)
    /// is one of `values` (each bound as text): the text itself, or the code of one, in one `IN`
    /// so that each row's value is read once and none is read back to text. `extra.X = V` and
    /// `in` so cost what they cost when every value was text (decoding each row's value would slow
    /// a count down). Null where `stored` is null, as a comparison of the text would be.
    static func isOne(_ stored: BoundSQL, of values: [BoundSQL]) -> BoundSQL {
        let rows: [BoundSQL] = values.map { "(\($0))" }
        return "\(stored) IN (VALUES \(rows.joined(separator: ", ")) \(sql: codesOfValues) (\(values.joined(separator: ", "))))"
    }

    /// The fixed text of ``isOne(_:of:)`` between the texts and the texts again (the predicate fuzzer allows it).
    static let codesOfValues = "UNION ALL SELECT v.code FROM \(table) v WHERE v.value IN"

    /// SQL that is true where `stored` (an extra value as its row's array holds it) meets
    /// `condition`, a condition on a text such as `beginswith` or `<`: on a code, whether it is one
    /// of the codes whose text meets it (SQLite runs that list once per statement), on a text the
    /// condition itself. Null where `stored` is null, as the condition on the decoded text was.
    /// Decoding every row's value instead (a lookup per coded row) would make `count --where
    /// 'extra.mode beginswith Flow'` slower than when every value was text.
    /// `type` is the stored value's JSON type (``WellAttribute/storedExtraType(_:)``).
    static func meets(_ stored: BoundSQL, type: BoundSQL, _ condition: (BoundSQL) -> BoundSQL) -> BoundSQL {
        "CASE \(type) \(sql: whenCode) \(stored) \(sql: codesWhere) \(condition(BoundSQL(sql: codeText)))) ELSE \(condition(stored)) END"
    }

    /// The fixed texts of ``meets(_:_:)`` (the predicate fuzzer allows them).
    static let whenCode = "WHEN 'integer' THEN", codesWhere = "IN (SELECT v.code FROM \(table) v WHERE", codeText = "v.value"
}
