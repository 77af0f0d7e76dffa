/// Parses the `--where` syntax into a ``WellPredicate``, never into SQL text.
///
/// For example:
///
/// ```swift
/// let predicate = try WellPredicate(parsing: #"status = Abandoned and operator contains[cd] "acme""#)
/// ```
///
/// The grammar, case-insensitive for keywords:
///
/// ```
/// expr       := term ("or" term)*
/// term       := factor ("and" factor)*
/// factor     := "not" factor | "(" expr ")" | comparison
/// comparison := FIELD OP VALUE | FIELD "is" ["not"] "null"
///             | FIELD "between" VALUE "and" VALUE | FIELD "in" "(" VALUE ("," VALUE)* ")"
/// FIELD      := a field (status, detail.spud_date) or extra.NAME, an unmapped source column;
///               quoted ("extra.Well Name") when the name holds a space, a quote or ( ) , = ! < >
/// OP         := = == != <> < <= > >= | contains | beginswith | endswith, and = == != <> contains
///               beginswith endswith each optionally [c], [d] or [cd]
/// VALUE      := "double-quoted" | 'single-quoted' | a bare word (a number if it parses as one)
/// ```
///
/// `[c]` folds case and `[d]` diacritics on both sides: `status =[c] abandoned` matches "Abandoned",
/// `county =[cd] "ecija"` matches "Écija". On a field that holds numbers or dates `=[c]` is `=`.
/// An extra column's values are text: they compare and match as text (`extra.DEPTH > 90` holds
/// for "950" and not for "1200").
///
/// Limits, so that no input can overflow the parser's stack or SQLite's (whose parser nests at most
/// about 45 `NOT (` and whose expressions are at most 1,000 deep): ``WellPredicate/maximumDepth`` (32)
/// levels of `not` and parentheses, and ``WellPredicate/maximumTerms`` (500) comparisons, each value of
/// an `in` list counting as one. A value must be able to match its field: a number for `id`, `lat`,
/// `lon`, `total_depth` and the elevations; a date (`2001-01-12`, `1/12/2001`, `20010112`), a year
/// or a month (`2001`, `2001-01`) for the dates, which are compared as ISO text.
extension WellPredicate {
    /// Parses one `--where` expression.
    ///
    /// - Throws: ``QueryError`` with the text, the offending token and its character offset, naming
    ///   the limit it passes, or listing the valid fields for an unknown one.
    /// - Complexity: O(n) in the length of `text`; the recursion is at most ``maximumDepth`` deep.
    public init(parsing text: String) throws {
        var parser = PredicateParser(tokens: try PredicateParser.tokenize(text), text: text)
        self = try parser.expression()
        if let extra = parser.peek() {
            throw parser.error("unexpected \"\(extra.text)\" at character \(extra.offset) after a complete condition; join conditions with and/or", at: extra)
        }
        try validate()
    }
}

struct PredicateParser {
    struct Token: Equatable {
        var text: String
        var quoted = false
        /// The 1-based character offset of the token in the text, for messages.
        var offset = 0
    }

    private var tokens: [Token]
    private var position = 0
    private let text: String
    /// How many `not`s and parentheses enclose the factor being parsed.
    private var depth = 0
    /// Comparisons so far, each value of an `in` list counting as one.
    private var terms = 0

    init(tokens: [Token], text: String) {
        self.tokens = tokens
        self.text = text
    }

    static func tokenize(_ text: String) throws -> [Token] {
        var tokens: [Token] = []
        var chars = Array(text)
        chars.append(" ")
        var i = 0
        while i < chars.count {
            let c = chars[i]
            if c.isWhitespace { i += 1; continue }
            if c == "\"" || c == "'" {
                var value = ""
                var j = i + 1
                while j < chars.count - 1 && chars[j] != c {
                    if chars[j] == "\\" && j + 1 < chars.count - 1 { j += 1 }
                    value.append(chars[j])
                    j += 1
                }
                guard j < chars.count - 1 else {
                    throw QueryError(.syntax, "the quote opened at character \(i + 1) is never closed", subject: .predicate, text: text, token: String(c), offset: i + 1)
                }
                tokens.append(Token(text: value, quoted: true, offset: i + 1))
                i = j + 1
            } else if "(),".contains(c) {
                tokens.append(Token(text: String(c), offset: i + 1))
                i += 1
            } else if "=!<>".contains(c) {
                var op = String(c)
                if "=<>".contains(chars[i + 1]) && op != "=" || (op == "=" && chars[i + 1] == "=") { op.append(chars[i + 1]) }
                tokens.append(Token(text: op, offset: i + 1))
                i += op.count
            } else {
                let start = i
                var word = ""
                while i < chars.count && !chars[i].isWhitespace && !"(),=!<>\"'".contains(chars[i]) {
                    word.append(chars[i])
                    i += 1
                }
                tokens.append(Token(text: word, offset: start + 1))
            }
        }
        return tokens
    }

    func peek() -> Token? { position < tokens.count ? tokens[position] : nil }

    private mutating func next() -> Token? {
        defer { position += 1 }
        return peek()
    }

    private mutating func accept(_ keyword: String) -> Bool {
        if let token = peek(), !token.quoted, token.text.lowercased() == keyword {
            position += 1
            return true
        }
        return false
    }

    func error(_ message: String, _ code: QueryError.Code = .syntax, at token: Token? = nil, field: WellAttribute? = nil) -> QueryError {
        QueryError(code, message, subject: .predicate, text: text, token: token?.text, offset: token?.offset, field: field?.field)
    }

    /// The text for a message: whole up to 80 characters, else its start and end.
    static func quoted(_ text: String) -> String { QueryError.shortened(text) }

    mutating func expression() throws -> WellPredicate {
        var terms = [try term()]
        while accept("or") { terms.append(try term()) }
        return terms.count == 1 ? terms[0] : .or(terms)
    }

    private mutating func term() throws -> WellPredicate {
        var factors = [try factor()]
        while accept("and") { factors.append(try factor()) }
        return factors.count == 1 ? factors[0] : .and(factors)
    }

    private mutating func factor() throws -> WellPredicate {
        if let token = peek(), !token.quoted, ["not", "("].contains(token.text.lowercased()) {
            guard depth < WellPredicate.maximumDepth else {
                throw error("\"\(token.text)\" at character \(token.offset) nests deeper than \(WellPredicate.maximumDepth) levels of not and parentheses, the limit", .tooComplex, at: token)
            }
            depth += 1
            defer { depth -= 1 }
            if accept("not") { return .not(try factor()) }
            position += 1
            let inner = try expression()
            guard accept(")") else { throw error("expected \")\"" + (peek().map { " at character \($0.offset)" } ?? " at the end")) }
            return inner
        }
        return try comparison()
    }

    /// Counts `count` more terms, throwing past the limit.
    private mutating func count(_ count: Int, at token: Token) throws {
        terms += count
        if terms > WellPredicate.maximumTerms {
            throw error("more than \(WellPredicate.maximumTerms) comparisons (each value of an in list counts as one), the limit, at \"\(token.text)\", character \(token.offset)", .tooComplex, at: token)
        }
    }

    /// Throws when `value` cannot match `field`, quoting the value and saying what would.
    private func check(_ value: PredicateValue, for field: WellAttribute, token: Token) throws {
        if let expected = value.mismatch(for: field) {
            throw error("\(field.name) is \(expected); \"\(token.text)\" at character \(token.offset) is not", .invalidValue, at: token, field: field)
        }
    }

    private mutating func comparison() throws -> WellPredicate {
        guard let fieldToken = next() else { throw error("expected a field name, such as status") }
        let field: WellAttribute
        do { field = try WellAttribute(keyPath: fieldToken.text) } catch let e as QueryError { throw error(e.message + " (character \(fieldToken.offset))", e.code, at: fieldToken) }
        try count(1, at: fieldToken)
        guard let opToken = next() else { throw error("expected an operator after \"\(fieldToken.text)\", such as = or contains") }
        let op = opToken.text.lowercased()
        if op == "is" {
            let negated = accept("not")
            guard accept("null") else { throw error("expected null after \"is\"") }
            return negated ? .not(.isNull(field)) : .isNull(field)
        }
        if op == "between" {
            let low = try value(for: field)
            guard accept("and") else { throw error("expected \"and\" in between … and …") }
            return .between(field, low, try value(for: field))
        }
        if op == "in" {
            guard accept("(") else { throw error("expected \"(\" after in") }
            var values = [try value(for: field)]
            while let comma = peek(), !comma.quoted, comma.text == "," {
                position += 1
                try count(1, at: comma)
                values.append(try value(for: field))
            }
            guard accept(")") else { throw error("expected \")\" to close the in list") }
            return .in(field, values)
        }
        // `=[c]`: the tokenizer ends an operator at `[`, which starts the next word.
        var name = op, options: StringOptions = [], modifier = opToken.text, attached = false
        if let comparison = Self.comparisons[op] {
            guard [.equal, .notEqual].contains(comparison), let next = peek(), !next.quoted, next.text.hasPrefix("["),
                  next.offset == opToken.offset + opToken.text.count else {
                return .compare(field, comparison, try value(for: field))
            }
            position += 1
            name = comparison.rawValue
            modifier = next.text
            attached = true
        }
        if let bracket = modifier.firstIndex(of: "["), modifier.hasSuffix("]") {
            if bracket != modifier.startIndex { name = String(modifier[..<bracket]).lowercased() }
            for flag in modifier[modifier.index(after: bracket)..<modifier.index(before: modifier.endIndex)].lowercased() {
                switch flag {
                case "c": options.insert(.caseInsensitive)
                case "d": options.insert(.diacriticInsensitive)
                default: throw error("unknown modifier \"\(flag)\" in \"\(opToken.text)\"; use [c], [d] or [cd]", at: opToken)
                }
            }
        } else if attached {
            throw error("expected [c], [d] or [cd] right after \"\(opToken.text)\", got \"\(modifier)\"", at: opToken)
        }
        guard let stringOp = StringOperator(rawValue: name) else {
            throw error("unknown operator \"\(opToken.text)\"; use = != < <= > >= contains beginswith endswith between in or is null", at: opToken)
        }
        if stringOp == .equals || stringOp == .notEquals, field.kind != .text {
            // Folding leaves numbers and ISO dates as they are: compare them as values, so that
            // `spud_date =[c] 1/12/2001` finds 2001-01-12.
            return .compare(field, stringOp == .equals ? .equal : .notEqual, try value(for: field))
        }
        guard case .text(let text) = try value(raw: true) else { throw error("expected text after \(name)") }
        return .string(field, stringOp, text, options: options)
    }

    private mutating func value(raw: Bool = false) throws -> PredicateValue {
        guard let token = next(), token.quoted || !["(", ")", ","].contains(token.text) else {
            throw error("expected a value" + (peek().map { " at character \($0.offset)" } ?? " at the end"))
        }
        if !token.quoted && !raw, let number = ValueParsing.number(token.text) { return .number(number) }
        return .text(token.text)
    }

    /// A value compared with `field`: a bare number is a number only for a numeric field (so
    /// `county = 007` keeps its zeros), and the value must be able to match the field.
    private mutating func value(for field: WellAttribute) throws -> PredicateValue {
        let token = peek()
        let value = try value(raw: field.kind == .text || field.kind == .date)
        if let token { try check(value, for: field, token: token) }
        return value
    }

    private static let comparisons: [String: WellPredicate.Comparison] = [
        "=": .equal, "==": .equal, "!=": .notEqual, "<>": .notEqual, "<": .less, "<=": .lessOrEqual, ">": .greater, ">=": .greaterOrEqual,
    ]
}

typealias StringOperator = WellPredicate.StringOperator
typealias StringOptions = WellPredicate.StringOptions
