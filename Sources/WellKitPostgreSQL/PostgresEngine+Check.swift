import WellKit

extension PostgresEngine {
    /// PostgreSQL's `amcheck` on the store's B-tree indexes, where the extension is installed (it
    /// is a superuser's `CREATE EXTENSION amcheck`; a check that only reads does not create it),
    /// then ``StoreInvariants``. A check that fails is a finding; the rest still run.
    func check(quick: Bool) throws -> StoreCheck {
        var report = StoreCheck(quick: quick, engine: "postgresql", checks: [], skipped: [], findings: [], seconds: 0)
        if try allBlocking("SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'amcheck')", { try $0.bool() }).first == true {
            report.checks.append("amcheck")
            let indexes = try allBlocking("""
                SELECT c.relname FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am a ON a.oid = c.relam
                  JOIN pg_class t ON t.oid = i.indrelid
                WHERE a.amname = 'btree' AND t.relnamespace = current_schema()::regnamespace
                  AND t.relname IN ('pins', 'details', 'loads', 'rejects', 'suspects') ORDER BY c.relname
                """, { try $0.requiredString() })
            for index in indexes {
                do {
                    // heapallindexed: every row of the table is in the index (the full check only).
                    _ = try allBlocking("SELECT bt_index_check(\(index)::regclass, \(sql: quick ? "false" : "true"))::text", { try $0.string() })
                } catch {
                    report.findings.append(StoreCheck.Finding(check: "amcheck", problem: "index \(index): \(error)"))
                }
            }
        } else {
            report.skipped.append("amcheck: the extension is not installed in this database; a superuser can CREATE EXTENSION amcheck, or run pg_amcheck")
        }
        report.run(StoreInvariants.all) { sql in try allBlocking(sql, { try $0.int() }).first ?? 0 }
        return report
    }
}
