import Foundation
import WellKit

/// The tokens and the recursive descent of ``CQL2Filter``: the logic here, the comparisons in
/// `CQL2Parser+Comparisons.swift` and `S_INTERSECTS` in `CQL2Parser+Spatial.swift`.
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
    struct Operand {
        var field: WellAttribute?
        var literal: Literal?
        var token: Token
        var options: WellPredicate.StringOptions = []
    }

    enum Literal { case text(String), number(Double, String), date(String) }

    let characters: [Character]
    private let text: String
    var tokens: [Token] = []
    var position = 0
    var depth = 0
    var terms = 0

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

    mutating func next(_ expected: String) throws -> Token {
        guard let token = peek() else { throw error("expected \(expected) at the end of the filter (character \(characters.count + 1))", offset: characters.count + 1) }
        position += 1
        return token
    }

    mutating func accept(_ keyword: String) -> Bool {
        guard let token = peek(), token.isKeyword(keyword) || token.isSymbol(keyword) else { return false }
        position += 1
        return true
    }

    mutating func expect(_ symbol: String, _ context: String) throws {
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
}
