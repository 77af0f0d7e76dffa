import Foundation
import Synchronization
import WellKit
#if canImport(Glibc)
import Glibc
#endif

extension PostGISBenchmark {
    // MARK: Queries

    /// The SQL WellKit sent for one kind of query, over all the queries.
    struct CapturedKind {
        var tag: String
        var query: String
        /// Each statement's text, placeholders as pgbench variables `:v1…`.
        var texts: [String]
        /// Each statement's bound values, as text.
        var values: [[String]]
        var calls: Int
        var sql: String { texts.first ?? "" }
        var uniform: Bool { Set(texts).count == 1 && Set(values.map(\.count)).count == 1 }
    }

    /// The nearest-neighbour reference: the KNN operator on the GiST index, with the geodesic distance selected.
    static let knnSQL = "SELECT p.id, p.name, p.lat, p.lon, ST_Distance(p.geom::geography, ST_SetSRID(ST_MakePoint(:v1, :v2), 4326)::geography) AS distance "
        + "FROM pins p ORDER BY p.geom <-> ST_SetSRID(ST_MakePoint(:v1, :v2), 4326) LIMIT 10"

    func centre(_ box: BoundingBox) -> Coordinate {
        Coordinate(latitude: (box.minLatitude + box.maxLatitude) / 2, longitude: (box.minLongitude + box.maxLongitude) / 2)
    }

    /// The three queries of one box: its pins, the 10 nearest its centre, the pins within 5 km of its centre. Returns the rows.
    func perform(_ kind: Int, _ box: BoundingBox, on store: WellStore) throws -> Int {
        switch kind {
        case 0: return try store.fetchPins(WellFetchRequest(region: .box(box))).count
        case 1: return try store.fetchNearest(to: centre(box), count: Self.nearestCount).count
        default:
            let c = centre(box)
            return try store.fetchPins(WellFetchRequest(region: .radius(latitude: c.latitude, longitude: c.longitude, meters: Self.radiusMeters))).count
        }
    }

    static let kinds = [("box", "city box 0.05°"), ("nearest", "nearest 10"), ("radius", "radius 5 km")]

    /// Runs every query once on a store opened with a trace, and keeps the SELECTs each sent.
    func captureSQL(url: String) throws -> [CapturedKind] {
        final class Log: Sendable {
            let lines = Mutex<[String]>([])
            func take() -> [String] { lines.withLock { lines in let taken = lines; lines = []; return taken } }
        }
        let log = Log()
        let store = try WellStore(path: url, mode: .readOnly, trace: { line in log.lines.withLock { $0.append(line) } })
        _ = log.take()
        return try Self.kinds.enumerated().map { kind, names in
            var captured = CapturedKind(tag: names.0, query: names.1, texts: [], values: [], calls: boxes.count)
            for box in boxes {
                _ = try perform(kind, box, on: store)
                for line in log.take() where line.hasPrefix("SELECT") {
                    let (text, values) = try Self.parseTrace(line)
                    captured.texts.append(text)
                    captured.values.append(values)
                }
            }
            return captured
        }
    }

    /// A traced statement, `SQL -- ["v1", "v2"]`, as pgbench SQL (`$n` → `:vn`) and its values.
    static func parseTrace(_ line: String) throws -> (String, [String]) {
        var sql = line, values: [String] = []
        if let marker = line.range(of: " -- [", options: .backwards) {
            sql = String(line[..<marker.lowerBound])
            let list = "[" + line[marker.upperBound...]
            guard let strings = try? JSONSerialization.jsonObject(with: Data(list.utf8)) as? [String] else {
                throw StoreError(.invalidArgument, "cannot read the bound values of a traced statement: \(line.prefix(300))")
            }
            for value in strings where Double(value) == nil {
                throw StoreError(.invalidArgument, "a traced statement binds a value that is not a number (\(value)), which pgbench's \\set cannot give: \(line.prefix(300))")
            }
            values = strings
        }
        // `$12` → `:v12`: scan digits after each `$`.
        var text = "", characters = Array(sql), k = 0
        while k < characters.count {
            if characters[k] == "$", k + 1 < characters.count, characters[k + 1].isNumber {
                var j = k + 1
                while j < characters.count, characters[j].isNumber { j += 1 }
                text += ":v" + String(characters[(k + 1)..<j])
                k = j
            } else {
                text.append(characters[k])
                k += 1
            }
        }
        characters = []
        return (text, values)
    }

    /// A pgbench script that runs `sql` once per transaction with the values of a random one of `values`:
    /// `\set i random(0, n-1)`, then each variable `vk` as a constant when all are equal, else as
    /// CASEs nested as a binary search over `i` (about log2 n comparisons, a few µs per transaction).
    static func pgbenchScript(sql: String, values: [[String]]) -> String {
        func search(_ all: [String], _ low: Int, _ high: Int) -> String {
            guard low < high else { return all[low] }
            let middle = (low + high) / 2
            return "case when :i <= \(middle) then \(search(all, low, middle)) else \(search(all, middle + 1, high)) end"
        }
        var lines = ["\\set i random(0, \(values.count - 1))"]
        for column in 0..<(values.first?.count ?? 0) {
            let all = values.map { $0[column] }
            lines.append("\\set v\(column + 1) " + (Set(all).count == 1 ? all[0] : search(all, 0, all.count - 1)))
        }
        lines.append(sql + ";")
        return lines.joined(separator: "\n") + "\n"
    }

    /// WellKit in-process: a warm-up pass, then `passes` passes, each query of each kind in turn.
    func wellKitLatency(url: String, captured: [CapturedKind]) throws -> [Latency] {
        let store = try WellStore(path: url, mode: .readOnly)
        for box in boxes { for kind in 0..<3 { _ = try perform(kind, box, on: store) } }
        var times = [[Double]](repeating: [], count: 3), rows = [[Int]](repeating: [], count: 3)
        for pass in 0..<passes {
            for box in boxes {
                for kind in 0..<3 {
                    let start = ContinuousClock.now
                    let count = try perform(kind, box, on: store)
                    times[kind].append((ContinuousClock.now - start).seconds * 1000)
                    if pass == 0 { rows[kind].append(count) }
                }
            }
        }
        return (0..<3).map { kind in
            Latency(query: captured[kind].query, calls: boxes.count, rowsP50: Statistics.median(rows[kind].map(Double.init)),
                    rowsMin: rows[kind].min() ?? 0, rowsMax: rows[kind].max() ?? 0,
                    statementsPerCall: Double(captured[kind].texts.count) / Double(max(1, captured[kind].calls)),
                    p50Ms: Statistics.median(times[kind]), p99Ms: Statistics.percentile(times[kind], 0.99),
                    meanMs: times[kind].reduce(0, +) / Double(max(1, times[kind].count)), sql: captured[kind].sql, references: [])
        }
    }

    /// One read-only store for every client of a throughput run (its pool lends each a connection
    /// of its own), with 3 boxes asked per client first, so that the pool has its connections.
    private func warmedStore(url: String, clients: Int) throws -> WellStore {
        let store = try WellStore(path: url, mode: .readOnly)
        for k in 0..<clients {
            for j in 0..<3 { _ = try store.fetchPins(WellFetchRequest(region: .box(boxes[(k * 17 + j) % boxes.count]))) }
        }
        return store
    }

    /// City boxes from `clients` threads sharing one read-only store, whose pool lends each a connection, for `seconds`.
    func wellKitThroughput(url: String, clients: Int, seconds: Double) throws -> (rate: Double, queries: Int) {
        let store = try warmedStore(url: url, clients: clients), boxes = self.boxes
        final class Tally: Sendable {
            let counts: Mutex<[Int]>
            let failure = Mutex<String?>(nil)
            init(_ n: Int) { counts = Mutex([Int](repeating: 0, count: n)) }
        }
        let tally = Tally(clients)
        let group = DispatchGroup()
        let start = ContinuousClock.now
        let deadline = start + .milliseconds(Int(seconds * 1000))
        for k in 0..<clients {
            group.enter()
            let thread = Thread {
                var i = k * boxes.count / clients, done = 0
                do {
                    while ContinuousClock.now < deadline {
                        _ = try store.fetchPins(WellFetchRequest(region: .box(boxes[i % boxes.count])))
                        i += 1
                        done += 1
                    }
                } catch {
                    tally.failure.withLock { $0 = "\(error)" }
                }
                tally.counts.withLock { $0[k] = done }
                group.leave()
            }
            thread.start()
        }
        group.wait()
        let elapsed = (ContinuousClock.now - start).seconds
        if let failure = tally.failure.withLock({ $0 }) {
            throw StoreError(.invalidArgument, "a WellKit client failed during the throughput run: \(failure)")
        }
        let total = tally.counts.withLock { $0.reduce(0, +) }
        return (Double(total) / elapsed, total)
    }

    /// City boxes from `clients` tasks sharing one read-only store through the async fetch
    /// (``WellStore/pins(matching:)``), for `seconds`: no thread waits on a query.
    func wellKitAsyncThroughput(url: String, clients: Int, seconds: Double) async throws -> (rate: Double, queries: Int) {
        let store = try warmedStore(url: url, clients: clients), boxes = self.boxes
        let start = ContinuousClock.now
        let deadline = start + .milliseconds(Int(seconds * 1000))
        let total = try await withThrowingTaskGroup(of: Int.self) { group in
            for k in 0..<clients {
                group.addTask {
                    var i = k * boxes.count / clients, count = 0
                    while ContinuousClock.now < deadline {
                        _ = try await store.pins(matching: WellFetchRequest(region: .box(boxes[i % boxes.count])))
                        i += 1
                        count += 1
                    }
                    return count
                }
            }
            return try await group.reduce(0, +)
        }
        return (Double(total) / (ContinuousClock.now - start).seconds, total)
    }

    /// Runs pgbench on `script`; with `latencies`, with -r and a per-transaction log (-l) read for p50 and p99.
    func pgbench(name: String, script: String, database: String, mode: String, clients: Int, seconds: Int, latencies: Bool) async throws -> PgbenchRun {
        let prefix = directory.appendingPathComponent("pgbench-log-\(UUID().uuidString.prefix(8))").path
        var arguments = ["-n", "-M", mode, "-c", "\(clients)", "-j", "\(clients)", "-T", "\(seconds)", "-f", script]
        if latencies { arguments += ["-r", "-l", "--log-prefix=\(prefix)"] }
        arguments.append(postgres.url(database))
        let output = try await Tools.run("pgbench", arguments).out
        func number(after label: String) -> Double? {
            guard let line = output.split(separator: "\n").first(where: { $0.hasPrefix(label) }) else { return nil }
            return line.dropFirst(label.count).split(separator: " ").first.flatMap { Double($0) }
        }
        guard let tps = number(after: "tps = "), let transactions = number(after: "number of transactions actually processed: ") else {
            throw StoreError(.invalidArgument, "cannot read pgbench's output: \(output.prefix(600))")
        }
        var run = PgbenchRun(name: name, mode: mode, clients: clients, seconds: seconds, transactions: Int(transactions), tps: tps)
        if latencies {
            // -r: "   0.412   0  SELECT …", after "statement latencies in milliseconds…".
            let lines = output.split(separator: "\n")
            if let header = lines.firstIndex(where: { $0.hasPrefix("statement latencies") }) {
                for line in lines[(header + 1)...] {
                    let fields = line.split(separator: " ", omittingEmptySubsequences: true)
                    if let command = fields.first(where: { Double($0) == nil }), command.hasPrefix("SELECT"), let average = fields.first.flatMap({ Double($0) }) {
                        run.statementAverageMs = average
                    }
                }
            }
            // -l: "client transaction latency_us script epoch us" per transaction, one file per thread.
            let folder = directory.path, base = URL(fileURLWithPath: prefix).lastPathComponent
            // Each client's first transaction, which prepares the statement, is left out.
            var micros: [Double] = []
            for file in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] where file.hasPrefix(base + ".") {
                let path = folder + "/" + file
                let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
                var seen = Set<Substring>()
                for line in text.split(separator: "\n") {
                    let fields = line.split(separator: " ")
                    guard fields.count >= 3, let value = Double(fields[2]) else { continue }
                    if seen.insert(fields[0]).inserted { continue }
                    micros.append(value)
                }
                try? FileManager.default.removeItem(atPath: path)
            }
            if !micros.isEmpty {
                run.p50Ms = Statistics.median(micros) / 1000
                run.p99Ms = Statistics.percentile(micros, 0.99) / 1000
                run.meanMs = micros.reduce(0, +) / Double(micros.count) / 1000
            }
        }
        return run
    }
}
