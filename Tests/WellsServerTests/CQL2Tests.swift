import Foundation
import Testing
import WellKit
@testable import WellsServer

/// The CQL2 text reader of `filter=`: what each form becomes in the library's terms, where
/// S_INTERSECTS may stand, and errors that name the character at fault, within the predicate's limits.
@Suite struct CQL2Tests {
    private func parsed(_ text: String) throws -> WellPredicate? { try CQL2Filter(parsing: text).predicate }

    /// The error `text` gives, checked to be a QueryError naming `offset` in its message and field.
    private func refusal(_ text: String, at offset: Int? = nil, _ code: QueryError.Code? = nil,
                         sourceLocation: SourceLocation = #_sourceLocation) -> QueryError? {
        do {
            _ = try CQL2Filter(parsing: text)
            Issue.record("\(text) was read", sourceLocation: sourceLocation)
            return nil
        } catch let error as QueryError {
            if let offset {
                #expect(error.offset == offset, "\(text): \(error.message)", sourceLocation: sourceLocation)
                #expect(error.message.contains("character \(offset)"), "\(text): \(error.message)", sourceLocation: sourceLocation)
            }
            if let code { #expect(error.code == code, "\(text): \(error.message)", sourceLocation: sourceLocation) }
            return error
        } catch {
            Issue.record("\(text): \(error)", sourceLocation: sourceLocation)
            return nil
        }
    }

    @Test func andBindsTighterThanOrAndNotTighterThanAnd() throws {
        #expect(try parsed("status = 'A' OR type = 'B' AND total_depth > 100") == .or([
            .compare(.status, .equal, "A"), .and([.compare(.type, .equal, "B"), .compare(.totalDepth, .greater, 100)]),
        ]))
        #expect(try parsed("NOT status = 'A' AND type = 'B'") == .and([.not(.compare(.status, .equal, "A")), .compare(.type, .equal, "B")]))
        #expect(try parsed("(status = 'A' OR type = 'B') AND total_depth <= 100") == .and([
            .or([.compare(.status, .equal, "A"), .compare(.type, .equal, "B")]), .compare(.totalDepth, .lessOrEqual, 100),
        ]))
        #expect(try parsed("not (status <> 'A') or TRUE") == .or([.not(.compare(.status, .notEqual, "A")), .and([])]))
    }

    @Test func namesAndTextAreQuotedAsCQL2Says() throws {
        #expect(try parsed(#""status" = 'it''s' and "operator" = 'O\'Neil'"#) == .and([
            .compare(.status, .equal, "it's"), .compare(.operator, .equal, "O'Neil"),
        ]))
        // A value on the left reads as the same comparison turned round; names resolve as --where's (detail.NAME).
        #expect(try parsed("1000 < total_depth") == .compare(.totalDepth, .greater, 1000))
        #expect(try parsed("detail.county = 007") == .compare(.county, .equal, "007"))
        #expect(try parsed("id >= -1.5e1") == .compare(.id, .greaterOrEqual, -15))
    }

    @Test func likeBetweenInAndNullBecomeTheLibrarysPredicates() throws {
        #expect(try parsed("operator LIKE '%acme%'") == .string(.operator, .contains, "acme"))
        #expect(try parsed("operator LIKE 'acme%'") == .string(.operator, .beginsWith, "acme"))
        #expect(try parsed("operator LIKE '%acme'") == .string(.operator, .endsWith, "acme"))
        #expect(try parsed("operator LIKE 'acme'") == .compare(.operator, .equal, "acme"))
        #expect(try parsed("operator LIKE '%%'") == .not(.isNull(.operator)))
        #expect(try parsed(#"uwi LIKE '41\_%'"#) == .string(.identifier, .beginsWith, "41_"))
        #expect(try parsed("operator NOT LIKE '%acme%'") == .not(.string(.operator, .contains, "acme")))
        #expect(try parsed("CASEI(operator) LIKE CASEI('%acme%')") == .string(.operator, .contains, "acme", options: [.caseInsensitive]))
        #expect(try parsed("ACCENTI(CASEI(operator)) LIKE '%écho'") == .string(.operator, .endsWith, "écho", options: [.caseInsensitive, .diacriticInsensitive]))
        #expect(try parsed("operator ILIKE 'acme%'") == .string(.operator, .beginsWith, "acme", options: [.caseInsensitive]))
        #expect(try parsed("total_depth BETWEEN 100 AND 2000.5") == .between(.totalDepth, 100, 2000.5))
        #expect(try parsed("total_depth NOT BETWEEN 100 AND 200") == .not(.between(.totalDepth, 100, 200)))
        #expect(try parsed("status IN ('A', 'B')") == .in(.status, ["A", "B"]))
        #expect(try parsed("id NOT IN (1, 2)") == .not(.in(.id, [1, 2])))
        #expect(try parsed("plug_date IS NULL AND spud_date IS NOT NULL") == .and([.isNull(.plugDate), .not(.isNull(.spudDate))]))
        #expect(try parsed("spud_date >= DATE('2001-01-12') AND spud_date < '2002' AND plug_date = '2003-04-05T'") == .and([
            .compare(.spudDate, .greaterOrEqual, "2001-01-12"), .compare(.spudDate, .less, "2002"), .compare(.plugDate, .equal, "2003-04-05"),
        ]))
    }

    @Test func sIntersectsBecomesTheAreaOrABox() throws {
        let polygon = "POLYGON((-90.1 35, -89.9 35, -89.9 35.2, -90.1 35))"
        let filter = try CQL2Filter(parsing: "S_INTERSECTS(geometry, \(polygon)) AND status = 'Abandoned'")
        #expect(filter.area == (try Area(wkt: polygon)))
        #expect(filter.predicate == .compare(.status, .equal, "Abandoned") && filter.boxes.isEmpty)
        // Nested ANDs are still the top-level chain; the literal may come first; BBOX and POINT are boxes.
        let boxes = try CQL2Filter(parsing: "(s_intersects(BBOX(-90.1, 35, -89.9, 35.2), geometry) AND (S_INTERSECTS(geometry, POINT(-90 35.1)) AND id > 3))")
        #expect(boxes.boxes == [try BoundingBox(parsing: "-90.1,35,-89.9,35.2"), try BoundingBox(parsing: "-90,35.1,-90,35.1")])
        #expect(boxes.predicate == .compare(.id, .greater, 3) && boxes.area == nil)
        let multi = try CQL2Filter(parsing: "S_INTERSECTS(geometry, MULTIPOLYGON(((0 0, 1 0, 1 1, 0 0)), ((5 5, 6 5, 6 6, 5 5))))")
        #expect(multi.area?.polygons.count == 2 && multi.predicate == nil)
    }

    @Test func sIntersectsUnderOrOrNotIsRefusedNamingWhere() {
        let polygon = "POLYGON((-90.1 35, -89.9 35, -89.9 35.2, -90.1 35))"
        let under = refusal("status = 'A' OR S_INTERSECTS(geometry, \(polygon))", at: 17)
        #expect(under?.message.contains("top-level AND") == true)
        _ = refusal("NOT S_INTERSECTS(geometry, BBOX(0, 0, 1, 1))", at: 5)
        _ = refusal("S_INTERSECTS(geometry, \(polygon)) AND S_INTERSECTS(geometry, \(polygon))", at: 81)
        _ = refusal("S_INTERSECTS(geometry, LINESTRING(0 0, 1 1))", at: 24)
        _ = refusal("S_CONTAINS(geometry, POINT(0 0))", at: 1)
        _ = refusal("S_INTERSECTS(geometry, POLYGON((0 0, 1 0, 0 0)))", at: 24)
        _ = refusal("S_INTERSECTS(geometry, POLYGON((0 0, 1 0, x 1, 0 0)))", at: 43)
        _ = refusal("S_INTERSECTS(geometry, BBOX(0, 95, 1, 96))", at: 24)
        _ = refusal("S_INTERSECTS(status, POINT(0 0))", at: 14)
        _ = refusal("geometry = 'x'", at: 1)
    }

    @Test func errorsNameTheCharacterAtFault() {
        _ = refusal("depth > 10", at: 1, .unknownField)
        _ = refusal("status = ", at: 10)
        _ = refusal("status == 'A'", at: 9)
        _ = refusal("status != 'A'", at: 8)
        _ = refusal("status = 'A", at: 10)
        _ = refusal("status = 'A' status = 'B'", at: 14)
        _ = refusal("total_depth = '1200'", at: 15, .invalidValue)
        _ = refusal("spud_date > DATE('12/1/2001')", at: 18, .invalidValue)
        _ = refusal("spud_date > TIMESTAMP('2001-01-01T00:00:00Z')", at: 13)
        _ = refusal("operator LIKE 'a%b'", at: 15, .invalidValue)
        _ = refusal("operator LIKE 'a_b'", at: 15, .invalidValue)
        _ = refusal("CASEI(operator) = CASEI('acme')", at: 7)
        _ = refusal("(status = 'A'", at: 14)
        _ = refusal("status IN ()", at: 12)
        _ = refusal("status = name", at: 10)
    }

    @Test func limitsAreThePredicatesAndNoInputCrashes() {
        let deep = String(repeating: "(", count: 10_000) + "id = 1" + String(repeating: ")", count: 10_000)
        _ = refusal(deep, at: WellPredicate.maximumDepth + 1, .tooComplex)
        _ = refusal(String(repeating: "NOT ", count: 10_000) + "id = 1", at: 4 * WellPredicate.maximumDepth + 1, .tooComplex)
        _ = refusal(String(repeating: "CASEI(", count: 10_000) + "name) LIKE '%a%'", .tooComplex)
        let nested = String(repeating: "(", count: WellPredicate.maximumDepth) + "id = 1" + String(repeating: ")", count: WellPredicate.maximumDepth)
        #expect(throws: Never.self) { try CQL2Filter(parsing: nested) }
        let many = (0...WellPredicate.maximumTerms).map { "id = \($0)" }.joined(separator: " OR ")
        _ = refusal(many, .tooComplex)
        _ = refusal("id IN (" + (0...WellPredicate.maximumTerms).map(String.init).joined(separator: ",") + ")", .tooComplex)
        _ = refusal("name = '" + String(repeating: "x", count: CQL2Filter.maximumLength) + "'", .tooComplex)
        _ = refusal("S_INTERSECTS(geometry, POLYGON" + String(repeating: "(", count: 10_000) + ")", .syntax)
        for text in ["", "(", ")", "'", "\"", "AND", "NOT", "S_INTERSECTS(", "id IN (1", "id BETWEEN 1", "id IS", "\u{0}", "é = 'é'"] {
            _ = refusal(text)
        }
    }
}
