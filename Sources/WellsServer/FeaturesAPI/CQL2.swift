import Foundation
import WellKit

/// A filter in CQL2 text (OGC 21-065, the language of OGC API – Features Part 3), read into what
/// the library queries with: a ``WellPredicate`` for the comparisons, and an ``Area`` or boxes for
/// `S_INTERSECTS`. Never SQL text: property names resolve through ``WellAttribute`` (fields and `extra.NAME`), literals become
/// the predicate's bound values.
///
/// For example:
///
/// ```swift
/// let filter = try CQL2Filter(parsing: "S_INTERSECTS(geometry, POLYGON((-90.1 35, -89.9 35, -89.9 35.2, -90.1 35))) AND status = 'Abandoned'")
/// request.predicate = filter.predicate   // status = "Abandoned"
/// request.within = filter.area
/// ```
///
/// Here rather than in WellKit: CQL2 is the HTTP API's filter language, with its conformance
/// classes, `filter-lang` and `filter-crs`; the library's text language stays `--where`, and
/// what CQL2 is read into (``WellPredicate``, ``Area``, ``BoundingBox``) is its public API.
///
/// What is read (keywords in any case):
///
/// ```
/// filter     := and ("OR" and)*
/// and        := not ("AND" not)*
/// not        := "NOT" not | "(" filter ")" | TRUE | FALSE | spatial | predicate
/// predicate  := operand ( ("=" | "<>" | "<" | "<=" | ">" | ">=") operand
///                       | ["NOT"] ("LIKE" | "ILIKE") operand | ["NOT"] "BETWEEN" operand "AND" operand
///                       | ["NOT"] "IN" "(" operand ("," operand)* ")" | "IS" ["NOT"] "NULL" )
/// operand    := property | "double-quoted property" | 'text' | number | DATE('yyyy-mm-dd')
///             | CASEI "(" operand ")" | ACCENTI "(" operand ")"
/// spatial    := S_INTERSECTS "(" geometry "," literal ")", either way round
/// literal    := POINT(x y) | BBOX(minx, miny, maxx, maxy) | POLYGON(…) | MULTIPOLYGON(…), x longitude, y latitude
/// ```
///
/// - `LIKE` becomes `contains` (`'%acme%'`), `beginswith` (`'acme%'`), `endswith` (`'%acme'`),
///   equality (no wildcard) or `is not null` (`'%'`); `\` escapes `%` and `_`. Other patterns, and
///   `_`, are refused. `CASEI`/`ACCENTI` (and GDAL's `ILIKE`) add `[c]`/`[d]` to those.
/// - `S_INTERSECTS` with a polygon keeps the wells in it or on its boundary (``Area``); with a box,
///   those in the box, edges included; with a point, the wells exactly at it (a box of zero size,
///   answered through the spatial index). It must be the whole filter or a term of the top-level
///   `AND` chain; at most one with a polygon (any number of boxes and points, intersected).
/// - Limits, the predicate's own: ``WellPredicate/maximumDepth`` levels of `NOT` and parentheses,
///   ``WellPredicate/maximumTerms`` comparisons (each value of an `IN` list counting as one), and
///   ``maximumLength`` characters.
struct CQL2Filter: Equatable {
    /// The comparisons, or nil when the filter is only spatial.
    var predicate: WellPredicate?
    /// The polygon or multipolygon of an `S_INTERSECTS`.
    var area: Area?
    /// The boxes of `S_INTERSECTS` with `BBOX` and `POINT`, all of which a well must be in.
    var boxes: [BoundingBox] = []

    /// The longest filter read, in characters: room for a county's outline in a URL.
    static let maximumLength = 100_000

    /// Reads a CQL2 text filter.
    ///
    /// - Throws: ``QueryError`` (subject `.predicate`) whose message names the character offset of what is wrong.
    init(parsing text: String) throws {
        let characters = Array(text)
        guard characters.count <= Self.maximumLength else {
            throw QueryError(.tooComplex, "the filter is \(characters.count) characters long, more than the limit of \(Self.maximumLength)", subject: .predicate)
        }
        var parser = CQL2Parser(characters: characters, text: text)
        try parser.tokenize()
        let node = try parser.filter()
        if let extra = parser.peek() {
            throw parser.error("unexpected \(extra.shown) at character \(extra.offset) after a complete condition; join conditions with AND or OR", at: extra)
        }
        // The top-level AND chain, nested ANDs included: where S_INTERSECTS may stand.
        var conjuncts: [CQL2Parser.Node] = []
        var pending = [node]
        while let next = pending.popLast() {
            if case .and(let terms) = next { pending += terms.reversed() } else { conjuncts.append(next) }
        }
        var predicates: [WellPredicate] = []
        var areaOffset: Int?
        for conjunct in conjuncts {
            switch conjunct {
            case .spatial(.area(let area), let offset):
                if let areaOffset {
                    throw parser.error("S_INTERSECTS with a polygon at character \(offset) beside the one at character \(areaOffset): one polygon per filter is supported; give their intersection as one POLYGON or MULTIPOLYGON", offset: offset)
                }
                self.area = area
                areaOffset = offset
            case .spatial(.box(let box), _):
                boxes.append(box)
            default:
                predicates.append(try conjunct.predicate(parser))
            }
        }
        if !predicates.isEmpty { predicate = predicates.count == 1 ? predicates[0] : .and(predicates) }
    }
}

/// The tokens and the recursive descent of ``CQL2Filter``.
struct CQL2Parser {
    struct Token {
        enum Kind { case word, quotedName, text, number, symbol }
        var kind: Kind
        /// The word, name, text (quotes removed), number or symbol as written.
        var value: String
        /// 1-based character offset of the token's first character, for messages.
        var offset: Int
        /// The index just past the token in the characters.
        var end: Int

        func isKeyword(_ keyword: String) -> Bool { kind == .word && value.uppercased() == keyword }
        func isSymbol(_ symbol: String) -> Bool { kind == .symbol && value == symbol }
        var shown: String { kind == .text ? "'\(QueryError.shortened(value))'" : "\"\(QueryError.shortened(value))\"" }
    }

    /// The parsed filter, before S_INTERSECTS is checked to stand where it may.
    indirect enum Node {
        case predicate(WellPredicate)
        case and([Node]), or([Node]), not(Node)
        case spatial(Spatial, offset: Int)

        /// The predicate of a node with no S_INTERSECTS in it.
        func predicate(_ parser: CQL2Parser) throws -> WellPredicate {
            switch self {
            case .predicate(let p): return p
            case .and(let nodes): return .and(try nodes.map { try $0.predicate(parser) })
            case .or(let nodes): return .or(try nodes.map { try $0.predicate(parser) })
            case .not(let node): return .not(try node.predicate(parser))
            case .spatial(_, let offset):
                throw parser.error("S_INTERSECTS at character \(offset) is under OR or NOT; it is supported as the whole filter or as a term of the top-level AND chain, such as S_INTERSECTS(geometry, POLYGON((…))) AND status = 'Abandoned'", offset: offset)
            }
        }
    }

    enum Spatial { case area(Area), box(BoundingBox) }

    /// A side of a comparison: a property, or a literal with its token (for messages).
    private struct Operand {
        var field: WellAttribute?
        var literal: Literal?
        var token: Token
        var options: WellPredicate.StringOptions = []
    }

    private enum Literal { case text(String), number(Double, String), date(String) }

    private let characters: [Character]
    private let text: String
    private var tokens: [Token] = []
    private var position = 0
    private var depth = 0
    private var terms = 0

    init(characters: [Character], text: String) {
        self.characters = characters
        self.text = text
    }

    // MARK: - Tokens

    mutating func tokenize() throws {
        var i = 0
        let count = characters.count
        while i < count {
            let c = characters[i]
            if c.isWhitespace { i += 1; continue }
            let start = i
            if c == "'" || c == "\"" {
                // 'text' with '' or \' for a quote; "name" with "" for a quote.
                var value = ""
                i += 1
                while true {
                    guard i < count else {
                        throw error("the quote opened at character \(start + 1) is never closed", offset: start + 1)
                    }
                    if characters[i] == c {
                        if i + 1 < count, characters[i + 1] == c { value.append(c); i += 2; continue }
                        i += 1
                        break
                    }
                    if c == "'", characters[i] == "\\", i + 1 < count, characters[i + 1] == "'" { value.append("'"); i += 2; continue }
                    value.append(characters[i])
                    i += 1
                }
                tokens.append(Token(kind: c == "'" ? .text : .quotedName, value: value, offset: start + 1, end: i))
            } else if c.isNumber && c.isASCII || ((c == "." || c == "-" || c == "+") && i + 1 < count && (characters[i + 1].isASCII && characters[i + 1].isNumber || characters[i + 1] == ".")) {
                i += 1
                while i < count, characters[i].isASCII, characters[i].isNumber || characters[i] == "." { i += 1 }
                if i < count, characters[i] == "e" || characters[i] == "E" {
                    var j = i + 1
                    if j < count, characters[j] == "+" || characters[j] == "-" { j += 1 }
                    if j < count, characters[j].isASCII, characters[j].isNumber {
                        i = j
                        while i < count, characters[i].isASCII, characters[i].isNumber { i += 1 }
                    }
                }
                tokens.append(Token(kind: .number, value: String(characters[start..<i]), offset: start + 1, end: i))
            } else if c.isLetter || c == "_" {
                while i < count, characters[i].isLetter || characters[i].isNumber || "_.:".contains(characters[i]) { i += 1 }
                tokens.append(Token(kind: .word, value: String(characters[start..<i]), offset: start + 1, end: i))
            } else if "(),".contains(c) || c == "=" {
                i += 1
                tokens.append(Token(kind: .symbol, value: String(c), offset: start + 1, end: i))
            } else if c == "<" || c == ">" {
                i += 1
                if i < count, characters[i] == "=" || (c == "<" && characters[i] == ">") { i += 1 }
                tokens.append(Token(kind: .symbol, value: String(characters[start..<i]), offset: start + 1, end: i))
            } else {
                let hint = c == "!" ? "; CQL2 writes not equal as <>" : ""
                throw error("unexpected \"\(c)\" at character \(start + 1)\(hint)", offset: start + 1)
            }
        }
    }

    func peek() -> Token? { position < tokens.count ? tokens[position] : nil }

    private mutating func next(_ expected: String) throws -> Token {
        guard let token = peek() else { throw error("expected \(expected) at the end of the filter (character \(characters.count + 1))", offset: characters.count + 1) }
        position += 1
        return token
    }

    private mutating func accept(_ keyword: String) -> Bool {
        guard let token = peek(), token.isKeyword(keyword) || token.isSymbol(keyword) else { return false }
        position += 1
        return true
    }

    private mutating func expect(_ symbol: String, _ context: String) throws {
        let token = try next("\"\(symbol)\" \(context)")
        guard token.isSymbol(symbol) || token.isKeyword(symbol) else {
            throw error("expected \"\(symbol)\" \(context) at character \(token.offset), found \(token.shown)", at: token)
        }
    }

    func error(_ message: String, _ code: QueryError.Code = .syntax, at token: Token? = nil, offset: Int? = nil, field: WellAttribute? = nil) -> QueryError {
        QueryError(code, message, subject: .predicate, text: text, token: token?.value, offset: token?.offset ?? offset, field: field?.field)
    }

    // MARK: - Logic

    mutating func filter() throws -> Node {
        var terms = [try conjunction()]
        while accept("OR") { terms.append(try conjunction()) }
        return terms.count == 1 ? terms[0] : .or(terms)
    }

    private mutating func conjunction() throws -> Node {
        var factors = [try factor()]
        while accept("AND") { factors.append(try factor()) }
        return factors.count == 1 ? factors[0] : .and(factors)
    }

    private mutating func factor() throws -> Node {
        guard let token = peek() else { throw error("expected a condition at the end of the filter (character \(characters.count + 1)), such as status = 'Abandoned'", offset: characters.count + 1) }
        if token.isKeyword("NOT") || token.isSymbol("(") {
            guard depth < WellPredicate.maximumDepth else {
                throw error("\(token.shown) at character \(token.offset) nests deeper than \(WellPredicate.maximumDepth) levels of NOT and parentheses, the limit", .tooComplex, at: token)
            }
            depth += 1
            defer { depth -= 1 }
            position += 1
            if token.isKeyword("NOT") { return .not(try factor()) }
            let inner = try filter()
            try expect(")", "to close the parenthesis opened at character \(token.offset)")
            return inner
        }
        if token.isKeyword("TRUE") { position += 1; return .predicate(.and([])) }
        if token.isKeyword("FALSE") { position += 1; return .predicate(.or([])) }
        if token.isKeyword("S_INTERSECTS") { return try spatial() }
        if token.kind == .word, token.value.uppercased().hasPrefix("S_") || token.value.uppercased().hasPrefix("T_") || token.value.uppercased().hasPrefix("A_"),
           let after = tokens.dropFirst(position + 1).first, after.isSymbol("(") {
            throw error("\(token.value) at character \(token.offset) is not supported; the spatial function here is S_INTERSECTS", at: token)
        }
        return .predicate(try predicate())
    }

    // MARK: - Comparisons

    private mutating func predicate() throws -> WellPredicate {
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

    // MARK: - S_INTERSECTS

    private mutating func spatial() throws -> Node {
        let function = try next("S_INTERSECTS")
        try expect("(", "after S_INTERSECTS")
        var geometry: Spatial?
        var sawProperty = false
        for index in 0..<2 {
            if index == 1 { try expect(",", "between the arguments of S_INTERSECTS") }
            let token = try next("an argument of S_INTERSECTS")
            if token.kind != .text, ["geometry", "geom"].contains(token.value.lowercased()) {
                guard !sawProperty else { throw error("S_INTERSECTS at character \(function.offset) compares the geometry with a literal, such as S_INTERSECTS(geometry, POINT(-90 35))", at: token) }
                sawProperty = true
            } else if token.kind == .word, Self.geometryTypes.contains(token.value.uppercased()) {
                guard geometry == nil else { throw error("S_INTERSECTS at character \(function.offset) compares the geometry with one literal; found a second at character \(token.offset)", at: token) }
                geometry = try literal(token)
            } else {
                throw error("expected geometry or a geometry literal (POINT, BBOX, POLYGON, MULTIPOLYGON) at character \(token.offset), found \(token.shown)", at: token)
            }
        }
        try expect(")", "to close S_INTERSECTS opened at character \(function.offset)")
        guard sawProperty, let geometry else {
            throw error("S_INTERSECTS at character \(function.offset) compares the property geometry with a literal, such as S_INTERSECTS(geometry, BBOX(-90.1, 35, -89.9, 35.2))", at: function)
        }
        return .spatial(geometry, offset: function.offset)
    }

    /// WKT's geometry types and CQL2's BBOX: literals (the ones not supported are refused as such).
    private static let geometryTypes: Set<String> = ["POINT", "BBOX", "POLYGON", "MULTIPOLYGON", "LINESTRING", "MULTIPOINT", "MULTILINESTRING", "GEOMETRYCOLLECTION", "ENVELOPE"]

    /// A geometry literal whose keyword is `keyword`: the tokens to its closing parenthesis.
    private mutating func literal(_ keyword: Token) throws -> Spatial {
        let kind = keyword.value.uppercased()
        // Its extent: the keyword, optionally Z/M/ZM, and balanced parentheses.
        let first = position
        var level = 0
        var last: Token?
        while let token = peek() {
            position += 1
            if token.isSymbol("(") { level += 1 } else if token.isSymbol(")") { level -= 1 }
            if level == 0, token.isSymbol(")") { last = token; break }
            if level == 0, !(token.kind == .word && ["Z", "M", "ZM"].contains(token.value.uppercased())) {
                throw error("expected ( after \(keyword.value) at character \(token.offset)", at: token)
            }
            if level > 0, !(token.kind == .number || token.kind == .symbol && "(),".contains(token.value)) {
                throw error("unexpected \(token.shown) in \(keyword.value) at character \(token.offset); its coordinates are numbers, x (longitude) then y (latitude)", at: token)
            }
        }
        guard let last else { throw error("\(keyword.value) opened at character \(keyword.offset) is never closed", offset: keyword.offset) }
        let inner = tokens[first..<(position - 1)].filter { $0.kind == .number }.map { Double($0.value) ?? .nan }
        do {
            switch kind {
            case "POINT":
                guard inner.count == 2 || inner.count == 3 else { throw error("POINT at character \(keyword.offset) takes x y (longitude latitude), such as POINT(-90 35)", at: keyword) }
                return .box(try BoundingBox(minLongitude: inner[0], minLatitude: inner[1], maxLongitude: inner[0], maxLatitude: inner[1]))
            case "BBOX":
                guard inner.count == 4 else { throw error("BBOX at character \(keyword.offset) takes four numbers, minimum longitude, minimum latitude, maximum longitude, maximum latitude, such as BBOX(-90.1, 35, -89.9, 35.2)", at: keyword) }
                return .box(try BoundingBox(minLongitude: inner[0], minLatitude: inner[1], maxLongitude: inner[2], maxLatitude: inner[3]))
            case "POLYGON", "MULTIPOLYGON":
                let wkt = String(characters[(keyword.offset - 1)..<last.end])
                do { return .area(try Area(wkt: wkt)) } catch let e as QueryError {
                    // Area counts from the literal's start; say where in the filter.
                    var reason = e.reason
                    if let local = e.offset, let colon = reason.range(of: ": "), reason.hasPrefix("WKT at character") {
                        reason = "\(reason[colon.upperBound...]) at character \(keyword.offset + local - 1)"
                    }
                    throw error("\(kind) at character \(keyword.offset): \(reason)", e.code, offset: keyword.offset + (e.offset ?? 1) - 1)
                }
            default:
                throw error("\(keyword.value) at character \(keyword.offset) is not supported in S_INTERSECTS; use POINT, BBOX, POLYGON or MULTIPOLYGON", at: keyword)
            }
        } catch let e as QueryError where e.subject != .predicate {
            throw error("\(kind) at character \(keyword.offset): \(e.message)", e.code, offset: keyword.offset)
        }
    }
}
