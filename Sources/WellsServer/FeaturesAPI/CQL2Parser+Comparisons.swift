import Foundation
import WellKit

/// The comparisons of ``CQL2Filter``: operands, operators and literals read into ``WellPredicate`` terms.
extension CQL2Parser {
    mutating func predicate() throws -> WellPredicate {
        let left = try operand()
        try count(1, at: left.token)
        let opToken = try next("an operator after \(left.token.shown), such as =, LIKE, IN or IS NULL")
        let op = opToken.value.uppercased()
        if op == "IS" {
            let negated = accept("NOT")
            try expect("NULL", "after IS")
            let field = try property(left, "IS NULL")
            return negated ? .not(.isNull(field)) : .isNull(field)
        }
        var negated = false
        var opWord = op
        if op == "NOT", opToken.kind == .word {
            let after = try next("LIKE, BETWEEN or IN after NOT")
            negated = true
            opWord = after.value.uppercased()
        }
        let result: WellPredicate
        switch opWord {
        case "LIKE", "ILIKE":
            let pattern = try operand()
            result = try like(left, pattern, caseInsensitive: opWord == "ILIKE")
        case "BETWEEN":
            let low = try operand()
            try expect("AND", "between the bounds of BETWEEN")
            let high = try operand()
            let field = try property(left, "BETWEEN")
            try plain(left, low, high)
            result = .between(field, try value(low, for: field), try value(high, for: field))
        case "IN":
            try expect("(", "after IN")
            var values = [try operand()]
            while accept(",") { values.append(try operand()); try count(1, at: values[values.count - 1].token) }
            try expect(")", "to close the IN list")
            let field = try property(left, "IN")
            try plain([left] + values)
            result = .in(field, try values.map { try value($0, for: field) })
        default:
            guard !negated, opToken.kind == .symbol, let comparison = Self.comparisons[opToken.value] else {
                throw error("unknown operator \(opToken.shown) at character \(opToken.offset); use = <> < <= > >= LIKE BETWEEN IN or IS NULL", at: opToken)
            }
            let right = try operand()
            try plain(left, right)
            // Property on either side: `'Abandoned' = status` reads as `status = 'Abandoned'`.
            if left.field == nil, let field = right.field {
                guard left.literal != nil else { throw error("compare a property with a value, such as status = 'Abandoned' (at character \(left.token.offset))", at: left.token) }
                result = .compare(field, Self.flipped[comparison]!, try value(left, for: field))
            } else {
                let field = try property(left, opToken.value)
                result = .compare(field, comparison, try value(right, for: field))
            }
        }
        return negated ? .not(result) : result
    }

    private static let comparisons: [String: WellPredicate.Comparison] = ["=": .equal, "<>": .notEqual, "<": .less, "<=": .lessOrEqual, ">": .greater, ">=": .greaterOrEqual]
    private static let flipped: [WellPredicate.Comparison: WellPredicate.Comparison] = [.equal: .equal, .notEqual: .notEqual, .less: .greater, .lessOrEqual: .greaterOrEqual, .greater: .less, .greaterOrEqual: .lessOrEqual]

    /// `LIKE` as the string operators: `%` at the start, the end or both; no `_`.
    private mutating func like(_ left: Operand, _ pattern: Operand, caseInsensitive: Bool) throws -> WellPredicate {
        let field = try property(left, "LIKE")
        guard field.kind == .text || field.kind == .date else {
            throw error("\(field.name) is a number; LIKE compares text (at character \(left.token.offset))", .invalidValue, at: left.token, field: field)
        }
        guard pattern.field == nil, case .text(let text)? = pattern.literal else {
            throw error("LIKE takes a pattern in quotes, such as '%acme%', at character \(pattern.token.offset)", at: pattern.token)
        }
        var options = left.options.union(pattern.options)
        if caseInsensitive { options.insert(.caseInsensitive) }
        // The pattern as literal runs and wildcards; `\` escapes the next character.
        var parts: [String?] = []   // nil is %
        var literal = ""
        var escaped = false
        for c in text {
            if escaped { literal.append(c); escaped = false; continue }
            switch c {
            case "\\": escaped = true
            case "%":
                if !literal.isEmpty { parts.append(literal); literal = "" }
                if parts.last.map({ $0 == nil }) != true { parts.append(nil) }
            case "_":
                throw error("LIKE pattern \(pattern.token.shown) at character \(pattern.token.offset): _ (any one character) is not supported; use % at the start and/or the end, or \\_ for an underscore", .invalidValue, at: pattern.token, field: field)
            default: literal.append(c)
            }
        }
        if escaped { literal.append("\\") }
        if !literal.isEmpty { parts.append(literal) }
        switch parts.count {
        case 0 where options.isEmpty: return .compare(field, .equal, .text(""))
        case 1 where parts[0] == nil: return .not(.isNull(field))
        case 1 where options.isEmpty: return .compare(field, .equal, .text(parts[0]!))
        case 2 where parts[0] != nil: return .string(field, .beginsWith, parts[0]!, options: options)
        case 2 where parts[1] != nil: return .string(field, .endsWith, parts[1]!, options: options)
        case 3 where parts[1] != nil && parts[0] == nil: return .string(field, .contains, parts[1]!, options: options)
        case 0, 1:
            throw error("CASEI/ACCENTI with a LIKE pattern without % (\(pattern.token.shown), character \(pattern.token.offset)) is not supported; match a part with '%text%', 'text%' or '%text'", .invalidValue, at: pattern.token, field: field)
        default:
            throw error("LIKE pattern \(pattern.token.shown) at character \(pattern.token.offset) is not supported: put % only at the start, the end or both ('%acme%', 'acme%', '%acme')", .invalidValue, at: pattern.token, field: field)
        }
    }

    /// An operand: a property, a literal, or CASEI/ACCENTI around one.
    private mutating func operand() throws -> Operand {
        let token = try next("a property or a value")
        let upper = token.kind == .word ? token.value.uppercased() : ""
        if upper == "CASEI" || upper == "ACCENTI" || upper == "DATE" || upper == "TIMESTAMP", peek()?.isSymbol("(") == true {
            guard depth < WellPredicate.maximumDepth else {
                throw error("\(token.shown) at character \(token.offset) nests deeper than \(WellPredicate.maximumDepth) levels, the limit", .tooComplex, at: token)
            }
            depth += 1
            defer { depth -= 1 }
            position += 1
            var inner = try operand()
            try expect(")", "to close \(token.value)( opened at character \(token.offset)")
            switch upper {
            case "CASEI": inner.options.insert(.caseInsensitive)
            case "ACCENTI": inner.options.insert(.diacriticInsensitive)
            case "DATE":
                guard inner.field == nil, case .text(let text)? = inner.literal else {
                    throw error("DATE takes a date in quotes, such as DATE('2001-01-12'), at character \(token.offset)", at: token)
                }
                inner.literal = .date(text)
            default:
                throw error("TIMESTAMP at character \(token.offset) is not supported: the wells' dates are days; use DATE('2001-01-12')", at: token)
            }
            return inner
        }
        switch token.kind {
        case .text: return Operand(literal: .text(token.value), token: token)
        case .number:
            guard let number = Double(token.value), number.isFinite else { throw error("\(token.shown) at character \(token.offset) is not a number", at: token) }
            return Operand(literal: .number(number, token.value), token: token)
        case .word, .quotedName:
            if token.kind == .word, ["AND", "OR", "NOT", "LIKE", "BETWEEN", "IN", "IS", "NULL"].contains(upper) {
                throw error("expected a property or a value at character \(token.offset), found \(token.value)", at: token)
            }
            if token.kind == .word, upper == "TRUE" || upper == "FALSE" {
                throw error("\(token.value) at character \(token.offset): no property of the wells is true or false", .invalidValue, at: token)
            }
            if token.value.lowercased() == "geometry" {
                throw error("geometry at character \(token.offset) can only be compared with S_INTERSECTS(geometry, …)", at: token)
            }
            do {
                return Operand(field: try WellAttribute(keyPath: token.value), token: token)
            } catch let e as QueryError {
                throw error(e.message + " (at character \(token.offset)); the queryables are at /collections/wells/queryables", e.code, at: token)
            }
        case .symbol:
            throw error("expected a property or a value at character \(token.offset), found \(token.shown)", at: token)
        }
    }

    /// The field of an operand that must be a property.
    private func property(_ operand: Operand, _ what: String) throws -> WellAttribute {
        guard let field = operand.field else {
            throw error("\(what) needs a property on its left, such as status, at character \(operand.token.offset)", at: operand.token)
        }
        return field
    }

    /// Refuses CASEI/ACCENTI where the predicate has no such option (=, <, BETWEEN, IN).
    private func plain(_ operands: Operand...) throws { try plain(operands) }
    private func plain(_ operands: [Operand]) throws {
        if let folded = operands.first(where: { !$0.options.isEmpty }) {
            throw error("CASEI/ACCENTI at character \(folded.token.offset) work with LIKE only here, such as CASEI(operator) LIKE CASEI('%acme%')", at: folded.token)
        }
    }

    /// A literal as `field` compares it: numbers for numeric fields, days for dates, text for text.
    private func value(_ operand: Operand, for field: WellAttribute) throws -> PredicateValue {
        guard let literal = operand.literal else {
            throw error("comparing two properties (\(operand.token.value) at character \(operand.token.offset)) is not supported; compare a property with a value", at: operand.token)
        }
        let token = operand.token
        switch (field.kind, literal) {
        case (.integer, .number(let n, _)), (.real, .number(let n, _)):
            return .number(n)
        case (.integer, _), (.real, _):
            throw error("\(field.name) is a number; \(token.shown) at character \(token.offset) is not (write numbers without quotes, such as 1500)", .invalidValue, at: token, field: field)
        case (.date, .text(let text)), (.date, .date(let text)):
            guard let day = Self.day(text) else {
                throw error("\(field.name) is a date; \(token.shown) at character \(token.offset) is not one: write DATE('2001-01-12'), or '2001-01-12', '2001-01' or '2001'", .invalidValue, at: token, field: field)
            }
            return .text(day)
        case (.date, .number):
            throw error("\(field.name) is a date; \(token.shown) at character \(token.offset) is a number: write DATE('2001-01-12')", .invalidValue, at: token, field: field)
        case (.text, .text(let text)), (.text, .date(let text)), (.text, .number(_, let text)):
            return .text(text)
        }
    }

    /// `yyyy-mm-dd`, `yyyy-mm` or `yyyy` (compared as ISO text prefixes, as `--where` does); a
    /// trailing `T`, as GDAL writes dates, is dropped.
    private static func day(_ text: String) -> String? {
        let day = text.hasSuffix("T") ? String(text.dropLast()) : text
        let parts = day.split(separator: "-", omittingEmptySubsequences: false)
        guard (1...3).contains(parts.count), parts[0].count == 4,
              parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy { $0.isASCII && $0.isNumber } }) else { return nil }
        if parts.count >= 2 { guard parts[1].count == 2, let month = Int(parts[1]), (1...12).contains(month) else { return nil } }
        if parts.count == 3 { guard parts[2].count == 2, let d = Int(parts[2]), (1...31).contains(d) else { return nil } }
        return day
    }

    /// Counts `count` more comparisons, throwing past the limit.
    private mutating func count(_ count: Int, at token: Token) throws {
        terms += count
        if terms > WellPredicate.maximumTerms {
            throw error("more than \(WellPredicate.maximumTerms) comparisons (each value of an IN list counts as one), the limit, at character \(token.offset)", .tooComplex, at: token)
        }
    }
}
