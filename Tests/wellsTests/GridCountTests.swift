import Foundation
import Testing
import WellsTestSupport

/// Issue 61: `wells count --grid 0.1` put a well at latitude 51.8 in the cell below (floating-point
/// division: 51.8 / 0.1 is 517.999…). A well on a line is in the cell north and east of it, as
/// `--help` and the manual say. (`WELLS_UNDER_TEST` runs it against another build.)
@Suite(.blocking) struct GridCountTests {
    @Test func aWellOnAGridLineIsCountedInTheCellNorthAndEastOfIt() throws {
        try withTemporaryDirectory("wells-grid") { directory in
            let csv = directory.appendingPathComponent("wells.csv").path, store = directory.appendingPathComponent("wells.sqlite").path
            try "uwi,lat,lon\nON,51.8,-114.3\nNEAR,51.85,-114.25\nSOUTH,51.7999,-114.3001\n".write(toFile: csv, atomically: true, encoding: .utf8)
            #expect(try HardeningTests.wells(["load", csv, "--db", store]).status == 0)
            let counted = try HardeningTests.wells(["count", "--grid", "0.1", "--db", store, "--format", "csv"])
            #expect(counted.status == 0, "\(counted.err)")
            // column,row,x,y,count: the cell's south-west corner on the decimal lines.
            let rows = counted.out.split(separator: "\n").dropFirst().map(String.init).sorted()
            #expect(rows == ["-1143,518,-114.3,51.8,2", "-1144,517,-114.4,51.7,1"], "\(counted.out)")
        }
    }
}
