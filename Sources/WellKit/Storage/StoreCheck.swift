import Foundation

/// What ``WellStore/check(quick:)`` found: the engine's own check of its files (SQLite's
/// `PRAGMA integrity_check`, or `quick_check`; PostgreSQL's `amcheck` where it is installed) and
/// WellKit's invariants, each with what it found wrong.
///
/// Damage in pages the store does not use (SQLite's free pages) is beyond any check's reach, and
/// harmless until a write reuses those pages.
public struct StoreCheck: Sendable, Codable {
    /// One check that found something wrong.
    public struct Finding: Sendable, Codable, Equatable {
        /// The check: `integrity_check`, `pins-details`, `spatial-index`, `loads`, `amcheck`.
        public var check: String
        /// What is wrong, in words, such as "3 pins have no detail".
        public var problem: String

        package init(check: String, problem: String) {
            self.check = check
            self.problem = problem
        }
    }

    package init(quick: Bool, engine: String, checks: [String], skipped: [String], findings: [Finding], seconds: Double) {
        self.quick = quick
        self.engine = engine
        self.checks = checks
        self.skipped = skipped
        self.findings = findings
        self.seconds = seconds
    }

    /// Whether the engine's check was the quick one (SQLite's `quick_check`: no index against its table).
    public var quick: Bool
    /// `sqlite` or `postgresql`.
    public var engine: String
    /// The checks that ran, in order, and those that could not (with why) in ``skipped``.
    public var checks: [String]
    public var skipped: [String]
    public var findings: [Finding]
    public var seconds: Double

    /// No check found anything wrong.
    public var isSound: Bool { findings.isEmpty }

    /// Runs `invariants` with `count` (the engine's way to read one number), noting each check
    /// once and each nonzero count as a finding; a query that fails is a finding, and the rest run.
    package mutating func run(_ invariants: [StoreInvariants.Invariant], count: (BoundSQL) throws -> Int) {
        for invariant in invariants {
            if !checks.contains(invariant.check) { checks.append(invariant.check) }
            do {
                let rows = try count(invariant.sql)
                if rows > 0 { findings.append(Finding(check: invariant.check, problem: invariant.problem(rows))) }
            } catch {
                findings.append(Finding(check: invariant.check, problem: "could not be checked: \(error)"))
            }
        }
    }
}

/// WellKit's invariants, the same SQL on both engines: what every load and optimize keeps true.
/// Each query counts the rows that break one; zero is sound.
package enum StoreInvariants {
    package struct Invariant: Sendable {
        package let check: String
        /// What a count of `n` rows means, as ``StoreCheck/Finding/problem``.
        package let problem: @Sendable (Int) -> String
        package let sql: BoundSQL

        package init(check: String, problem: @escaping @Sendable (Int) -> String, sql: BoundSQL) {
            self.check = check
            self.problem = problem
            self.sql = sql
        }
    }

    package static let all: [Invariant] = [
        Invariant(check: "pins-details", problem: { "\($0) pins have no detail" },
                  sql: "SELECT count(*) FROM pins p WHERE NOT EXISTS (SELECT 1 FROM details d WHERE d.pin_id = p.id)"),
        Invariant(check: "pins-details", problem: { "\($0) details have no pin" },
                  sql: "SELECT count(*) FROM details d WHERE NOT EXISTS (SELECT 1 FROM pins p WHERE p.id = d.pin_id)"),
        Invariant(check: "pins-details", problem: { "\($0) pins lie outside -90…90, -180…180" },
                  sql: "SELECT count(*) FROM pins WHERE NOT (lat BETWEEN -90 AND 90 AND lon BETWEEN -180 AND 180)"),
        Invariant(check: "loads", problem: { "\($0) details name a load that is not recorded" },
                  sql: "SELECT count(*) FROM details d WHERE NOT EXISTS (SELECT 1 FROM loads l WHERE l.id = d.load_id)"),
        Invariant(check: "loads", problem: { "\($0) loads keep a number of rejected rows other than they report" },
                  sql: "SELECT count(*) FROM loads l WHERE l.rejected <> (SELECT count(*) FROM rejects r WHERE r.load_id = l.id)"),
        Invariant(check: "loads", problem: { "\($0) loads hold more wells than they inserted and updated" },
                  sql: "SELECT count(*) FROM loads l WHERE l.inserted + l.updated < (SELECT count(*) FROM details d WHERE d.load_id = l.id)"),
        Invariant(check: "loads", problem: { "\($0) suspect flags name a load that is not recorded" },
                  sql: "SELECT count(*) FROM suspects s WHERE NOT EXISTS (SELECT 1 FROM loads l WHERE l.id = s.load_id)"),
    ]
}

extension WellStore {
    /// Checks the store: the engine's own check of its pages or indexes, then WellKit's invariants
    /// (every pin has one detail and, in a file, one spatial index entry whose box holds it; every
    /// detail's load is recorded; each load keeps the rejects it counts). Reads only.
    ///
    /// ```swift
    /// let report = try WellStore(path: "wells.sqlite", mode: .readOnly).check()
    /// if !report.isSound { for finding in report.findings { print(finding.check, finding.problem) } }
    /// ```
    ///
    /// - Parameter quick: SQLite's `quick_check` rather than `integrity_check`: it skips comparing
    ///   each index with its table, and so takes less time.
    public func check(quick: Bool = false) throws -> StoreCheck {
        let clock = ContinuousClock.now
        var report = try engine.check(quick: quick)
        report.seconds = (ContinuousClock.now - clock).seconds
        return report
    }
}
