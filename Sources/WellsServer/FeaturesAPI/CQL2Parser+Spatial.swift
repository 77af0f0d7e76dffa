import Foundation
import WellKit

/// `S_INTERSECTS` of ``CQL2Filter``: its geometry literals read into an ``Area`` or a box.
extension CQL2Parser {
    mutating func spatial() throws -> Node {
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
