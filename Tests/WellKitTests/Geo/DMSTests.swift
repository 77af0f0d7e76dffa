import Testing
import WellKit

@Suite struct DMSTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let text: String
        let implied: DMS.Hemisphere?
        let expected: Double
        var testDescription: String { "\"\(text)\" implied \(implied.map { "\($0)" } ?? "none")" }
    }

    static let valid: [Case] = [
        // Compact DDMMSS / DDDMMSS (5-7 integer digits).
        Case(text: "875013.67", implied: nil, expected: 87 + 50 / 60 + 13.67 / 3600),
        Case(text: "875013.67", implied: .west, expected: -(87 + 50 / 60 + 13.67 / 3600)),
        Case(text: "0875013.67", implied: .west, expected: -(87 + 50 / 60 + 13.67 / 3600)),
        Case(text: "1143015", implied: .west, expected: -(114 + 30 / 60 + 15 / 3600)),
        Case(text: "365401.2", implied: .north, expected: 36 + 54 / 60 + 1.2 / 3600),
        Case(text: "365401.2", implied: .south, expected: -(36 + 54 / 60 + 1.2 / 3600)),
        Case(text: "50013", implied: nil, expected: 5 + 0 / 60 + 13 / 3600),
        Case(text: "-875013.67", implied: .west, expected: -(87 + 50 / 60 + 13.67 / 3600)),
        // Symbols, letters, separators.
        Case(text: "36°54'1.2\"N", implied: nil, expected: 36 + 54 / 60 + 1.2 / 3600),
        Case(text: "36°54'1.2\"S", implied: nil, expected: -(36 + 54 / 60 + 1.2 / 3600)),
        Case(text: "87 50 13.67 W", implied: nil, expected: -(87 + 50 / 60 + 13.67 / 3600)),
        Case(text: "-87°50'13.67\"", implied: nil, expected: -(87 + 50 / 60 + 13.67 / 3600)),
        Case(text: "36d54m1.2s N", implied: nil, expected: 36 + 54 / 60 + 1.2 / 3600),
        Case(text: "36d54m1.2s", implied: nil, expected: 36 + 54 / 60 + 1.2 / 3600),
        Case(text: "36 54 1.2S", implied: nil, expected: -(36 + 54 / 60 + 1.2 / 3600)),
        Case(text: "W 87° 50′ 13.67″", implied: nil, expected: -(87 + 50 / 60 + 13.67 / 3600)),
        Case(text: "87°50'13.67''W", implied: .west, expected: -(87 + 50 / 60 + 13.67 / 3600)),
        Case(text: "36:54:01.2", implied: nil, expected: 36 + 54 / 60 + 1.2 / 3600),
        Case(text: "36°30'", implied: nil, expected: 36.5),
        Case(text: "36° 30.5' N", implied: nil, expected: 36 + 30.5 / 60),
        Case(text: "87 50 13.67 E", implied: .west, expected: 87 + 50 / 60 + 13.67 / 3600),
        // 60.00 seconds, 59.996 rounded to two decimals, carries into the minute.
        Case(text: "36 54 60.00", implied: nil, expected: 36 + 55 / 60.0),
        Case(text: "0864060.00", implied: .west, expected: -(86 + 41 / 60.0)),
        // Plain decimal degrees.
        Case(text: "-87.837131", implied: nil, expected: -87.837131),
        Case(text: "87.837131", implied: .west, expected: -87.837131),
        Case(text: " 36.9 ", implied: nil, expected: 36.9),
        Case(text: "36.9N", implied: nil, expected: 36.9),
        Case(text: "0", implied: nil, expected: 0),
        Case(text: "\u{2212}87.5", implied: nil, expected: -87.5),
    ]

    @Test(arguments: valid) func parsesValid(_ item: Case) throws {
        let value = try DMS.parse(item.text, impliedHemisphere: item.implied)
        #expect(abs(value - item.expected) < 1e-10, "got \(value)")
        #expect(DMS.degrees(item.text, impliedHemisphere: item.implied) == value)
    }

    static let invalid: [(text: String, implied: DMS.Hemisphere?, reason: String)] = [
        ("", nil, "empty"),
        ("   ", nil, "empty"),
        ("87 61 00 W", nil, "minutes must be below 60"),
        ("876100", .west, "minutes must be below 60"),
        ("87 50 60.01 W", nil, "seconds must be below 60"),
        ("875075.5", nil, "seconds must be below 60"),
        ("95 00 00 N", nil, "exceeds 90"),
        ("181.5", nil, "exceeds 180"),
        ("1812000", .west, "exceeds 180"),
        ("36.5 30", nil, "degrees must be whole"),
        ("36 30.5 10", nil, "minutes must be whole"),
        ("-87 50 13 W", nil, "both a sign and a hemisphere"),
        ("36 54 1.2 N", .west, "given for a longitude"),
        ("3654", nil, "4 integer digits"),
        ("12345678", nil, "8 integer digits"),
        ("abc", nil, "unexpected"),
        ("36 54 1 2", nil, "more than three numbers"),
        ("N 36 S", nil, "more than one hemisphere"),
        ("36 N 54", nil, "first or last"),
        ("36° 54° 1", nil, "out of order"),
        ("1.2.3", nil, "bad number"),
        ("36 -54", nil, "sign may only come first"),
        ("36#", nil, "unexpected character"),
    ]

    @Test func rejectsInvalidWithReason() {
        for item in Self.invalid {
            #expect(DMS.degrees(item.text, impliedHemisphere: item.implied) == nil, "\(item.text)")
            do {
                let value = try DMS.parse(item.text, impliedHemisphere: item.implied)
                Issue.record("\"\(item.text)\" parsed as \(value)")
            } catch {
                #expect(error.reason.contains(item.reason), "\"\(item.text)\": \(error.reason)")
                #expect(error.input == item.text)
                #expect(error.description.hasPrefix("cannot read \"\(item.text)\" as degrees: "))
            }
        }
    }
}
