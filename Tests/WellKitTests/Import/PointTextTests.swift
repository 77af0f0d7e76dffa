import Testing
@testable import WellKit

/// One column holding both coordinates: the forms read, in any case and between any spaces, and
/// the near misses refused.
@Suite struct PointTextTests {
    @Test(arguments: [
        ("POINT (-97.5 35.4)", -97.5, 35.4, nil, PointText.Form.wkt),
        ("  point(-97.5\t35.4)\t", -97.5, 35.4, nil, .wkt),
        ("\u{00A0}POINT Z (-97.5 35.4 300)\u{2003}", -97.5, 35.4, nil, .wkt),
        ("Point zm (1 2 3 4)", 1, 2, nil, .wkt),
        ("SRID=4326;POINT(-97.5 35.4)", -97.5, 35.4, 4326, .wkt),
        ("srid=32616; point (500000 4000000)", 500_000, 4_000_000, 32616, .wkt),
        ("(35.4, -97.5)", -97.5, 35.4, nil, .tuple),
        ("[35.4,-97.5]", -97.5, 35.4, nil, .tuple),
        ("35.4 , -97.5", -97.5, 35.4, nil, .tuple),
        ("37°36'37.8\"N 121°2'17.9\"W", -(121 + 2 / 60.0 + 17.9 / 3600), 37 + 36 / 60.0 + 37.8 / 3600, nil, .dmsPair),
    ] as [(String, Double, Double, Int?, PointText.Form)])
    func readsEachForm(_ text: String, _ x: Double, _ y: Double, _ srid: Int?, _ form: PointText.Form) throws {
        let point = try #require(PointText.parse(text))
        #expect(abs(point.x - x) < 1e-9 && abs(point.y - y) < 1e-9 && point.srid == srid && point.form == form, "\(point)")
    }

    @Test func decimalCommasSplitOnASemicolon() throws {
        let point = try #require(PointText.parse("(35,4; -97,5)", decimalComma: true))
        #expect(point == PointText.Point(x: -97.5, y: 35.4, srid: nil, form: .tuple))
    }

    @Test(arguments: ["", "   ", "POINT", "POINT ZZ (1 2)", "POINT (1)", "POINT (1 2 3 4 5)", "POINT )1 2(",
                      "SRID=x;POINT(1 2)", "SRID=4326;(35.4, -97.5)", "\u{1D}RID=4326;POINT(1 2)", "POINTS (1 2)x",
                      "35.4", "(35.4, -97.5, 3)", "abc, def", "N S"])
    func refusesWhatIsNotAPoint(_ text: String) {
        #expect(PointText.parse(text) == nil, "\(text)")
    }
}
