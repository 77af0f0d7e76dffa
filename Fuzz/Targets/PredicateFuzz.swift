import GRDB  // the stand-in of Fuzz/Shims/GRDB.swift

// Fuzz target `predicate`: the `--where` parser and its SQL.
//
// Checks, beyond "never traps": a predicate that parses stays within the depth and term limits
// and compiles to SQL made only of allow-listed columns, keywords, `?` and punctuation, with one
// argument per `?` and every value of the predicate among the arguments, an `extra.NAME` column's
// name among them too (its JSON path, or the key itself when the name holds a quote).

// The SQL text that the compiler renders for each attribute (WellAttribute.sql, .key,
// .storedExtra and .storedExtraType, the one place that does): a field's decoded column, a date's day-number column and
// an extra column's lookup, decoded or as stored, whose name is bound, never written; and the
// fixed texts of ExtraValues.isOne, which compares a stored extra value with texts and their codes,
// and of ExtraValues.meets, which applies another condition to a stored extra value's text or code.
private let columns = (WellField.allCases.flatMap { [WellAttribute($0).sql(.sqlite).text, WellAttribute($0).key(.sqlite).text] }
    + [WellAttribute.extra("x").sql(.sqlite).text, WellAttribute.extra("x").storedExtra(.sqlite)!.text,
       WellAttribute.extra("x").storedExtraType(.sqlite)!.text,
       ExtraValues.codesOfValues, ExtraValues.whenCode, ExtraValues.codesWhere, ExtraValues.codeText])
    .sorted { $0.count > $1.count }
private let keywords: Set<String> = ["AND", "OR", "NOT", "IN", "BETWEEN", "IS", "NULL", "instr", "substr", "length", "wellkit_fold",
                                     "json_extract", "SELECT", "value", "FROM", "json_each", "WHERE", "key", "VALUES",
                                     "CASE", "ELSE", "END"]

@_cdecl("LLVMFuzzerTestOneInput")
public func predicateFuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    guard let predicate = try? WellPredicate(parsing: text) else { return 0 }
    let limits = predicate.measure()
    precondition(limits.depth <= WellPredicate.maximumSQLDepth && limits.terms <= WellPredicate.maximumTerms, "WellPredicate: over the limits: \(limits)")
    do { try predicate.validate() } catch { fatalError("WellPredicate: parsed but does not validate: \(error)") }

    var (sql, arguments) = predicate.sql().rendered
    precondition(sql.filter { $0 == "?" }.count == arguments.values.count, "WellPredicate.sql: placeholders and arguments differ: \(sql)")
    for column in columns { sql = sql.split(separator: column, omittingEmptySubsequences: false).joined(separator: " ") }
    for word in sql.split(whereSeparator: { !($0.isLetter || $0 == "_") }) {
        precondition(keywords.contains(String(word)), "WellPredicate.sql: \"\(word)\" in SQL text")
    }
    precondition(sql.allSatisfy { $0.isLetter || "_ ()?,=!<>-0123456789".contains($0) }, "WellPredicate.sql: unexpected character in \(sql)")

    var stack = [predicate]
    while let p = stack.popLast() {
        switch p {
        case .compare(let field, _, let value): check(value, field, arguments); check(field, arguments)
        case .between(let field, let low, let high): check(low, field, arguments); check(high, field, arguments); check(field, arguments)
        case .in(let field, let values): values.forEach { check($0, field, arguments) }; if !values.isEmpty { check(field, arguments) }
        case .string(let field, _, let text, _):
            precondition(arguments.values.contains(text.databaseValue), "WellPredicate.sql: \"\(text)\" not an argument")
            check(field, arguments)
        case .isNull(let field): check(field, arguments)
        case .and(let ps), .or(let ps): stack += ps
        case .not(let inner): stack.append(inner)
        }
    }
    return 0
}

private func check(_ value: PredicateValue, _ field: WellAttribute, _ arguments: StatementArguments) {
    precondition(arguments.values.contains(value.bound(for: field, .sqlite)), "WellPredicate.sql: \(value) not an argument")
}

/// An extra column's name is an argument: the key, or its JSON path (which holds the name).
private func check(_ field: WellAttribute, _ arguments: StatementArguments) {
    guard case .extra(let name) = field.storage else { return }
    precondition(arguments.values.contains { value in
        guard case .string(let text) = value.storage else { return false }
        return text == name || text.hasPrefix("$.")
    }, "WellPredicate.sql: the column \"\(name)\" not an argument")
}
