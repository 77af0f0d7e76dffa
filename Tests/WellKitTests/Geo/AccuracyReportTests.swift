import Testing
import WellKit

@Suite struct AccuracyReportTests {
    /// NAD27 -> WGS 84 on this machine: structure, not a hard-coded string (grids vary).
    @Test func nad27ToWGS84() throws {
        let nad27 = try CRSInfo.describe("EPSG:4267")
        #expect(nad27.name == "NAD27")
        #expect(nad27.kind == .geographic2D && nad27.isGeographic)
        #expect(nad27.identifier == "EPSG:4267")
        #expect(nad27.datumName == "North American Datum 1927")
        #expect(nad27.areaOfUse?.contains(longitude: -86.5, latitude: 39.5) == true)

        let report = try nad27.accuracyReport()
        print(report)   // visible in `swift test` output for the record
        let best = try #require(report.best)
        let used = try #require(report.used)
        #expect(report.source == "EPSG:4267" && report.target == "EPSG:4326")
        #expect(report.candidateCount > 1)
        #expect(used.isInstantiable)
        #expect(best.name.contains("NAD27"))
        if !best.isInstantiable {
            // The best operation needs a grid that is not here: say so, and how to get it.
            #expect(!report.missingGrids.isEmpty)
            #expect(report.missingGrids.allSatisfy { !$0.available })
            let warning = try #require(report.warning)
            for grid in report.missingGrids {
                #expect(warning.contains(grid.shortName))
                #expect(warning.contains("projsync --file \(grid.shortName)"))
            }
            #expect(warning.contains("falling back to '\(used.name)'"))
            #expect(warning.hasPrefix("NAD27 -> WGS 84: "))
            #expect(best.name != used.name)
        } else {
            #expect(report.missingGrids.isEmpty)
            #expect(report.warning == nil || used.isBallpark)
        }
        if let accuracy = used.accuracy, let bestAccuracy = best.accuracy {
            #expect(bestAccuracy <= accuracy)
        }
        #expect(report.description.contains("best:"))
        #expect(report.description.contains("used:"))
    }

    /// For Indiana data the better operation is the CONUS grid shift.
    @Test func nad27InIndianaNamesTheConusGrid() throws {
        let indiana = CRSInfo.Area(west: -88.1, south: 37.8, east: -84.8, north: 41.8)
        let report = try CRSInfo.describe("4267").accuracyReport(area: indiana)
        let best = try #require(report.best)
        #expect(best.grids.contains { $0.shortName == "us_noaa_conus.tif" })
        if best.grids.contains(where: { !$0.available }) {
            #expect(report.warning?.contains("us_noaa_conus.tif") == true)
            #expect(report.missingGrids.map(\.installCommand).contains("projsync --file us_noaa_conus.tif"))
        } else {
            #expect(report.warning == nil)
        }
    }

    @Test func nad83UTMHasNoWarning() throws {
        let report = try CRSInfo.describe("EPSG:26916").accuracyReport()
        #expect(report.warning == nil)
        #expect(report.isOptimal)
        #expect(report.used?.isBallpark == false)
    }

    @Test func candidatesListGridsAndInstantiability() throws {
        let all = try CoordinateTransformer.candidates(from: "EPSG:4267", to: "EPSG:4326")
        let runnable = try CoordinateTransformer.candidates(from: "EPSG:4267", to: "EPSG:4326",
                                                            grids: .available)
        #expect(all.count >= runnable.count)
        #expect(runnable.allSatisfy { $0.isInstantiable })
        #expect(all.contains { $0.isBallpark })
        let gridded = all.filter { !$0.grids.isEmpty }
        #expect(!gridded.isEmpty)
        for op in gridded {
            #expect(op.isInstantiable == op.grids.allSatisfy { $0.available })
            for grid in op.grids {
                #expect(!grid.shortName.isEmpty)
                #expect(grid.available || grid.url.hasPrefix("https://"))
            }
        }
        #expect(all.allSatisfy { ($0.accuracy ?? 0) >= 0 })
    }

    @Test func describesProjectedCRS() throws {
        let alberta = try CRSInfo.describe("EPSG:3400")
        #expect(alberta.kind == .projected && !alberta.isGeographic)
        #expect(alberta.name.contains("Alberta 10-TM"))
        let area = try #require(alberta.areaOfUse)
        #expect(area.west < area.east && area.south < area.north)
        #expect(area.name?.contains("Alberta") == true)
        #expect(alberta.projString?.contains("+proj=tmerc") == true)
    }
}
