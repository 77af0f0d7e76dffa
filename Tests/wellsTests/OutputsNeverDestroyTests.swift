import Foundation
import Testing
import WellsTestSupport

/// Issue 61: `wells generate --key` replaced any file whose first character was `{` (every JSON
/// object: a project's `package.json`), and `--out` of an RDB layout any file whose first line
/// was `# US Geological Survey` (every real NWIS download). Each now replaces only what
/// `wells generate` wrote, unless `--force`. (`WELLS_UNDER_TEST` runs it against another build.)
@Suite(.blocking) struct OutputsNeverDestroyTests {
    @Test func generateKeyReplacesOnlyAnAnswerKeyUnlessForced() throws {
        try withTemporaryDirectory("wells-generate-key") { directory in
            let list = directory.appendingPathComponent("sites.tsv").path
            let json = directory.appendingPathComponent("package.json").path
            let precious = "{\n  \"name\" : \"my-project\",\n  \"version\" : \"1.0.0\"\n}\n"
            try precious.write(toFile: json, atomically: true, encoding: .utf8)
            let refused = try HardeningTests.wells(["generate", "--layout", "nwis-dms", "--count", "5", "--out", list, "--key", json])
            #expect(refused.status == 64, "\(refused.err)")
            #expect(refused.err.contains("--key \(json) exists and is not an answer key wells generate wrote"), "\(refused.err)")
            #expect(try String(contentsOfFile: json, encoding: .utf8) == precious, "left as it was")
            #expect(!FileManager.default.fileExists(atPath: list), "nothing written when one output is refused")

            // A key that wells generate wrote is replaced by another (of another layout too).
            let key = directory.appendingPathComponent("key.json").path
            #expect(try HardeningTests.wells(["generate", "--layout", "nwis-dms", "--count", "5", "--out", list, "--key", key]).status == 0)
            let again = try HardeningTests.wells(["generate", "--layout", "damaged-ids", "--count", "7", "--key", key])
            #expect(again.status == 0, "\(again.err)")
            #expect(try String(contentsOfFile: key, encoding: .utf8).contains("\"layout\" : \"damaged-ids\""))

            let forced = try HardeningTests.wells(["generate", "--layout", "nwis-dms", "--count", "5", "--key", json, "--force"])
            #expect(forced.status == 0, "\(forced.err)")
            #expect(try String(contentsOfFile: json, encoding: .utf8).contains("\"layout\" : \"nwis-dms\""))
        }
    }

    @Test func generateOutReplacesOnlyItsOwnRDBNotAnAgencysFileWithTheSameFirstLine() throws {
        try withTemporaryDirectory("wells-generate-rdb") { directory in
            let download = directory.appendingPathComponent("nwis.rdb").path
            let real = "# US Geological Survey\n# retrieved: 2025-06-01 09:12:44 -04:00\n#\n# The Site File stores location and general information about groundwater sites.\n"
                + "agency_cd\tsite_no\tstation_nm\tlat_va\tlong_va\n5s\t15s\t50s\t11s\t12s\nUSGS\t395512075102401\tPH  1\t395512\t0751024\n"
            try real.write(toFile: download, atomically: true, encoding: .utf8)
            let refused = try HardeningTests.wells(["generate", "--layout", "nwis-dms", "--count", "5", "--out", download])
            #expect(refused.status == 64, "\(refused.err)")
            #expect(refused.err.contains("exists and is not a list of layout nwis-dms that wells generate wrote"), "\(refused.err)")
            #expect(try String(contentsOfFile: download, encoding: .utf8) == real, "left as it was")

            // Its own list, of any count and seed, is replaced.
            let own = directory.appendingPathComponent("own.rdb").path
            #expect(try HardeningTests.wells(["generate", "--layout", "nwis-dms", "--count", "5", "--out", own]).status == 0)
            let again = try HardeningTests.wells(["generate", "--layout", "nwis-dms", "--count", "9", "--seed", "7", "--out", own])
            #expect(again.status == 0, "\(again.err)")
        }
    }
}
