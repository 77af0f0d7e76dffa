import Foundation
import Testing
import WellsTestSupport

/// The README's fast-lane command leaves out every test and suite tagged for a slower lane. Swift
/// 6.3's `swift test` cannot skip by tag, so the command names them; a new tagged test that it
/// does not name fails here rather than slowing the fast lane down unnoticed.
@Suite struct TestLanesTests {
    /// The pattern of the README's `swift test --skip '…'`.
    static func fastLanePattern() throws -> Regex<AnyRegexOutput> {
        let readme = try String(contentsOf: RepositoryData.root.appendingPathComponent("README.md"), encoding: .utf8)
        let command = try #require(readme.firstMatch(of: /swift test --skip '([^']+)'/), "the README has no fast-lane command")
        return try Regex(String(command.output.1))
    }

    /// The tests and suites tagged `postgres`, `browser`, `server` or `slow`, named as in their test
    /// ids: `Suite` for the `struct` that follows such a `.tags(…)`, `Suite/test` for a `func`,
    /// the suite being the last `@Suite` declared before it in its file.
    static func taggedNames() throws -> [String] {
        let tests = RepositoryData.root.appendingPathComponent("Tests")
        let lane = /\.tags\([^)]*\.(postgres|browser|server|slow)\b/
        let declaration = /(func|struct) ([A-Za-z0-9_]+)/
        var names: [String] = []
        for case let url as URL in FileManager.default.enumerator(at: tests, includingPropertiesForKeys: nil)!
        where url.pathExtension == "swift" {
            let text = try String(contentsOf: url, encoding: .utf8)
            for match in text.matches(of: lane) {
                guard let next = text[match.range.upperBound...].firstMatch(of: declaration) else { continue }
                if next.output.1 == "struct" {
                    names.append(String(next.output.2))
                } else {
                    let suite = text[..<match.range.lowerBound].matches(of: /@Suite[^\n]*struct ([A-Za-z0-9_]+)/).last.map { String($0.output.1) } ?? "?"
                    names.append(suite + "/" + next.output.2)
                }
            }
        }
        return names
    }

    @Test func theFastLaneSkipsEveryTaggedTest() throws {
        let pattern = try Self.fastLanePattern()
        let names = try Self.taggedNames()
        #expect(names.count >= 20, "\(names)")
        let unskipped = names.filter { $0.firstMatch(of: pattern) == nil }
        #expect(unskipped.isEmpty, "tagged for a slower lane but not in the README's fast-lane --skip: \(unskipped)")
    }
}
