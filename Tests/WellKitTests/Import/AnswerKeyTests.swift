import Foundation
import GRDB
import Testing
import WellsTestSupport
@testable import WellKit
@testable import WellKitSynthetic

/// Every inference and flag of a load against the answer key of an agency-style synthetic file.
@Suite struct AnswerKeyTests {
    static let sizes = [(count: 3_000, seed: UInt64(3)), (count: 20_000, seed: 7)]

    @Test(.lane(.slow), arguments: AgencyList.Layout.allCases.filter { !$0.isMisplaced }, sizes)
    func loadMatchesTheAnswerKey(layout: AgencyList.Layout, size: (count: Int, seed: UInt64)) throws {
        let path = try Fixtures.temporaryDirectory().appendingPathComponent("\(layout.rawValue).txt").path
        let key = try AgencyList(layout: layout, count: size.count, seed: size.seed).write(toFileAt: path)
        let store = try Fixtures.makeStore()
        let summary = try store.load(csvAt: path)
        let inferred = Dictionary(summary.inferences.map { ($0.subject, $0) }, uniquingKeysWith: { a, _ in a })

        #expect(summary.records == key.records)
        #expect(summary.loaded + summary.rejected == summary.records)
        if key.identifier.isKey {
            #expect(summary.mapping["uwi"] == key.identifier.column)
            #expect(summary.identifierNotKey == nil)
        } else {
            let report = try #require(summary.identifierNotKey)
            #expect(report.column == key.identifier.column)
            #expect(report.distinct == key.identifier.distinct)
            #expect(report.mostRepeated == key.identifier.mostRepeated?.value)
            #expect(report.mostRepeatedCount == key.identifier.mostRepeated?.count)
        }
        for (subject, column) in [("latitude", key.latitude), ("longitude", key.longitude)] {
            guard let column else { continue }
            #expect(inferred[subject]?.column == column.column)
            #expect(inferred[subject]?.value == column.format)
        }
        if let hemisphere = key.longitude?.hemisphere { #expect(inferred["hemisphere"]?.value.hasPrefix(hemisphere) == true) }
        if let datumColumn = key.datumColumn {
            #expect(inferred["datum"]?.column == datumColumn)
            let wells = Dictionary(uniqueKeysWithValues: summary.transformations.map { ($0.source, $0.wells) })
            #expect(wells["EPSG:4267"] == key.datums?["NAD27"])
            #expect(wells["EPSG:4269"] == key.datums?["NAD83"])
        }
        if let comments = key.commentLines { #expect(summary.commentLines == comments) }
        if let text = key.text {
            #expect(summary.titleLines == text.titleLines)
            #expect(inferred["encoding"]?.value == text.encoding && inferred["delimiter"]?.value == text.delimiter)
            #expect(inferred["decimal mark"]?.value.hasPrefix(text.decimalMark) == true)
            #expect(inferred["coordinates"]?.column == text.pointColumn)
        }
        if key.stateColumn != nil { #expect(inferred["state"]?.column == key.stateColumn) }
        if let dates = key.dateColumns {
            // Each date column read in its format, and exactly its unreadable values kept as text.
            #expect(summary.dateColumns.map { "\($0.column) → \($0.field): \($0.format), \($0.notFitting) not fitting" }
                    == dates.map { "\($0.column) → \($0.field): \($0.format), \($0.notFitting) not fitting" })
        }
        if let wells = key.wells {
            let differences = try Self.fieldDifferences(store, wells)
            #expect(differences.isEmpty, "\(differences.joined(separator: "\n"))")
        }

        // Suspects, rejects and duplicates, line by line.
        #expect(summary.suspects.map { "\($0.line) \($0.reason) \($0.identifier)" }
                == key.suspects.map { "\($0.line) \($0.reason.rawValue) \($0.identifier)" })
        let rejects = try store.pool.read { db in
            try Row.fetchAll(db, sql: "SELECT line, reason FROM rejects ORDER BY line").map { (line: $0[0] as Int, reason: $0[1] as String) }
        }
        let duplicates = key.duplicates ?? []
        #expect(rejects.map(\.line) == (key.rejects.map(\.line) + duplicates.map(\.line)).sorted())
        for duplicate in duplicates {
            #expect(rejects.first { $0.line == duplicate.line }?.reason.contains("same well as line \(duplicate.sameAs)") == true)
        }
        #expect(summary.rejectReasons.filter { $0.key != "duplicate well" }
                == Dictionary(key.rejects.map { ($0.kind.rawValue, 1) }, uniquingKeysWith: +))
        // Flagged wells are in the store, and a reload updates every well rather than duplicating it.
        #expect(try store.suspects().map(\.line).sorted() == key.suspects.map(\.line).sorted())
        let again = try store.load(csvAt: path)
        #expect(again.inserted == 0 && again.updated == summary.loaded)
        #expect(try store.suspects().count == key.suspects.count)
    }

    /// A whole file read the wrong way stops before writing, with the key's fix; loaded with the
    /// fix, every well lies in the state its row names and nothing is flagged.
    @Test(.lane(.slow), arguments: AgencyList.Layout.allCases.filter(\.isMisplaced), sizes)
    func misplacedFileStopsWithTheKeysFix(layout: AgencyList.Layout, size: (count: Int, seed: UInt64)) throws {
        let path = try Fixtures.temporaryDirectory().appendingPathComponent("\(layout.rawValue).txt").path
        let key = try AgencyList(layout: layout, count: size.count, seed: size.seed).write(toFileAt: path)
        let placement = try #require(key.placement)
        func options(_ flags: [String]) -> LoadOptions {
            var options = LoadOptions()
            var k = 0
            while k < flags.count {
                switch flags[k] {
                case "--implied-west": options.coordinates.impliedWest = true
                case "--crs": options.coordinates.crs = flags[k + 1]; k += 1
                case "--x": options.coordinates.xColumn = flags[k + 1]; k += 1
                case "--y": options.coordinates.yColumn = flags[k + 1]; k += 1
                default: Issue.record("unknown flag \(flags[k])")
                }
                k += 1
            }
            return options
        }
        let store = try Fixtures.makeStore()
        do {
            _ = try store.load(csvAt: path, options: options(placement.given))
            Issue.record("\(layout.rawValue) loaded as given")
        } catch let error as ImportError {
            #expect(error.code == .misplaced, "\(error)")
            guard case .relocate(let fix?)? = error.remedy else { Issue.record("no fix: \(error)"); return }
            #expect(error.reason.contains(placement.slip), "\(error.reason)")
            #expect(fix.impliedWest == placement.fix.contains("--implied-west"))
            #expect(fix.crs == options(placement.fix).coordinates.crs && fix.xColumn == options(placement.fix).coordinates.xColumn)
        }
        #expect(try !store.hasLoads(), "a stopped load writes nothing")
        if layout == .statePlaneFeet {
            // With no options, the first candidate offered is the key's CRS.
            do { _ = try store.load(csvAt: path); Issue.record("loaded without a CRS") } catch let error as ImportError {
                guard case .giveCRS(let candidates)? = error.remedy else { Issue.record("\(error)"); return }
                #expect(candidates.first?.crs == options(placement.fix).coordinates.crs, "\(candidates.map(\.crs))")
            }
        }
        let summary = try store.load(csvAt: path, options: options(placement.fix))
        #expect(summary.inserted == key.records && summary.rejected == 0)
        #expect(summary.suspects.isEmpty, "\(summary.suspects.prefix(3))")
    }
}
