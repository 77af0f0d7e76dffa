import Testing
@testable import WellKit

/// PROJ takes a name it does not know for the first CRS whose name resembles it; WellKit refuses such names.
@Suite struct CRSNameTests {
    @Test func inexactNamesAreRefusedWithCloseMatches() throws {
        for name in ["foo", "wgs", "WGS84", "nad"] {
            #expect(throws: CRSError.self, "\(name)") {
                do { _ = try CRSInfo.describe(name) } catch let error as CRSError {
                    #expect(error.code == .inexactName && error.crs == [name])
                    #expect(error.message.hasPrefix("\"\(name)\" is not the name of a CRS"), "\(error)")
                    throw error
                }
            }
        }
        #expect(throws: CRSError.self) { _ = try CoordinateTransformer(from: "EPSG:4326", to: "foo") }
    }

    @Test func exactNamesCodesAndDefinitionsResolve() throws {
        #expect(try CRSInfo.describe("WGS 84").identifier == "EPSG:4326")
        #expect(try CRSInfo.describe("wgs 84").identifier == "EPSG:4326")
        #expect(try CRSInfo.describe("NAD83 / UTM zone 16N").identifier == "EPSG:26916")
        #expect(try CRSInfo.describe("4267").identifier == "EPSG:4267")
        #expect(try CRSInfo.describe("epsg:26916").identifier == "EPSG:26916")
        #expect(try CRSInfo.describe("IGNF:LAMB93").kind == .projected)
        #expect(try CRSInfo.describe("+proj=longlat +datum=WGS84").isGeographic)
        #expect(try CRSInfo.describe("urn:ogc:def:crs:EPSG::4326").identifier == "EPSG:4326")
        #expect(CRSString.isName("Amersfoort") && !CRSString.isName("EPSG:4289") && !CRSString.isName(#"GEOGCRS["WGS 84"]"#))
    }
}
