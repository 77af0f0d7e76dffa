import Testing
@testable import WellsCLI
@testable import WellKit

/// The text `wells load` prints ends with the command that lists the rejected rows, in the
/// client of the store's engine.
@Suite struct LoadReportTests {
    private func summary() -> LoadSummary {
        var summary = LoadSummary(file: "wells.csv", sha256: "")
        summary.rejected = 2
        summary.loadID = 3
        return summary
    }

    @Test func aFileStoreNamesSqlite3() {
        let text = LoadReport(summary: summary(), store: "wells.sqlite", dryRun: false).text
        #expect(text.contains(#"Rejected rows: sqlite3 wells.sqlite "SELECT line, \"column\", reason FROM rejects WHERE load_id = 3""#))
    }

    @Test func aPostgreSQLStoreNamesPsql() {
        let text = LoadReport(summary: summary(), store: "postgresql://wells@db.example/wells", dryRun: false, postgreSQL: true).text
        #expect(text.contains(#"Rejected rows: psql postgresql://wells@db.example/wells -c "SELECT line, \"column\", reason FROM rejects WHERE load_id = 3""#))
    }
}
