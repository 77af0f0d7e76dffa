import ArgumentParser
import Foundation
import WellKit
import WellKitSynthetic

extension Wells {
    /// `wells generate`: writes a deterministic synthetic well list, Alberta-like or agency-style with an answer key.
    struct Generate: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "generate",
            abstract: "Write a synthetic well list, byte-identical for the same layout, count and seed.",
            discussion: """
                The default layout, alberta, is the Alberta-like CSV of 20 columns; --dirty corrupts about 1% \
                of its rows. The agency layouts put the same wells, moved 15° south into the conterminous US, \
                in files that are dirty by construction, and --key writes what a loader should find in them \
                as JSON (records, identifier column, rejects, duplicates and suspect coordinates by line): \
                nwis-dms is a USGS NWIS RDB file (tab-delimited, # comments, a column-format line, 15-digit \
                site numbers, compact DMS coordinates with a per-row datum, 1% of rows without coordinates); \
                damaged-ids is a CRLF CSV whose Well API column a spreadsheet rounded to a few values, with \
                0.5% exact duplicate records; coordinate-errors is a CSV with a unique API Number and 1% of \
                rows with a lost sign, a lost digit or a point far from the others (both with a State column \
                naming the state each well lies in). Whole files read the wrong way, whose key names the fix: \
                lost-signs has every longitude without its minus sign; state-plane-feet has x/y in NAD83 / \
                Nevada Central (ftUS), EPSG:3422, and no latitude or longitude. datum-spellings is nwis-dms \
                with its datums written as agencies write them (NAD 27, NAD1927, EPSG:4267, …). export-1252 is an \
                export from a spreadsheet on European Windows: two title lines, ';' with decimal commas, \
                Windows-1252 punctuation, CRLF, and both coordinates in one EWKT column. The date layouts \
                write spud, completion and plug dates and a key with every field of every well: dates-dmy \
                day first (25/3/1982), dates-oracle as 08-AUG-99, dates-excel as Excel serial numbers, and \
                dates-mixed with dd.mm.yyyy, ISO dates among years alone and a d/m/yy column that fits both orders. antimeridian is a \
                list across ±180°: an Alaska-like state (lat 55-66, lon -160 to -150) with 1.5% of its wells \
                on an island chain from 175°E to 175°W, none of them wrong, and a key with every field of every well. blank-headers has a side \
                table under blank header cells and repeated names (Remarks, Status), as a workbook saved as CSV; \
                excel-guarded writes identifiers and permits as Excel's ="00000012"; depths-feet and depths-metres \
                have depths and elevations with the unit in the column names (Well Depth (ft), Total Depth (m)). \
                Their keys list every well with every field as a store should hold it (depths in metres).
                """)

        /// The file layouts `--layout` accepts: `alberta`, the Alberta-like list of ``WellGenerator``,
        /// then the generator's agency layouts (``AgencyList/Layout``), named and ordered as it names them.
        struct Layout: RawRepresentable, CaseIterable, ExpressibleByArgument {
            /// The agency layout, or nil for the Alberta-like list.
            let agency: AgencyList.Layout?

            static let alberta = Layout(agency: nil)
            static var allCases: [Layout] { [.alberta] + AgencyList.Layout.allCases.map { Layout(agency: $0) } }

            init(agency: AgencyList.Layout?) { self.agency = agency }

            init?(rawValue: String) {
                guard rawValue != "alberta" else { self.init(agency: nil); return }
                guard let agency = AgencyList.Layout(rawValue: rawValue) else { return nil }
                self.init(agency: agency)
            }

            var rawValue: String { agency?.rawValue ?? "alberta" }
        }

        @Option(help: "The file layout: the Alberta-like list, or an agency-style list to write with an answer key.")
        var layout: Layout = .alberta

        @Option(help: "The number of data rows to write.")
        var count: Int = WellGenerator.defaultCount

        @Option(help: "The seed of the pseudo-random stream.")
        var seed: UInt64 = 1

        @Flag(help: "Corrupt about 1% of the rows of the alberta layout, leave a quote unclosed at the end, and print the counts on standard error.")
        var dirty = false

        @Option(help: "The output file; standard output when omitted. An existing file is replaced only if it is a list this layout writes (its comment lines and header), or with --force.")
        var out: String?

        @Option(help: ArgumentHelp("The file to write the answer key to as JSON, for a layout other than alberta. An existing file is replaced only if it is an answer key, or with --force.", valueName: "key.json"))
        var key: String?

        @Flag(help: "Replace an existing --out or --key file whatever it holds.")
        var force = false

        func validate() throws {
            guard count >= 1 && count <= CountLimits.maximumCount else {
                throw ValidationError("--count must be from 1 to \(grouped(CountLimits.maximumCount)), got '\(count)'.")
            }
            guard layout.agency != nil else {
                if key != nil {
                    throw ValidationError("--key needs an agency layout (--layout \(AgencyList.Layout.allCases.map(\.rawValue).joined(separator: ", "))).")
                }
                return
            }
            if dirty {
                throw ValidationError("--dirty applies to the alberta layout only; '\(layout.rawValue)' is dirty by construction.")
            }
            guard count <= AgencyList.maximumCount else {
                throw ValidationError("--count must be at most \(AgencyList.maximumCount) for '\(layout.rawValue)', got '\(count)'.")
            }
        }

        func run() throws {
            // A list is replaced only by another of its layout (its opening says which: the
            // header, and the comment lines before it that name WellKit); an answer key only by
            // another key (its fields say so, not a first `{` that every JSON object has);
            // anything else only with --force.
            if let out {
                try OutputPaths.refuseToReplace(out, option: "--out", force: force, kind: "a list of layout \(layout.rawValue) that wells generate wrote",
                                                recognized: { path in try Self.starts(path, with: opening()) })
            }
            if let key {
                try OutputPaths.refuseToReplace(key, option: "--key", force: force, kind: "an answer key wells generate wrote",
                                                recognized: Self.isAnswerKey(atPath:))
            }
            do {
                try write()
            } catch let error as ExitCode {
                throw error
            } catch {
                throw Self.cannotCreate(out ?? key ?? "standard output", error)
            }
        }

        /// How every list of this layout begins, as bytes: its comment lines (`#`), which for an
        /// RDB layout say WellKit wrote it, then its header line with the line break. The alberta
        /// header, or an agency list's opening (written for one record into a temporary file: the
        /// layouts' openings differ). A real agency file with the same header but its own comment
        /// lines is not one of them.
        private func opening() throws -> Data {
            guard let agency = layout.agency else { return Data((WellGenerator.header.joined(separator: ",") + "\n").utf8) }
            let probe = FileManager.default.temporaryDirectory.appendingPathComponent("wells-generate-\(getpid()).probe").path
            defer { try? FileManager.default.removeItem(atPath: probe) }
            _ = try AgencyList(layout: agency, count: 1, seed: seed).write(toFileAt: probe)
            let bytes = try Data(contentsOf: URL(fileURLWithPath: probe))
            var end = bytes.startIndex
            while end < bytes.endIndex {
                let lineEnd = (bytes[end...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.endIndex - 1) + 1
                defer { end = lineEnd }
                if bytes[end] != UInt8(ascii: "#") { break }
            }
            return bytes[..<end]
        }

        /// Whether the file at `path` begins with `opening`.
        static func starts(_ path: String, with opening: Data) throws -> Bool {
            guard let handle = FileHandle(forReadingAtPath: path) else { return false }
            defer { try? handle.close() }
            return (try handle.read(upToCount: opening.count) ?? Data()) == opening
        }

        /// Whether the file at `path` is an answer key as `wells generate --key` writes them: a
        /// JSON object with a key's fields (the layout, the records, the identifier column, the
        /// rejects and the suspects), whatever else later versions add.
        static func isAnswerKey(atPath path: String) -> Bool {
            guard let data = FileManager.default.contents(atPath: path),
                  let key = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return false }
            return (key["layout"] as? String).flatMap(AgencyList.Layout.init(rawValue:)) != nil && key["records"] is NSNumber
                && key["identifier"] is [String: Any] && key["rejects"] is [Any] && key["suspects"] is [Any]
        }

        /// Runs `write` on a temporary path beside `target`, then renames it over `target`.
        static func replacing<R>(_ target: String, _ write: (String) throws -> R) throws -> R {
            try TemporaryFiles.beside(target) { temporary in
                let result = try write(temporary)
                guard rename(temporary, target) == 0 else {
                    throw NSError(domain: NSPOSIXErrorDomain, code: Int(errno), userInfo: [NSLocalizedDescriptionKey: String(cString: strerror(errno))])
                }
                return result
            }
        }

        /// A file that cannot be written: its path and why, with exit 73 (sysexits' EX_CANTCREAT).
        static func cannotCreate(_ path: String, _ error: any Error) -> ExitCode {
            let directory = (path as NSString).deletingLastPathComponent
            var isDirectory: ObjCBool = false
            let reason: String
            if !directory.isEmpty && !FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) {
                reason = "the directory \(SafeText.quoted(directory)) does not exist; create it first (mkdir -p \(SafeText.escaped(directory)))"
            } else if !directory.isEmpty && !isDirectory.boolValue {
                reason = "\(SafeText.quoted(directory)) is not a directory"
            } else {
                reason = SafeText.escaped((error as NSError).localizedDescription)
            }
            Terminal.error("wells: error: cannot write \(SafeText.quoted(path)): \(reason)")
            return ExitCode(73)
        }

        /// Writes the list (and key): each file beside its target, then renamed over it, so a write
        /// that fails or is interrupted leaves the old file as it was.
        private func write() throws {
            if let agency = layout.agency {
                let list = AgencyList(layout: agency, count: count, seed: seed)
                let answer = try out.map { out in try Self.replacing(out) { try list.write(toFileAt: $0) } } ?? list.writeToStandardOutput()
                if let key {
                    do { try Self.replacing(key) { try answer.write(toFileAt: $0) } } catch { throw Self.cannotCreate(key, error) }
                }
                return
            }
            let generator = WellGenerator(count: count, seed: seed, dirty: dirty)
            let report: WellGenerator.DirtyReport
            if let out {
                report = try Self.replacing(out) { try generator.write(toFileAt: $0) }
            } else {
                report = try generator.writeToStandardOutput()
            }
            if dirty {
                let line = "dirty rows injected: \(report)\n"
                FileHandle.standardError.write(Data(line.utf8))
            }
        }
    }
}
