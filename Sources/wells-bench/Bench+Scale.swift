import ArgumentParser
import Foundation
import WellKit
import WellKitSynthetic
import WellsCLI

extension Bench {
    struct Scale: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "scale",
            abstract: "Load well lists of several sizes, each into a new store, and show how time, memory and store size grow.",
            discussion: """
                Each size is a file: generated as `wells generate --count N --seed S` writes it (--sizes, cached in \
                --work as wells-N-seedS.csv) or \
                given (--file, repeatable). Each round loads every size in turn, so that a noisy spell slows one \
                round of each size rather than every round of one. Before each load the file is read through, so \
                that every run finds it in the page cache. Per size and round, `wells load FILE --db STORE --format \
                json --quiet` runs as its own process into a new store, then the C reference loader when \
                --reference-load names it (Benchmarks/Reference/limit_load_wellkit.c built with gcc, run as `limit_load --journal wal --order \
                hilbert --rtree packed --uwi-index FILE DB`), so that a noisy spell slows both.

                Time: wall clock from posix_spawn to wait4, the whole process with its start-up and exit; the \
                median over --rounds. µs/well: that median divided by the wells loaded (inserted, from the load \
                summary). × time and × rows: the median time and the wells divided by those of the size with the \
                fewest wells; they are equal when time grows linearly.

                Peak RSS: ru_maxrss of the process from wait4, the largest over the rounds. Linux counts the \
                spawning process's resident set into it, so no figure is below wells-bench's own: the spawn floor \
                in the report, what `true` spawned the same way reports. B/well > CSV: (peak RSS − CSV bytes) ÷ \
                wells, what the load holds per well beyond the file, which it maps (a file of 1 GiB or more \
                gives its pages back as it is read, and is not subtracted).

                Store: the bytes of the store file and its -wal after the process exits (last round), and per \
                well. Phases: the seconds of each phase in the `phases` object of `wells load --format json`, \
                medians over the rounds. wells ÷ C: the median over the rounds of wells' time divided by the C \
                loader's in the same round; C's time, peak RSS and store are measured as wells' are.

                Examples:
                  wells-bench scale --reference-load /tmp/limit_load
                  wells-bench scale --sizes 24429,244292 --rounds 5 --format json
                  wells-bench scale --file tn-wells.csv --file wells.csv --keep-stores
                """)

        @Option(help: ArgumentHelp("Numbers of wells to generate and load, comma-separated, each at most 9,999,998 (default: 24429,244292,2442920).",
                                   valueName: "list"))
        var sizes: String?

        @Option(name: .customLong("file"), help: ArgumentHelp("A well list to load instead of generated ones (repeatable).", valueName: "file"))
        var files: [String] = []

        @Option(help: "The seed of the generated lists.")
        var seed: UInt64 = 1

        @Option(help: "Rounds per size; medians are reported.")
        var rounds = 3

        @Option(name: .customLong("reference-load"), help: "The limit_load binary (the C reference loader) to run beside wells.")
        var referenceLoad: String?

        @Option(help: ArgumentHelp("A folder for the generated lists and the stores, kept (default: a temporary folder, removed).",
                                   valueName: "dir"))
        var work: String?

        @Flag(name: .customLong("keep-stores"), help: "Keep the last store of each size, and print their paths.")
        var keepStores = false

        @Option(help: "The report format.")
        var format: ReportFormat = .table

        static let defaultSizes = [24_429, 244_292, 2_442_920]
        /// The most wells a generated size has (10 million, the national scale); larger lists are given with --file.
        static let largestGenerated = 9_999_998

        /// The counts of --sizes, ascending, each from 1 to 100,000,000.
        func sizeList() throws -> [Int] {
            guard let sizes else { return files.isEmpty ? Self.defaultSizes : [] }
            let counts = try sizes.split(separator: ",", omittingEmptySubsequences: false).map { part in
                let text = part.trimmingCharacters(in: .whitespaces)
                guard let count = Int(text) else {
                    throw ValidationError("--sizes must be whole numbers of wells, comma-separated, such as 24429,244292; \(SafeText.quoted(text)) is not")
                }
                try CountLimits.check("--sizes", count, in: 1...Self.largestGenerated)
                return count
            }
            return Array(Set(counts)).sorted()
        }

        func validate() throws {
            if sizes != nil && !files.isEmpty { throw ValidationError("give --sizes or --file, not both") }
            _ = try sizeList()
            try CountLimits.check("--rounds", rounds, in: 1...CountLimits.maximumRepeats)
        }

        func run() async throws {
            var benchmark = ScaleBenchmark(rounds: rounds, wells: Tools.sibling("wells"), referenceLoad: referenceLoad,
                                           keepStores: keepStores)
            for file in files {
                guard FileManager.default.isReadableFile(atPath: file) else {
                    throw StoreError(.notFound, "--file \(SafeText.quoted(file)): no readable file there")
                }
                benchmark.inputs.append(.init(label: URL(fileURLWithPath: file).lastPathComponent, file: file, count: nil))
            }
            let counts = try sizeList()
            guard FileManager.default.isExecutableFile(atPath: benchmark.wells) else {
                throw StoreError(.notFound, "no wells executable beside wells-bench at \(benchmark.wells)")
            }
            if let referenceLoad, Tools.which(referenceLoad) == nil {
                throw StoreError(.notFound, "--reference-load \(SafeText.quoted(referenceLoad)): no executable there")
            }

            let temporary = work == nil
            let directory = work.map { URL(fileURLWithPath: $0) }
                ?? FileManager.default.temporaryDirectory.appendingPathComponent("wells-bench-scale-\(getpid())")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            benchmark.directory = directory
            // Interrupted, a temporary folder goes too, with the child being measured.
            let interruptions = temporary ? ScaleBenchmark.onInterrupt { try? FileManager.default.removeItem(at: directory) } : []
            defer { for source in interruptions { source.cancel() } }
            defer {
                // A temporary folder goes, but for the stores --keep-stores keeps.
                if temporary {
                    if keepStores {
                        for input in benchmark.inputs where input.count != nil { try? FileManager.default.removeItem(atPath: input.file) }
                    } else {
                        try? FileManager.default.removeItem(at: directory)
                    }
                }
            }
            for count in counts {
                let csv = directory.appendingPathComponent("wells-\(count)-seed\(seed).csv").path
                if !FileManager.default.fileExists(atPath: csv) {
                    ScaleBenchmark.progress("generating \(grouped(count)) wells (seed \(seed)) into \(csv)")
                    let partial = csv + ".partial"
                    _ = try WellGenerator(count: count, seed: seed).write(toFileAt: partial)
                    try FileManager.default.moveItem(atPath: partial, toPath: csv)
                }
                benchmark.inputs.append(.init(label: "\(count)", file: csv, count: count))
            }

            let report = try benchmark.run()
            if !report.keptStores.isEmpty {
                Terminal.error("kept stores:\n" + report.keptStores.map { "  \($0)" }.joined(separator: "\n"))
            }
            if format == .json {
                print(String(decoding: try JSONEncoder.pretty.encode(report), as: UTF8.self))
            } else {
                print(ScaleBenchmark.table(report))
            }
        }
    }
}

/// `wells-bench scale`: `wells load` and the C reference loader on lists of several sizes, as whole processes.
struct ScaleBenchmark {
    struct Input {
        var label: String
        var file: String
        /// The wells asked of the generator; nil for a given file.
        var count: Int?
    }

    /// One process: one tool loading one size in one round.
    struct Run: Codable {
        var size: String
        var round: Int
        /// `wells` or `C`.
        var tool: String
        var seconds: Double
        var peakRSSBytes: Int
        var storeBytes: Int
        /// Wells loaded (wells: inserted and updated; C: rows).
        var rows: Int
        /// The load's phases in seconds (wells only).
        var phases: [String: Double]?
    }

    /// The C reference loader on one size.
    struct Reference: Codable {
        var rows: Int
        var seconds: Double
        var microsecondsPerWell: Double
        var timeRatio: Double
        var peakRSSBytes: Int
        var storeBytes: Int
        var storeBytesPerWell: Double
        /// The median over the rounds of wells' time divided by C's in the same round.
        var wellsRatio: Double
    }

    struct Size: Codable {
        var label: String
        var file: String
        /// The wells asked of the generator; absent for a given file.
        var count: Int?
        /// Wells loaded: inserted and updated, from the load summary.
        var rows: Int
        /// Records read, and those rejected.
        var records: Int
        var rejected: Int
        var csvBytes: Int
        var seconds: Double
        var microsecondsPerWell: Double
        /// The median time divided by that of the size with the fewest rows.
        var timeRatio: Double
        /// The rows divided by those of the size with the fewest rows: the time ratio of linear growth.
        var rowsRatio: Double
        var peakRSSBytes: Int
        /// (peakRSSBytes − csvBytes) ÷ rows; csvBytes not subtracted for a file of 1 GiB or more, whose pages the load gives back.
        var peakRSSBytesPerWellAboveCSV: Double
        var storeBytes: Int
        var storeBytesPerWell: Double
        /// Medians over the rounds of each phase's seconds.
        var phases: [String: Double]
        /// The C reference loader on the same file; absent without --reference-load.
        var reference: Reference?
    }

    struct Report: Codable {
        var rounds: Int
        /// The wells command line.
        var wells: String
        /// The C reference command line; absent without --reference-load.
        var reference: String?
        /// The peak resident set of `true` spawned the same way: no peak is reported below it.
        var spawnFloorBytes: Int
        var sizes: [Size]
        var runs: [Run]
        var keptStores: [String]
    }

    var rounds: Int
    var wells: String
    var referenceLoad: String?
    var keepStores: Bool
    var inputs: [Input] = []
    var directory = FileManager.default.temporaryDirectory

    static let referenceArguments = ["--journal", "wal", "--order", "hilbert", "--rtree", "packed", "--uwi-index"]

    /// What `wells load --format json` prints that the benchmark reads.
    private struct LoadOutput: Decodable {
        var records: Int
        var inserted: Int
        var updated: Int
        var rejected: Int
        var phases: [String: Double]?
    }

    /// What `limit_load` prints on its last line.
    private struct ReferenceOutput: Decodable {
        var rows: Int
    }

    /// Until the returned sources are cancelled, SIGINT and SIGTERM kill the child being measured, run
    /// `cleanUp`, and end this process with status 128 + the signal.
    static func onInterrupt(_ cleanUp: @escaping @Sendable () -> Void) -> [any DispatchSourceSignal] {
        [SIGINT, SIGTERM].map { signalNumber in
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler {
                Tools.killRunning()
                usleep(100_000)   // for the child to go before its folder does
                cleanUp()
                _exit(128 + signalNumber)
            }
            source.setCancelHandler { signal(signalNumber, SIG_DFL) }
            source.resume()
            return source
        }
    }

    static func progress(_ text: String) {
        if Terminal.stderrIsTerminal { Terminal.error("scale: \(text)") }
    }

    func run() throws -> Report {
        let floor = try Tools.spawnFloor()
        var measured: [(input: Input, csvBytes: Int, wells: [Run], c: [Run], records: Int, rejected: Int)] = inputs.map {
            ($0, (try? FileManager.default.attributesOfItem(atPath: $0.file)[.size] as? Int) ?? 0, [], [], 0, 0)
        }
        let stores = inputs.indices.map { k in
            let name = inputs[k].count.map { "\($0)" } ?? "file\(k + 1)"
            return (wells: directory.appendingPathComponent("store-\(name)-wells.sqlite").path,
                    c: directory.appendingPathComponent("store-\(name)-c.sqlite").path)
        }
        // Rounds outside, sizes inside: a noisy spell on a shared machine slows one round of every
        // size, not every round of one size, which would skew the ratios between sizes.
        for round in 1...rounds {
            for (k, input) in inputs.enumerated() {
                // In the page cache for every run, as a file just written or read would be.
                try Self.readThrough(input.file)
                Self.removeStore(stores[k].wells)
                let load = try Tools.measure(wells, ["load", input.file, "--db", stores[k].wells, "--format", "json", "--quiet"])
                guard let summary = try? JSONDecoder().decode(LoadOutput.self, from: load.stdout) else {
                    throw StoreError(.invalidArgument, "wells load \(input.file) printed no load summary: \(String(decoding: load.stdout.prefix(300), as: UTF8.self))")
                }
                measured[k].records = summary.records
                measured[k].rejected = summary.rejected
                let rows = summary.inserted + summary.updated
                guard rows > 0 else { throw StoreError(.invalidArgument, "wells load \(input.file) loaded no wells") }
                measured[k].wells.append(Run(size: input.label, round: round, tool: "wells", seconds: load.seconds, peakRSSBytes: load.peakResidentBytes,
                                             storeBytes: Self.storeBytes(stores[k].wells), rows: rows, phases: summary.phases ?? [:]))
                var line = "\(input.label), round \(round) of \(rounds): wells \(String(format: "%.2f", load.seconds)) s"
                if !keepStores || round < rounds { Self.removeStore(stores[k].wells) }
                if let referenceLoad {
                    Self.removeStore(stores[k].c)
                    let reference = try Tools.measure(referenceLoad, Self.referenceArguments + [input.file, stores[k].c])
                    let lastLine = String(decoding: reference.stdout, as: UTF8.self).split(separator: "\n").last.map(String.init) ?? ""
                    guard let output = try? JSONDecoder().decode(ReferenceOutput.self, from: Data(lastLine.utf8)), output.rows > 0 else {
                        throw StoreError(.invalidArgument, "\(referenceLoad) printed no summary with rows: \(lastLine.prefix(300))")
                    }
                    measured[k].c.append(Run(size: input.label, round: round, tool: "C", seconds: reference.seconds, peakRSSBytes: reference.peakResidentBytes,
                                             storeBytes: Self.storeBytes(stores[k].c), rows: output.rows, phases: nil))
                    line += ", C \(String(format: "%.2f", reference.seconds)) s"
                    if !keepStores || round < rounds { Self.removeStore(stores[k].c) }
                }
                Self.progress(line)
            }
        }
        let runs = measured.flatMap { $0.wells + $0.c }
        var kept: [String] = []
        if keepStores {
            kept = stores.flatMap { referenceLoad == nil ? [$0.wells] : [$0.wells, $0.c] }
        }

        // Ratios are to the size with the fewest wells.
        guard let smallest = measured.min(by: { $0.wells[0].rows < $1.wells[0].rows }) else {
            return Report(rounds: rounds, wells: wellsCommand, reference: referenceCommand, spawnFloorBytes: floor, sizes: [], runs: runs, keptStores: kept)
        }
        let smallestSeconds = Statistics.median(smallest.wells.map(\.seconds))
        let smallestReferenceSeconds = Statistics.median(smallest.c.map(\.seconds))
        let sizes = measured.map { entry -> Size in
            let rows = entry.wells[0].rows
            let seconds = Statistics.median(entry.wells.map(\.seconds))
            let peak = entry.wells.map(\.peakRSSBytes).max() ?? 0
            let store = entry.wells.last?.storeBytes ?? 0
            let phaseNames = Set(entry.wells.flatMap { ($0.phases ?? [:]).keys })
            let phases = Dictionary(uniqueKeysWithValues: phaseNames.map { name in
                (name, Statistics.median(entry.wells.compactMap { $0.phases?[name] }))
            })
            var reference: Reference?
            if let first = entry.c.first {
                let cSeconds = Statistics.median(entry.c.map(\.seconds))
                let cStore = entry.c.last?.storeBytes ?? 0
                reference = Reference(
                    rows: first.rows, seconds: cSeconds, microsecondsPerWell: cSeconds / Double(first.rows) * 1e6,
                    timeRatio: cSeconds / smallestReferenceSeconds, peakRSSBytes: entry.c.map(\.peakRSSBytes).max() ?? 0,
                    storeBytes: cStore, storeBytesPerWell: Double(cStore) / Double(first.rows),
                    wellsRatio: Statistics.median(zip(entry.wells, entry.c).map { $0.seconds / $1.seconds }))
            }
            return Size(label: entry.input.label, file: entry.input.file, count: entry.input.count, rows: rows, records: entry.records,
                        rejected: entry.rejected, csvBytes: entry.csvBytes, seconds: seconds,
                        microsecondsPerWell: seconds / Double(rows) * 1e6, timeRatio: seconds / smallestSeconds,
                        rowsRatio: Double(rows) / Double(smallest.wells[0].rows), peakRSSBytes: peak,
                        peakRSSBytesPerWellAboveCSV: Double(peak - (LoadMemory.keepsResident(fileBytes: entry.csvBytes) ? entry.csvBytes : 0)) / Double(rows),
                        storeBytes: store, storeBytesPerWell: Double(store) / Double(rows), phases: phases, reference: reference)
        }
        return Report(rounds: rounds, wells: wellsCommand, reference: referenceCommand, spawnFloorBytes: floor, sizes: sizes, runs: runs,
                      keptStores: kept)
    }

    var wellsCommand: String { "\(wells) load CSV --db STORE --format json --quiet" }

    var referenceCommand: String? {
        referenceLoad.map { ([Tools.which($0) ?? $0] + Self.referenceArguments + ["CSV", "DB"]).joined(separator: " ") }
    }

    /// Reads `path` to its end, so that the first round finds it in the page cache like the others.
    static func readThrough(_ path: String) throws {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw StoreError(.notFound, "cannot read \(path)") }
        defer { try? handle.close() }
        while let chunk = try handle.read(upToCount: 1 << 22), !chunk.isEmpty {}
    }

    static func removeStore(_ path: String) {
        for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }

    /// The bytes of a store and its write-ahead log on disk.
    static func storeBytes(_ path: String) -> Int {
        ["", "-wal"].reduce(0) { total, suffix in
            total + ((try? FileManager.default.attributesOfItem(atPath: path + suffix)[.size] as? Int) ?? 0)
        }
    }

    static func table(_ report: Report) -> String {
        func mb(_ bytes: Int) -> String { String(format: "%.1f", Double(bytes) / 1_048_576) }
        var lines = ["wells load as a whole process, each size into a new store: median of \(report.rounds) round\(report.rounds == 1 ? "" : "s"); "
            + "peak RSS is the largest (no figure below the spawn floor, \(mb(report.spawnFloorBytes)) MB)"]
        let hasReference = report.reference != nil
        var header = ["size", "wells", "CSV MB", "time s", "µs/well", "× time", "× rows", "peak MB", "B/well > CSV", "store MB", "store B/well"]
        if hasReference { header += ["C s", "C µs/well", "C × time", "wells ÷ C", "C peak MB", "C store MB"] }
        var rows = [header]
        for size in report.sizes {
            var row = [size.label, grouped(size.rows), mb(size.csvBytes), String(format: "%.2f", size.seconds),
                       String(format: "%.2f", size.microsecondsPerWell), String(format: "%.2f", size.timeRatio),
                       String(format: "%.2f", size.rowsRatio), mb(size.peakRSSBytes), String(format: "%.0f", size.peakRSSBytesPerWellAboveCSV),
                       mb(size.storeBytes), String(format: "%.0f", size.storeBytesPerWell)]
            if let c = size.reference {
                row += [String(format: "%.2f", c.seconds), String(format: "%.2f", c.microsecondsPerWell), String(format: "%.2f", c.timeRatio),
                        String(format: "%.2f", c.wellsRatio), mb(c.peakRSSBytes), mb(c.storeBytes)]
            }
            rows.append(row)
        }
        lines += BenchTables.grid(rows)
        let phaseNames = Set(report.sizes.flatMap(\.phases.keys))
        let order = ["read", "parse", "suspects", "rows", "identifierIndex", "index", "commit"]
        let names = order.filter(phaseNames.contains) + phaseNames.subtracting(order).sorted()
        if !names.isEmpty {
            lines.append("\nPhases of wells load (seconds, medians; from its --format json summary):")
            lines += BenchTables.grid([["size"] + names] + report.sizes.map { size in
                [size.label] + names.map { name in size.phases[name].map { String(format: "%.3f", $0) } ?? "" }
            })
        }
        if let reference = report.reference { lines.append("\nC reference: \(reference)") }
        return lines.joined(separator: "\n")
    }
}
