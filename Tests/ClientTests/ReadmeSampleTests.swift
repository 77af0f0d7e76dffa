import Foundation
import Testing
import WellKit

/// The README's library sample compiles and runs as a client writes it: ``sample(store:list:)``
/// holds its lines, and the README's ```swift block must be those lines (with the README's file names
/// for the two paths), so a change to either fails here.
@Suite struct ReadmeSampleTests {
    /// The README's sample, on the store at `databasePath` and the list at `listPath` (lines between
    /// the markers are the README's, letter for letter, after their indentation and the two paths).
    static func sample(store databasePath: String, list listPath: String) throws -> (loaded: Int, pins: Int, wells: Int, nearest: Int) {
        // README sample begin
        let store = try WellStore(path: databasePath)
        let summary = try store.load(csvAt: listPath)
        print("\(summary.loaded) loaded, \(summary.rejected) rejected", summary.rejectReasons)

        let box = try BoundingBox(minLongitude: -90.1, minLatitude: 35.0, maxLongitude: -89.9, maxLatitude: 35.2)
        let pins = try store.fetchPins(WellFetchRequest(region: .box(box)))        // id, name, lat, lon
        let wells = try store.fetchWells(WellFetchRequest(
            predicate: try WellPredicate(parsing: #"operator contains[cd] "petroleum""#),
            sortDescriptors: [WellSortDescriptor(.spudDate, ascending: false)], limit: 50))
        let nearest = try store.fetchNearest(to: Coordinate(latitude: 36.16, longitude: -85.5), count: 10)
        // README sample end
        return (summary.loaded, pins.count, wells.count, nearest.count)
    }

    @Test func theSampleIsTheREADMEs() throws {
        let root = PublicAPITests.repository
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let block = try #require(readme.firstMatch(of: /```swift\n([\s\S]*?)```/), "the README has no Swift sample")
        let ours = try String(contentsOf: root.appendingPathComponent("Tests/ClientTests/ReadmeSampleTests.swift"), encoding: .utf8)
        let body = try #require(ours.firstMatch(of: /\/\/ README sample begin\n([\s\S]*?)\s*\/\/ README sample end/))
        func lines(_ text: Substring) -> [String] {
            text.replacing("databasePath", with: "\"wells.sqlite\"").replacing("listPath", with: "\"tn-oilgas-wells.csv\"")
                .split(separator: "\n", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
                .filter { !$0.isEmpty && $0 != "import WellKit" }
        }
        #expect(lines(block.output.1) == lines(body.output.1), "README.md's ```swift sample and ReadmeSampleTests.sample(in:) differ")
    }

    @Test func theSampleRunsOnTheTennesseeList() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("wells-readme-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try Self.sample(store: directory.appendingPathComponent("wells.sqlite").path,
                                     list: PublicAPITests.repository.appendingPathComponent("Data/real/tn-oilgas-wells.csv").path)
        #expect(result.loaded == 16_464)
        #expect(result.pins > 0 && result.wells > 0 && result.nearest == 10, "\(result)")
    }
}
