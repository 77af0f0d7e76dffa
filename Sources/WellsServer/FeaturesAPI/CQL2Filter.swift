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
