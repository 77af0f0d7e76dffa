import Foundation
import Testing
import WellKit

/// The client file compiles against the public API alone (no `@testable`), with Foundation and
/// GRDB imported beside WellKit; these tests run it and check that it names every public type.
@Suite struct PublicAPITests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The names of WellKit's public top-level types, read from its sources.
    static func publicTypes() throws -> Set<String> {
        let sources = repository.appendingPathComponent("Sources/WellKit")
        let pattern = try Regex(#"(?m)^public (?:final |indirect )?(?:struct|class|enum|protocol|actor|typealias) ([A-Za-z0-9_]+)"#)
        var names = Set<String>()
        for case let url as URL in FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)!
        where url.pathExtension == "swift" {
            let text = try String(contentsOf: url, encoding: .utf8)
            for match in text.matches(of: pattern) { if let name = match.output[1].substring { names.insert(String(name)) } }
        }
        return names
    }

    @Test func theClientNamesEveryPublicType() throws {
        let client = try String(contentsOf: Self.repository.appendingPathComponent("Tests/ClientTests/Client.swift"), encoding: .utf8)
        let types = try Self.publicTypes()
        #expect(types.count > 30)
        let missing = types.filter { name in client.firstMatch(of: try! Regex("\\b\(name)\\b")) == nil }
        #expect(missing.isEmpty, "public types the client does not use: \(missing.sorted())")
    }

    /// No public declaration mentions a GRDB type.
    @Test func noPublicSignatureMentionsGRDB() throws {
        let grdb = ["Row", "DatabaseValue", "DatabaseWriter", "DatabaseReader", "DatabasePool", "DatabaseQueue", "Database",
                    "StatementArguments", "Statement", "SQL", "SQLRequest", "FetchableRecord", "DatabaseError", "Configuration"]
        let sources = Self.repository.appendingPathComponent("Sources/WellKit")
        var offenders: [String] = []
        for case let url as URL in FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)!
        where url.pathExtension == "swift" {
            for line in try String(contentsOf: url, encoding: .utf8).split(separator: "\n") {
                let code = line.trimmingCharacters(in: .whitespaces)
                guard code.hasPrefix("public ") || code.hasPrefix("open ") else { continue }
                for name in grdb where code.firstMatch(of: try Regex("\\b\(name)\\b")) != nil {
                    offenders.append("\(url.lastPathComponent): \(code)")
                }
            }
        }
        #expect(offenders.isEmpty, "\(offenders)")
    }

    @MainActor @Test func theClientRuns() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("client-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let csv = directory.appendingPathComponent("wells.csv").path
        try """
        uwi,name,status,licence,operator,lat,lon
        A1,One,Abandoned,L1,Acme,35.1,-90.0
        A2,Two,Active,L2,Acme,35.15,-90.05
        A3,Three,Abandoned,L3,Beta,36.0,-86.0
        A4,Four,Active,L4,Beta,95,-86.0
        """.write(toFile: csv, atomically: true, encoding: .utf8)
        let store = try WellStore(path: directory.appendingPathComponent("wells.sqlite").path)
        let client = Client(store: store)
        let summary = try client.load(csv)
        #expect(summary.inserted == 3 && summary.rejected == 1)
        let (pins, wells, rows) = try client.query()
        #expect(pins.map(\.name) == ["One", "Two"] && wells.count == 2 && rows.count == 2)
        #expect(try client.page().first?.uwi == "A1")
        #expect(try Client.grdbSideBySide(store.path) == 3)
        do {
            _ = try WellSortDescriptor(parsing: "name:sideways")
            Issue.record("a sort direction that is neither asc nor desc was accepted")
        } catch {
            #expect(Client.explain(error) == "query: invalidDirection")
        }
    }
}
