import ArgumentParser
import Foundation
import WellKit

extension Wells {
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "Print one page of sorted, optionally sectioned wells, loading only that page.",
            discussion: """
                Like a table view over NSFetchedResultsController: one query fetches the ids (and section \
                keys) in order, one more loads the page's batch. Sections are runs of equal values of the \
                --section field, which becomes the first sort. Index paths in --watch output are section:item, from 0.

                Examples:
                  wells list --sort detail.spud_date:desc --section status --page 3
                  wells list --where 'status = Abandoned' --sort name --fields id,uwi,name,spud_date --format json
                  wells list --sort detail.spud_date:desc --watch
                """)

        @OptionGroup var query: QueryOptions
        @OptionGroup var store: StoreOptions

        @Option(help: ArgumentHelp("Group wells into sections by this field, such as status.", valueName: "field"))
        var section: String?

        /// The largest page: a bigger one is a whole result, which `wells find` streams.
        static let maximumBatchSize = 100_000

        @Option(name: .customLong("batch-size"), help: "The number of wells per page and per loaded batch, from 1 to 100,000.")
        var batchSize = 20

        @Option(help: "The page to print, counting from 1.")
        var page = 1

        @Flag(help: "Keep the page open and print each change to the results every 250 ms until Ctrl-C.")
        var watch = false

        func validate() throws {
            if batchSize < 1 || batchSize > Self.maximumBatchSize {
                throw ValidationError("--batch-size must be from 1 to \(grouped(Self.maximumBatchSize)), got '\(batchSize)'; use `wells find` for a whole result")
            }
            if page < 1 { throw ValidationError("--page must be 1 or more, got '\(page)'") }
            if watch && ((query.format != .table && query.format != .json) || query.out != nil) {
                throw ValidationError("--watch prints each change as a line of text; use --format table or json with it, without --out")
            }
        }

        func run() async throws {
            // Listing only reads: no SpatiaLite, and no index is created (see `wells index`).
            let opened = try store.open(.readOnly)
            var request = try query.request()
            if request.sortDescriptors.isEmpty { request.sortDescriptors = [WellSortDescriptor(.id)] }
            let sectionKey = try section.map { try WellField(keyPath: $0) }
            let results = try BatchedResults<Well>(store: opened, request: request, batchSize: batchSize, sectionKey: sectionKey)
            // An index for the controller's sort (the section key first) lets performFetch read ids
            // in order instead of sorting every well (`wells-bench list`); say how to make one.
            // (After the fetch, which refuses a sort that is wrong, such as one naming a field twice.)
            try results.performFetch()
            let sorts = results.request.sortDescriptors
            if WellStore.sortCanUseIndex(sorts), try opened.sortIndex(for: sorts) == nil {
                Terminal.error("note: this sort would be faster with an index; create it with `\(Self.indexCommand(sorts, db: WellStore.displayName(of: store.path)))`")
            }
            let output = try render(results)
            guard watch else {
                guard query.format != .gpkg else { return }   // render wrote the GeoPackage
                let columns = (section == nil || query.format != .csv ? [] : ["section"]) + (try query.fieldList(in: opened).map(\.name))
                    + (query.toCRS == nil ? [] : ["x", "y"])
                return try QueryOutput.write(text: output, options: query, columns: columns, store: store.path)
            }
            Terminal.writeStandardOutput(output)
            while true {
                try await Task.sleep(for: .milliseconds(250))
                let clock = ContinuousClock.now
                guard let diff = try results.checkForChanges() else { continue }
                let elapsed = ContinuousClock.now - clock
                Terminal.writeStandardOutput(try describe(diff, results, refreshed: elapsed))
            }
        }

        /// The `wells index` command that creates the index for `sorts`.
        static func indexCommand(_ sorts: [WellSortDescriptor], db: String) -> String {
            let quoted = shellWord(db, plain: db.allSatisfy { $0.isLetter || $0.isNumber || "/._-+=:@%".contains($0) })
            return "wells index " + sorts.map { "--sort \($0.field.name)\($0.ascending ? "" : ":desc")" }.joined(separator: " ") + " --db \(quoted)"
        }

        /// The page: section headers with their counts, the rows, and the footer.
        func render(_ results: BatchedResults<Well>) throws -> String {
            let snapshot = results.snapshot!
            let count = snapshot.ids.count
            // Without overflow for any page and batch size: (count + batchSize - 1) would trap.
            let pages = count == 0 ? 1 : (count - 1) / batchSize + 1
            guard page <= pages else {
                throw StoreError(.invalidArgument, "page \(page) is past the last page, \(pages), of \(count) wells at \(batchSize) a page")
            }
            let first = (page - 1) * batchSize   // at most count - 1, since page <= pages
            let fields = try query.fieldList(in: results.store)
            if query.format == .gpkg {
                // The page's wells as a GeoPackage layer (sections are not kept: sort by the section field to group them).
                let columns = fields.map { QueryOutput.Column(name: $0.name, kind: $0.kind) }
                try QueryOutput.write(options: query, columns: columns, store: store.path) { output in
                    for offset in first ..< first + min(batchSize, count - first) {
                        try output.write(fields.map { $0.value(in: try results.object(at: snapshot.indexPath(ofOffset: offset))) })
                    }
                }
                return ""
            }
            let transformer = try query.toCRS.map { try TransformCache.shared.transformer(from: "EPSG:4326", to: $0) }
            var rows: [(section: Int, values: [WellValue])] = []
            for offset in first ..< first + min(batchSize, count - first) {
                let path = snapshot.indexPath(ofOffset: offset)
                let well = try results.object(at: path)
                var values = fields.map { $0.value(in: well) }
                if let transformer { values += try transformer.outputXY(longitude: well.pin.longitude, latitude: well.pin.latitude) }
                rows.append((path.section, values))
            }
            let columns = fields.map(\.name) + (transformer == nil ? [] : ["x", "y"])
            let sectioned = results.sectionKey != nil
            let footer = "page \(grouped(page)) of \(grouped(pages)) · \(grouped(count)) well\(count == 1 ? "" : "s")"
                + (sectioned ? " in \(grouped(snapshot.sections.count)) section\(snapshot.sections.count == 1 ? "" : "s")" : "")
                + " · \(results.statementsExecuted) quer\(results.statementsExecuted == 1 ? "y" : "ies")"
            switch query.format {
            case .json:
                return json(rows: rows, columns: columns, snapshot: snapshot, sectioned: sectioned, pages: pages, queries: results.statementsExecuted)
            case .csv, .ndjson, .geojson:
                // The page's rows as any other query prints them, with the section's name first when sectioned.
                var out = ""
                let writer = ResultWriter(format: query.format.text ?? .csv, columns: (sectioned ? ["section"] : []) + columns) { out += $0 }
                for row in rows { writer.write((sectioned ? [WellValue(snapshot.sections[row.section].name)] : []) + row.values) }
                writer.finish()
                return out
            case .table, .gpkg:
                break
            }
            let header = columns.map(SafeText.cell)
            var widths = header.map(\.count)
            for row in rows { for (k, value) in row.values.enumerated() { widths[k] = min(40, max(widths[k], text(value).count)) } }
            func line(_ cells: [String]) -> String { ResultWriter.tableLine(cells, widths: widths) }
            var out = line(header) + widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ") + "\n"
            var current = -1
            for row in rows {
                if sectioned && row.section != current {
                    current = row.section
                    let info = snapshot.sections[current]
                    out += "== \(info.name.map(SafeText.cell) ?? "(no \(results.sectionKey!.rawValue))") (\(grouped(info.count)) well\(info.count == 1 ? "" : "s")) ==\n"
                }
                out += line(row.values.map(text))
            }
            return out + footer + "\n"
        }

        /// The page as one JSON object: paging, counts, and the page's sections with their rows.
        func json(rows: [(section: Int, values: [WellValue])], columns: [String], snapshot: ResultsSnapshot,
                  sectioned: Bool, pages: Int, queries: Int) -> String {
            var objects: [String] = []
            let writer = ResultWriter(format: .ndjson, columns: columns) { objects.append(String($0.dropLast())) }
            for row in rows { writer.write(row.values) }
            var parts: [String] = []
            var start = 0
            while start < rows.count {
                let index = rows[start].section
                var end = start
                while end < rows.count && rows[end].section == index { end += 1 }
                let info = snapshot.sections[index]
                let name = ResultWriter.json(WellValue(info.name))
                parts.append(#"{"name":\#(name),"count":\#(info.count),"rows":[\#(objects[start..<end].joined(separator: ","))]}"#)
                start = end
            }
            return #"{"page":\#(page),"pages":\#(pages),"count":\#(snapshot.ids.count),"sectionCount":\#(sectioned ? snapshot.sections.count : 1),"#
                + #""queries":\#(queries),"sections":[\#(parts.joined(separator: ",\n"))]}"# + "\n"
        }

        /// One line per change: `+ insert 2:14 uwi …`, `- delete …`, `> move …`, `~ update …`; at most 50.
        func describe(_ diff: ResultsDiff, _ results: BatchedResults<Well>, refreshed elapsed: Duration) throws -> String {
            var lines: [String] = []
            for change in diff.sectionChanges {
                let name = change.section.name.map(SafeText.cell) ?? "(no \(results.sectionKey?.rawValue ?? "value"))"
                lines.append("\(change.type == .insert ? "+" : "-") section \(change.index) \(name) (\(grouped(change.section.count)) wells)")
            }
            for change in diff.rowChanges.prefix(50) {
                let label = try change.newIndexPath.map { path -> String in
                    let well = try results.object(at: path)
                    return "uwi \(SafeText.cell(well.detail.identifier))" + (well.pin.name.map { " \(SafeText.cell($0))" } ?? "")
                } ?? "id \(change.id)"
                switch change.type {
                case .insert: lines.append("+ insert \(change.newIndexPath!) \(label)")
                case .delete: lines.append("- delete \(change.indexPath!) \(label)")
                case .move: lines.append("> move \(change.indexPath!) → \(change.newIndexPath!) \(label)")
                case .update: lines.append("~ update \(change.newIndexPath!) \(label)")
                }
            }
            if diff.rowChanges.count > 50 { lines.append("… and \(grouped(diff.rowChanges.count - 50)) more changes") }
            let milliseconds = elapsed.seconds * 1000
            lines.append("now \(grouped(results.fetchedCount)) wells · refreshed in \(Int(milliseconds.rounded())) ms · \(results.statementsExecuted) queries")
            return lines.joined(separator: "\n") + "\n"
        }
    }
}

extension WellAttribute {
    /// The attribute's value in a whole well: an extra column's text, or null where the well has none.
    fileprivate func value(in well: Well) -> WellValue {
        switch storage {
        case .field(.id): return .integer(well.pin.id)
        case .field(.name): return WellValue(well.pin.name)
        case .field(.latitude): return .real(well.pin.latitude)
        case .field(.longitude): return .real(well.pin.longitude)
        case .field(.identifier): return .text(well.detail.identifier)
        case .field(let field): return well.detail.values[field] ?? .null
        case .extra(let name): return WellValue(well.detail.extra[name])
        }
    }
}

/// A value as table text, on one line, control characters escaped.
private func text(_ value: WellValue) -> String {
    SafeText.cell(ResultWriter.text(value))
}
