import CoreMetrics
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import Prometheus
import Synchronization
import WellKit

// What a team running `wells serve` watches it by: the access log, the Prometheus metrics at
// `/metrics`, `/health` and `/ready`. The request-level pieces wrap the whole responder (see
// ``OperationsResponder``), so HEAD, 405 and 404 answers are logged and counted as sent.

/// The server's metrics, in Prometheus' text format at `/metrics`, through swift-metrics with a
/// factory of this server's own (no process-wide bootstrap, so several servers in one process,
/// as the in-process tests build them, each count their own):
///
/// - `wells_http_requests_total{route,status}`: requests by route pattern (`/collections/{collectionId}/items`,
///   never the raw path, so the series stay few) and status; `unmatched` for paths no route serves;
/// - `wells_http_request_duration_seconds{route}`: a latency histogram per route;
/// - `wells_cache_hits_total` and `wells_cache_misses_total`: ``ResponseCache`` lookups of tiles and `items` pages;
/// - `wells_store_queries_total`: bodies read from the store (a cache hit or a `304` reads none);
/// - `wells_unavailable_total`: 503 answers (overload: a full queue, a request over its time, a store that is gone);
/// - `wells_http_requests_in_flight`: requests being answered now (this `/metrics` request among them);
/// - for a PostgreSQL store, its pools' use, read at each scrape (``publish(pool:)``):
///   `wells_postgres_connections{state="open|leased"}`, `wells_postgres_leases_total` and
///   `wells_postgres_lease_waits_total` (leases that found every open connection lent).
final class ServerMetrics: Sendable {
    let registry = PrometheusCollectorRegistry()
    private let factory: PrometheusMetricsFactory
    let cacheHits: CoreMetrics.Counter
    let cacheMisses: CoreMetrics.Counter
    let storeQueries: CoreMetrics.Counter
    let unavailable: CoreMetrics.Counter
    let inFlight: CoreMetrics.Meter

    init() {
        var factory = PrometheusMetricsFactory(registry: registry)
        // From a cached tile, answered in under a millisecond, to a request at the default timeout
        // (``ServerConfiguration/requestTimeout``).
        factory.defaultDurationHistogramBuckets = [0.000_5, 0.001, 0.002_5, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]
            .map { Duration.nanoseconds(Int64($0 * 1e9)) }
        self.factory = factory
        cacheHits = CoreMetrics.Counter(label: "wells_cache_hits_total", factory: factory)
        cacheMisses = CoreMetrics.Counter(label: "wells_cache_misses_total", factory: factory)
        storeQueries = CoreMetrics.Counter(label: "wells_store_queries_total", factory: factory)
        unavailable = CoreMetrics.Counter(label: "wells_unavailable_total", factory: factory)
        inFlight = CoreMetrics.Meter(label: "wells_http_requests_in_flight", factory: factory)
    }

    /// The request counters by route and status, and the latency timer by route, made once each:
    /// swift-metrics' handles are values to keep, and making them anew per request (a label and
    /// dimension lookup in the factory's registry each time) was a measurable share of a cached answer.
    private let perRoute = Mutex<[String: RouteMetrics]>([:])

    private struct RouteMetrics {
        let latency: CoreMetrics.Timer
        var requests: [Int: CoreMetrics.Counter] = [:]
    }

    /// Counts one answered request.
    func record(route: String, status: HTTPResponse.Status, duration: Duration) {
        let (requests, latency) = perRoute.withLock { table in
            var entry = table[route] ?? RouteMetrics(latency: CoreMetrics.Timer(
                label: "wells_http_request_duration_seconds", dimensions: [("route", route)], factory: factory))
            let counter = entry.requests[status.code] ?? CoreMetrics.Counter(
                label: "wells_http_requests_total", dimensions: [("route", route), ("status", String(status.code))], factory: factory)
            entry.requests[status.code] = counter
            table[route] = entry
            return (counter, entry.latency)
        }
        requests.increment()
        latency.record(duration: duration)
        if status == .serviceUnavailable { unavailable.increment() }
    }

    /// The pool figures last published, whose growth the counters were incremented by.
    private let publishedPool = Mutex(StorePoolStatistics(open: 0, leased: 0, leases: 0, waits: 0))

    /// Sets the PostgreSQL pool's gauges to `pool` and advances its counters to its totals.
    func publish(pool: StorePoolStatistics) {
        CoreMetrics.Gauge(label: "wells_postgres_connections", dimensions: [("state", "open")], factory: factory).record(pool.open)
        CoreMetrics.Gauge(label: "wells_postgres_connections", dimensions: [("state", "leased")], factory: factory).record(pool.leased)
        let last = publishedPool.withLock { last in
            defer { last = pool }
            return last
        }
        CoreMetrics.Counter(label: "wells_postgres_leases_total", factory: factory).increment(by: max(0, pool.leases - last.leases))
        CoreMetrics.Counter(label: "wells_postgres_lease_waits_total", factory: factory).increment(by: max(0, pool.waits - last.waits))
    }

    /// The metrics as Prometheus' text format 0.0.4.
    var text: [UInt8] { registry.emitToBuffer() }
}

/// Every request through ``WellsServer``'s responder: a request id (the client's `X-Request-Id`
/// when it sends a plain one, else a new one) returned as `X-Request-Id`, one access-log line at
/// `info` (method, path with its query, status, bytes, duration, request id) and the request's
/// metrics. An error that is an HTTP answer becomes its response here, so it is logged and
/// counted with its status.
struct OperationsResponder<Base: HTTPResponder>: HTTPResponder where Base.Context: RequestContext {
    let base: Base
    let metrics: ServerMetrics
    let logger: Logger

    static var requestIDField: HTTPField.Name { HTTPField.Name("X-Request-Id")! }

    func respond(to request: Request, context: Base.Context) async throws -> Response {
        let start = ContinuousClock.now
        let id = Self.requestID(request)
        metrics.inFlight.increment()
        var response: Response
        do {
            // The request's deadline counts from here (``StoreReaders/newDeadline``).
            response = try await StoreReaders.$arrival.withValue(start) { try await base.respond(to: request, context: context) }
        } catch let error as any HTTPResponseError {
            response = try error.response(from: request, context: context)
        } catch {
            finish(request, context: context, id: id, status: .internalServerError, bytes: 0, since: start)
            throw error
        }
        response.headers[Self.requestIDField] = id
        finish(request, context: context, id: id, status: response.status, bytes: response.body.contentLength ?? 0, since: start)
        return response
    }

    private func finish(_ request: Request, context: Base.Context, id: String, status: HTTPResponse.Status, bytes: Int, since start: ContinuousClock.Instant) {
        let duration = start.duration(to: .now)
        metrics.inFlight.decrement()
        metrics.record(route: context.endpointPath.map { $0 == "NotFound" ? "unmatched" : $0 } ?? "unmatched", status: status, duration: duration)
        logger.info("request", metadata: [
            "method": .string(request.method.rawValue),
            "path": .string(AccessLog.shown(request.uri.string)),
            "status": .stringConvertible(status.code),
            "bytes": .stringConvertible(bytes),
            "duration_ms": .string(AccessLog.milliseconds(duration)),
            "request_id": .string(id),
        ])
    }

    /// The client's request id when it is 1 to 128 letters, digits and `._:-`, else 16 new hex digits.
    static func requestID(_ request: Request) -> String {
        if let given = request.headers[requestIDField], (1...128).contains(given.utf8.count),
           given.utf8.allSatisfy({ $0 < 128 && (isalnum(Int32($0)) != 0 || "._:-".utf8.contains($0)) }) {
            return given
        }
        let hex = String(UInt64.random(in: 0...UInt64.max), radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}

extension WellsServer {
    /// `/health`, `/ready` and `/metrics`.
    ///
    /// - `/health`: the process answers, `200` always (a liveness probe).
    /// - `/ready`: the store answers (its version is read now), `200`; else the `503` problem
    ///   document that an API request would get (a readiness probe: take the instance out of rotation).
    /// - `/metrics`: ``ServerMetrics`` in Prometheus' text format, with a PostgreSQL store's pool use read now.
    func addOperationsRoutes(to router: Router<BasicRequestContext>) {
        router.get(.init(Route.health.path)) { _, _ in
            Self.status("up")
        }
        router.get(.init(Route.ready.path)) { _, _ in
            _ = try await readers.tag(fresh: true, until: readers.newDeadline)
            return Self.status("ready")
        }
        router.get(.init(Route.metrics.path)) { _, _ in
            if let pool = readers.poolStatistics { metrics.publish(pool: pool) }
            return Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8", .cacheControl: "no-store"],
                     body: ResponseBody(byteBuffer: ByteBuffer(bytes: metrics.text)))
        }
    }

    private static func status(_ word: String) -> Response {
        Response(status: .ok, headers: [.contentType: "application/json", .cacheControl: "no-store"],
                 body: ResponseBody(byteBuffer: ByteBuffer(string: #"{"status":"\#(word)"}"# + "\n")))
    }
}

/// Standard error for the access log: lines below `warning` wait in a buffer, written with one
/// `write(2)` when it holds ``limit`` bytes, when its oldest line is ``age`` old (a thread looks
/// as often) and at exit; a warning or worse is written at once, after the lines before it. A
/// `write(2)` per line would be most of the logging's cost (Benchmarks/README.md's "Serving";
/// nginx's `access_log … buffer=` does the same). A process killed with SIGKILL loses at most the
/// last ``age`` of lines.
final class LogSink: Sendable {
    static let standardError = LogSink(descriptor: 2)

    private let descriptor: Int32
    private let pending = Mutex<(bytes: [UInt8], since: ContinuousClock.Instant?)>(([], nil))
    private static let limit = 32 << 10
    private static let age: Duration = .milliseconds(100)

    private init(descriptor: Int32) {
        self.descriptor = descriptor
        atexit { LogSink.standardError.flush() }
        Thread.detachNewThread { [self] in
            while true {
                Thread.sleep(forTimeInterval: 0.1)
                flush(olderThan: Self.age)
            }
        }
    }

    /// Appends `line`, and writes what waits when `now`, when it is full or its oldest line is old.
    func write(_ line: [UInt8], now: Bool) {
        pending.withLock { pending in
            if pending.since == nil { pending.since = .now }
            pending.bytes.append(contentsOf: line)
            if now || pending.bytes.count >= Self.limit || pending.since!.duration(to: .now) >= Self.age { drain(&pending) }
        }
    }

    /// Writes what waits (all of it, or only when its oldest line is older than `age`).
    func flush(olderThan age: Duration = .zero) {
        pending.withLock { pending in
            guard let since = pending.since, since.duration(to: .now) >= age else { return }
            drain(&pending)
        }
    }

    private func drain(_ pending: inout (bytes: [UInt8], since: ContinuousClock.Instant?)) {
        pending.bytes.withUnsafeBytes { bytes in
            var rest = bytes
            while !rest.isEmpty {
                let written = Foundation.write(descriptor, rest.baseAddress, rest.count)
                if written <= 0 { if written < 0, errno == EINTR { continue }; break }
                rest = UnsafeRawBufferPointer(rebasing: rest[written...])
            }
        }
        pending.bytes.removeAll(keepingCapacity: true)
        pending.since = nil
    }
}

/// The access log's form: one line per event on standard error in logfmt
/// (`time=… level=info msg=request method=GET path=/collections status=200 bytes=812 duration_ms=0.412 request_id=…`),
/// which `grep`, `jq`-like tools, Loki and most log shippers read as fields.
package struct AccessLog: LogHandler {
    package var logLevel: Logger.Level = .info
    package var metadata: Logger.Metadata = [:]
    let label: String

    package init(label: String) {
        self.label = label
    }

    package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// The fields that lead a line, in this order; others follow in alphabetical order.
    private static let leading = ["method", "path", "status", "bytes", "duration_ms", "request_id"]

    package func log(event: LogEvent) {
        // The line is built as bytes (built as a String, with the fields merged into a dictionary
        // and sorted on every line, it cost more than writing it) and handed to ``LogSink``.
        var line: [UInt8] = []
        line.reserveCapacity(320)
        line.append(contentsOf: "time=".utf8)
        Self.appendTimestamp(to: &line)
        line.append(contentsOf: " level=".utf8)
        line.append(contentsOf: event.level.rawValue.utf8)
        line.append(contentsOf: " msg=".utf8)
        Self.appendQuoted(event.message.description, to: &line)
        let given = event.metadata ?? [:]
        var shown = 0
        for key in Self.leading {
            guard let value = given[key] ?? metadata[key] else { continue }
            Self.append(key, value, to: &line)
            shown += 1
        }
        if given.count + metadata.count > shown {
            let others = Set(given.keys).union(metadata.keys).subtracting(Self.leading).sorted()
            for key in others { Self.append(key, given[key] ?? metadata[key]!, to: &line) }
        }
        line.append(UInt8(ascii: "\n"))
        LogSink.standardError.write(line, now: event.level >= .warning)
    }

    /// ` key=value`, the value quoted when logfmt needs it.
    private static func append(_ key: String, _ value: Logger.Metadata.Value, to line: inout [UInt8]) {
        line.append(UInt8(ascii: " "))
        line.append(contentsOf: key.utf8)
        line.append(UInt8(ascii: "="))
        switch value {
        case .string(let text): appendQuoted(text, to: &line)
        case .stringConvertible(let value): appendQuoted(value.description, to: &line)
        default: appendQuoted(value.description, to: &line)
        }
    }

    /// `value`, quoted when logfmt needs it (spaces, `=`, quotes, nothing at all), control characters escaped.
    static func quoted(_ value: String) -> String {
        var line: [UInt8] = []
        appendQuoted(value, to: &line)
        return String(decoding: line, as: UTF8.self)
    }

    /// Appends `value` as ``quoted(_:)`` returns it, byte by byte (a byte of 0x80 or more is part
    /// of a character that needs no escape).
    private static func appendQuoted(_ value: String, to line: inout [UInt8]) {
        let plain = !value.isEmpty && value.utf8.allSatisfy { $0 > 0x20 && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "=") && $0 != UInt8(ascii: "\\") && $0 != 0x7F }
        if plain { return line.append(contentsOf: value.utf8) }
        line.append(UInt8(ascii: "\""))
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""): line.append(contentsOf: #"\""#.utf8)
            case UInt8(ascii: "\\"): line.append(contentsOf: #"\\"#.utf8)
            case UInt8(ascii: "\n"): line.append(contentsOf: #"\n"#.utf8)
            case UInt8(ascii: "\r"): line.append(contentsOf: #"\r"#.utf8)
            case UInt8(ascii: "\t"): line.append(contentsOf: #"\t"#.utf8)
            case 0..<0x20, 0x7F:
                let hex = Array("0123456789abcdef".utf8)
                line.append(contentsOf: #"\u00"#.utf8)
                line.append(hex[Int(byte >> 4)])
                line.append(hex[Int(byte & 0xF)])
            default: line.append(byte)
            }
        }
        line.append(UInt8(ascii: "\""))
    }

    /// Now in UTC as ISO 8601 with milliseconds (`2026-11-27T02:30:01.123Z`), written digit by
    /// digit from `clock_gettime` and `gmtime_r`: Foundation's `Date.formatted(.iso8601…)` builds its
    /// formatter on every call, which cost more than the rest of the line.
    static func timestamp() -> String {
        var bytes: [UInt8] = []
        appendTimestamp(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func appendTimestamp(to text: inout [UInt8]) {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var seconds = now.tv_sec
        var parts = tm()
        gmtime_r(&seconds, &parts)
        digits(Int(parts.tm_year) + 1900, 4, &text); text.append(UInt8(ascii: "-"))
        digits(Int(parts.tm_mon) + 1, 2, &text); text.append(UInt8(ascii: "-"))
        digits(Int(parts.tm_mday), 2, &text); text.append(UInt8(ascii: "T"))
        digits(Int(parts.tm_hour), 2, &text); text.append(UInt8(ascii: ":"))
        digits(Int(parts.tm_min), 2, &text); text.append(UInt8(ascii: ":"))
        digits(Int(parts.tm_sec), 2, &text); text.append(UInt8(ascii: "."))
        digits(Int(now.tv_nsec) / 1_000_000, 3, &text); text.append(UInt8(ascii: "Z"))
    }

    /// `duration` in milliseconds with three decimals (`0.412`), without `String(format:)`.
    static func milliseconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        let micros = max(0, seconds) * 1_000_000 + max(0, attoseconds) / 1_000_000_000_000
        var text = Array(String(micros / 1_000).utf8)
        text.append(UInt8(ascii: "."))
        digits(Int(micros % 1_000), 3, &text)
        return String(decoding: text, as: UTF8.self)
    }

    /// Appends `value` with `width` digits, zero-padded.
    private static func digits(_ value: Int, _ width: Int, _ text: inout [UInt8]) {
        var divisor = 1
        for _ in 1..<width { divisor *= 10 }
        var rest = value
        while divisor > 0 {
            text.append(UInt8(48 + (rest / divisor) % 10))
            rest %= divisor
            divisor /= 10
        }
    }

    /// A request target as the log shows it: the path and query as sent, but the value of any
    /// parameter whose name speaks of a secret (`password`, `passwd`, `pwd`, `secret`, `token`,
    /// `key`) and any `user:password@` inside a value (a database URL) replaced by `REDACTED`.
    ///
    /// Byte by byte, and a new string only when something is redacted: with Foundation's
    /// `contains` and percent-decoding on every parameter, this would be a large share of a logged
    /// request's logging cost.
    static func shown(_ target: String) -> String {
        let bytes = Array(target.utf8)
        guard let mark = bytes.firstIndex(of: UInt8(ascii: "?")) else { return target }
        var redacted: [Range<Int>] = []
        var start = mark + 1
        while start <= bytes.count {
            let end = bytes[start...].firstIndex(of: UInt8(ascii: "&")) ?? bytes.count
            if let equals = bytes[start..<end].firstIndex(of: UInt8(ascii: "=")) {
                if namesASecret(decoded(bytes[start..<equals])) || hasCredentials(decoded(bytes[(equals + 1)..<end])) {
                    redacted.append((equals + 1)..<end)
                }
            }
            start = end + 1
        }
        guard !redacted.isEmpty else { return target }
        var shown: [UInt8] = []
        shown.reserveCapacity(bytes.count)
        var next = 0
        for range in redacted {
            shown.append(contentsOf: bytes[next..<range.lowerBound])
            shown.append(contentsOf: "REDACTED".utf8)
            next = range.upperBound
        }
        shown.append(contentsOf: bytes[next...])
        return String(decoding: shown, as: UTF8.self)
    }

    /// The words that make a parameter's name a secret's.
    private static let secretWords = ["password", "passwd", "pwd", "secret", "token", "key"].map { Array($0.utf8) }

    /// Whether a decoded parameter name speaks of a secret, in any case (Unicode's lowercase
    /// for a name that is not ASCII: the Kelvin sign's is `k`).
    private static func namesASecret(_ name: [UInt8]) -> Bool {
        let lower = name.allSatisfy { $0 < 0x80 } ? name.map { $0 >= 65 && $0 <= 90 ? $0 + 32 : $0 }
                                                  : Array(String(decoding: name, as: UTF8.self).lowercased().utf8)
        return secretWords.contains { word in
            lower.count >= word.count && (0...(lower.count - word.count)).contains { lower[$0..<($0 + word.count)].elementsEqual(word) }
        }
    }

    /// A query's name or value as sent: `+` as a space and `%XX` escapes decoded (an escape that
    /// is not one stays as it is).
    private static func decoded(_ text: ArraySlice<UInt8>) -> [UInt8] {
        guard text.contains(where: { $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "+") }) else { return Array(text) }
        func hex(_ byte: UInt8) -> UInt8? {
            switch byte {
            case 48...57: byte - 48
            case 65...70: byte - 55
            case 97...102: byte - 87
            default: nil
            }
        }
        var out: [UInt8] = []
        out.reserveCapacity(text.count)
        var k = text.startIndex
        while k < text.endIndex {
            let byte = text[k]
            if byte == UInt8(ascii: "%"), k + 2 < text.endIndex, let high = hex(text[k + 1]), let low = hex(text[k + 2]) {
                out.append(high << 4 | low)
                k += 3
                continue
            }
            out.append(byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
            k += 1
        }
        return out
    }

    /// Whether `value` holds `scheme://user:password@` (a database URL with its password): after
    /// `://`, a `:` then an `@` with no `/`, `@` or white space between. (A regular expression
    /// through Foundation did this, and was the largest share of a logged request's cost.)
    static func hasCredentials(_ value: String) -> Bool {
        hasCredentials(Array(value.utf8))
    }

    private static func hasCredentials(_ bytes: [UInt8]) -> Bool {
        guard bytes.count >= 5 else { return false }
        var k = 0
        while k + 2 < bytes.count {
            defer { k += 1 }
            guard bytes[k] == UInt8(ascii: ":"), bytes[k + 1] == UInt8(ascii: "/"), bytes[k + 2] == UInt8(ascii: "/") else { continue }
            var colon = false
            for byte in bytes[(k + 3)...] {
                if byte == UInt8(ascii: "/") || byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") { break }
                if byte == UInt8(ascii: "@") {
                    if colon { return true }
                    break
                }
                if byte == UInt8(ascii: ":") { colon = true }
            }
        }
        return false
    }
}
