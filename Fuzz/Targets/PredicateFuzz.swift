import GRDB  // the stand-in of Fuzz/Shims/GRDB.swift

// Fuzz target `predicate`: the `--where` parser and its SQL.
//
// Checks, beyond "never traps": a predicate that parses stays within the depth and term limits
// and compiles to SQL made only of allow-listed columns, keywords, `?` and punctuation, with one
// argument per `?` and every value of the predicate among the arguments.

private let columns = WellField.allCases.map(\.qualifiedColumn).sorted { $0.count > $1.count }
private let keywords: Set<String> = ["AND", "OR", "NOT", "IN", "BETWEEN", "IS", "NULL", "instr", "substr", "length", "wellkit_fold"]

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
        case .compare(let field, _, let value): check(value, field, arguments)
        case .between(let field, let low, let high): check(low, field, arguments); check(high, field, arguments)
        case .in(let field, let values): values.forEach { check($0, field, arguments) }
        case .string(_, _, let text, _): precondition(arguments.values.contains(text.databaseValue), "WellPredicate.sql: \"\(text)\" not an argument")
        case .isNull: break
        case .and(let ps), .or(let ps): stack += ps
        case .not(let inner): stack.append(inner)
        }
    }
    return 0
}

private func check(_ value: PredicateValue, _ field: WellField, _ arguments: StatementArguments) {
    precondition(arguments.values.contains(value.bound(for: field)), "WellPredicate.sql: \(value) not an argument")
}
