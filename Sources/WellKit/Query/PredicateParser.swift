/// Parses the `--where` syntax into a ``Predicate``, never into SQL text.
///
/// For example:
///
/// ```swift
/// let predicate = try Predicate(parsing: #"status = Abandoned and operator contains[cd] "acme""#)
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
/// OP         := = == != <> < <= > >= | contains | beginswith | endswith, each optionally [c], [d] or [cd]
/// VALUE      := "double-quoted" | 'single-quoted' | a bare word (a number if it parses as one)
/// ```
extension Predicate {
    /// Parses one `--where` expression.
    ///
    /// - Throws: ``StoreError`` quoting the offending token, or listing the valid fields for an unknown one.
    public init(parsing text: String) throws {
        var parser = PredicateParser(tokens: try PredicateParser.tokenize(text), text: text)
        self = try parser.expression()
        if let extra = parser.peek() {
            throw parser.error("unexpected \"\(extra.text)\" after a complete condition; join conditions with and/or")
        }
    }
}

struct PredicateParser {
    struct Token: Equatable {
        var text: String
        var quoted = false
    }

    private var tokens: [Token]
    private var position = 0
    private let text: String

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
                    throw StoreError(.invalidArgument, "--where \"\(text)\": the quote opened at character \(i + 1) is never closed")
                }
                tokens.append(Token(text: value, quoted: true))
                i = j + 1
            } else if "(),".contains(c) {
                tokens.append(Token(text: String(c)))
                i += 1
            } else if "=!<>".contains(c) {
                var op = String(c)
                if "=<>".contains(chars[i + 1]) && op != "=" || (op == "=" && chars[i + 1] == "=") { op.append(chars[i + 1]) }
                tokens.append(Token(text: op))
                i += op.count
            } else {
                var word = ""
                while i < chars.count && !chars[i].isWhitespace && !"(),=!<>\"'".contains(chars[i]) {
                    word.append(chars[i])
                    i += 1
                }
                tokens.append(Token(text: word))
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

    func error(_ message: String) -> StoreError {
        StoreError(.invalidArgument, "--where \"\(text)\": \(message)")
    }

    mutating func expression() throws -> Predicate {
        var terms = [try term()]
        while accept("or") { terms.append(try term()) }
        return terms.count == 1 ? terms[0] : .or(terms)
    }

    private mutating func term() throws -> Predicate {
        var factors = [try factor()]
        while accept("and") { factors.append(try factor()) }
        return factors.count == 1 ? factors[0] : .and(factors)
    }

    private mutating func factor() throws -> Predicate {
        if accept("not") { return .not(try factor()) }
        if accept("(") {
            let inner = try expression()
            guard accept(")") else { throw error("expected \")\"") }
            return inner
        }
        return try comparison()
    }

    private mutating func comparison() throws -> Predicate {
        guard let fieldToken = next() else { throw error("expected a field name, such as status") }
        let field: WellField
        do { field = try WellField(keyPath: fieldToken.text) } catch let e as StoreError { throw error(e.message) }
        guard let opToken = next() else { throw error("expected an operator after \"\(fieldToken.text)\", such as = or contains") }
        let op = opToken.text.lowercased()
        if op == "is" {
            let negated = accept("not")
            guard accept("null") else { throw error("expected null after \"is\"") }
            return negated ? .not(.isNull(field)) : .isNull(field)
        }
        if op == "between" {
            let low = try value()
            guard accept("and") else { throw error("expected \"and\" in between … and …") }
            return .between(field, low, try value())
        }
        if op == "in" {
            guard accept("(") else { throw error("expected \"(\" after in") }
            var values = [try value()]
            while accept(",") { values.append(try value()) }
            guard accept(")") else { throw error("expected \")\" to close the in list") }
            return .in(field, values)
        }
        if let comparison = Self.comparisons[op] {
            return .compare(field, comparison, try value())
        }
        var name = op, options: StringOptions = []
        if let bracket = op.firstIndex(of: "["), op.hasSuffix("]") {
            name = String(op[..<bracket])
            for flag in op[op.index(after: bracket)..<op.index(before: op.endIndex)] {
                switch flag {
                case "c": options.insert(.caseInsensitive)
                case "d": options.insert(.diacriticInsensitive)
                default: throw error("unknown modifier \"\(flag)\" in \"\(opToken.text)\"; use [c], [d] or [cd]")
                }
            }
        }
        guard let stringOp = StringOperator(rawValue: name) else {
            throw error("unknown operator \"\(opToken.text)\"; use = != < <= > >= contains beginswith endswith between in or is null")
        }
        guard case .text(let text) = try value(raw: true) else { throw error("expected text after \(name)") }
        return .string(field, stringOp, text, options: options)
    }

    private mutating func value(raw: Bool = false) throws -> PredicateValue {
        guard let token = next(), token.quoted || !["(", ")", ","].contains(token.text) else {
            throw error("expected a value")
        }
        if !token.quoted && !raw, let number = Double(token.text) { return .number(number) }
        return .text(token.text)
    }

    private static let comparisons: [String: Predicate.Comparison] = [
        "=": .equal, "==": .equal, "!=": .notEqual, "<>": .notEqual, "<": .less, "<=": .lessOrEqual, ">": .greater, ">=": .greaterOrEqual,
    ]
}

typealias StringOperator = Predicate.StringOperator
typealias StringOptions = Predicate.StringOptions
