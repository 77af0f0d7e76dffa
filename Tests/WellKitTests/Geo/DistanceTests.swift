import Testing
@testable import WellKit

@Suite struct DistanceTests {
    @Test func parsesUnitsAndBareMetres() throws {
        #expect(try Distance(parsing: "2km").meters == 2000)
        #expect(try Distance(parsing: "1.5mi").meters == 1.5 * 1609.344)
        #expect(try Distance(parsing: " 500 M ").meters == 500)
        #expect(try Distance(parsing: "250").meters == 250)
        #expect(try Distance(parsing: "0m").meters == 0)
    }

    @Test func refusesWhatIsNotAFiniteDistance() {
        // "inf", "infkm" and "1e308km" were infinite radii; "0x10m" was 16 m.
        for text in ["inf", "infkm", "1e308km", "nan", "-3m", "0x10m", "", "km", "2 parsecs", "2kmm"] {
            #expect(throws: QueryError.self, "\(text)") { try Distance(parsing: text) }
        }
        #expect(throws: QueryError.self) { try Distance(meters: .infinity) }
    }
}
