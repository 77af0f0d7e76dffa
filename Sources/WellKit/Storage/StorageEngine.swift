import Foundation
import Synchronization

/// What a storage engine provides to ``WellStore``: the seam for a second engine.
///
/// ``WellStore`` keeps everything that does not depend on the engine: reading and scanning
/// files, column inference, validation, coordinate transformation (PROJ), the nearest-wells
/// search, the batched results' caching and diffs. An engine stores and queries:
///
/// - opening or creating a store, with its schema versioning (``schemaVersion``);
/// - the bulk write of one scanned load, in one transaction (``write(_:)``);
/// - region and predicate queries: pins, wells, ids, counts, dictionaries and streamed rows;
/// - ID-first snapshots with sections, and batch loads by ids (``snapshot(_:sectionKey:)``, ``load(_:as:)``);
/// - a change token that moves when anyone commits to the store (``changeToken()``).
///
/// ``SQLiteEngine`` (SQLite with SpatiaLite, through GRDB) is the first, ``PostgresEngine``
/// (PostgreSQL with PostGIS, through postgres-nio) the second. See <doc:StorageEngines>.
package protocol StorageEngine: Sendable {
    /// The schema version this build creates and reads.
    static var schemaVersion: Int32 { get }

    /// Writes one scanned load in one transaction and returns its summary: the write phase of
    /// ``WellStore/load(csvAt:options:)``, after reading, inference and validation.
    /// The load arrives whole from ``WellStore/prepareLoad(csvAt:options:)``; the engine allocates the load id.
    func write(_ load: consuming PreparedLoad) throws -> LoadSummary

    // MARK: Releases

    /// The releases of `source` (nil: of every source), by source and number (``ReleaseWriter`` writes them).
    func releases(source: String?) throws -> [WellRelease]
    /// The changes of a source between two of its releases.
    func changes(_ query: ChangeQuery) throws -> ReleaseChanges
    /// Each release's values of the well `identifier`, in release order.
    func history(of identifier: String) throws -> [WellHistoryEntry]

    // MARK: Queries

    func pins(_ request: WellFetchRequest) throws -> [WellPin]
    /// Pins with their geodesic distance from `center`, nearest first unless the request sorts.
    func pins(_ request: WellFetchRequest, distanceFrom center: Coordinate) throws -> [(pin: WellPin, meters: Double)]
    func wells(_ request: WellFetchRequest) throws -> [Well]
    /// The wells of `ids`, in no particular order; deleted ids are absent.
    func wells(ids: [Int64]) throws -> [Well]
    func ids(_ request: WellFetchRequest) throws -> [Int64]
    func count(_ request: WellFetchRequest) throws -> Int
    func dictionaries(_ request: WellFetchRequest, fields: [WellAttribute]) throws -> [[String: WellValue]]
    /// Streams rows of `fields` (and the distance from `center` last, when given) without holding them.
    func forEachRow(_ request: WellFetchRequest, fields: [WellAttribute], distanceFrom center: Coordinate?,
                    _ body: (WellRow) throws -> Void) throws
    /// One row per group of `keys`' values: the keys, `count(*)`, then each measure (``WellStore/groups(_:by:measures:)``).
    /// With no keys, one row for all the request's wells. The request's sort, limit and offset are ignored.
    func aggregate(_ request: WellFetchRequest, keys: [AggregateKey], measures: [WellMeasure]) throws -> [[WellValue]]
    func suspects(reason: String?, pinID: Int64?, limit: Int?) throws -> [SuspectWell]
    /// The box of every well and their number: (nil, 0) for an empty store.
    func extent() throws -> (box: BoundingBox?, count: Int)
    /// The keys of every well's `extra` object, each once, in no particular order (``WellStore/extraColumnNames()``).
    func extraColumnNames() throws -> [String]
    /// The `loads.inferences` JSON of load `id` (nil for none), where a load keeps its per-load facts such as units.
    func loadInferences(id: Int64) throws -> String?

    // MARK: Async queries

    // What ``WellStore``'s async fetches (``WellStore/pins(matching:)`` and its siblings) await:
    // the same answers as the synchronous queries above, with no thread blocked while the engine
    // waits (SQLite: GRDB's asynchronous reads; PostgreSQL: the pool's connections).
    func pins(_ request: WellFetchRequest) async throws -> [WellPin]
    func wells(_ request: WellFetchRequest) async throws -> [Well]
    func ids(_ request: WellFetchRequest) async throws -> [Int64]
    func count(_ request: WellFetchRequest) async throws -> Int

    // MARK: Batched results

    /// The ids in request order, with the sections of `sectionKey`.
    func snapshot(_ request: WellFetchRequest, sectionKey: WellField?) throws -> ResultsSnapshot
    /// Loads the rows of `ids` as `Element`s, by id; deleted ids are absent.
    func load<Element: BatchLoadable>(_ ids: [Int64], as type: Element.Type) throws -> [Int64: Element]
    /// A new snapshot and the rows of `ids`, read together, so that a refresh compares rows of the same moment.
    func snapshot<Element: BatchLoadable>(_ request: WellFetchRequest, sectionKey: WellField?, reloading ids: [Int64],
                                          as type: Element.Type) throws -> (ResultsSnapshot, [Int64: Element])
    /// A value that changes whenever a connection, of this process or another, commits to the store.
    func changeToken() throws -> Int64

    // MARK: Sort indexes

    /// The name of the existing index that serves `sortDescriptors`, or nil.
    func sortIndex(for sortDescriptors: [WellSortDescriptor]) throws -> String?
    /// Creates the index that serves `sortDescriptors` if missing; nil when no index can serve it.
    func ensureSortIndex(_ sortDescriptors: [WellSortDescriptor]) throws -> String?

    // MARK: Housekeeping

    /// Whether any load has been recorded.
    func hasLoads() throws -> Bool
    /// The engine's check of its files and ``StoreInvariants``, reading only (``WellStore/check(quick:)``).
    /// A part that cannot run on damage is a finding, not an error.
    func check(quick: Bool) throws -> StoreCheck
    /// Closes the connections; later use fails.
    func close() throws
    /// The reader of ``changeToken()`` that batched results and servers share, one per store per process.
    func changeMonitor() throws -> ChangeMonitor
    /// Stops what the engine's call in progress waits for, from any thread, without blocking; with
    /// none in progress it does nothing (the next call runs as usual). SQLite: its interrupt, the
    /// statement fails at its next step. PostgreSQL: the wait for the server, which a server that
    /// stopped answering never ends: the connection of a query is closed (the call fails as a lost
    /// connection, the next one connects anew) and a connection attempt is abandoned.
    func interrupt()
    /// Has every later statement stop once it runs longer than `timeout`: PostgreSQL's
    /// `statement_timeout`, kept on new connections, which also stops the statement on the server
    /// after ``interrupt()`` closed its connection. A file's engine does nothing here; its
    /// statements stop at ``interrupt()``.
    func stopStatements(after timeout: Duration) throws
    /// Calls `onCommit` soon after each commit to pins or details by this process (SQLite) or by
    /// any (PostgreSQL's `NOTIFY`), until the returned closure is called.
    func observeCommits(onError: @escaping @Sendable (any Error) -> Void, _ onCommit: @escaping @Sendable () -> Void) throws -> @Sendable () -> Void
    /// The engine's connection pool now, for a server's metrics; nil for an engine without one (SQLite).
    var poolStatistics: StorePoolStatistics? { get }
}

extension StorageEngine {
    package var poolStatistics: StorePoolStatistics? { nil }
}

/// What an engine's connection pool holds and has lent (``WellStore/poolStatistics``).
package struct StorePoolStatistics: Sendable, Equatable {
    /// Connections open now.
    package var open: Int
    /// Connections lent to a call now.
    package var leased: Int
    /// Connections lent so far.
    package var leases: Int
    /// Leases that found every open connection lent, and so waited for one to be returned or made.
    package var waits: Int

    package init(open: Int, leased: Int, leases: Int, waits: Int) {
        (self.open, self.leased, self.leases, self.waits) = (open, leased, leases, waits)
    }

    /// Two pools' figures together (a server's connections to one store).
    package static func + (a: Self, b: Self) -> Self {
        Self(open: a.open + b.open, leased: a.leased + b.leased, leases: a.leases + b.leases, waits: a.waits + b.waits)
    }
}

/// An engine in another module, which ``WellStore/init(path:mode:trace:traceValues:)`` opens for the
/// locations it claims: the PostgreSQL engine of `WellKitPostgreSQL` claims `postgresql://` URLs.
///
/// The engine modules register themselves (`WellStore.enablePostgreSQL()`), so that WellKit, the
/// core and its SQLite engine, depends on no server driver: an app that stores wells in a file
/// builds no NIO and no TLS library.
package protocol StoreEngineProvider: Sendable {
    /// Whether `location` names one of this engine's stores.
    func claims(_ location: String) -> Bool
    /// Opens the store at `location`: its engine and the name to show for it (never a password).
    func open(_ location: String, mode: WellStore.OpenMode, trace: (@Sendable (String) -> Void)?) throws -> (engine: any StorageEngine, name: String)
    /// How `location` is shown in messages and logs: never its password.
    func displayName(of location: String) -> String
    /// How `location` is named to clients of a server: nothing of the host (no user, host or
    /// port), such as the database's name.
    func publicName(of location: String) -> String
}

/// The engines registered beside the SQLite engine, which is always there.
package enum StoreEngines {
    private static let providers = Mutex<[any StoreEngineProvider]>([])

    /// Adds `provider` (once per type: registering again does nothing).
    package static func register(_ provider: some StoreEngineProvider) {
        providers.withLock { list in
            if !list.contains(where: { type(of: $0) == type(of: provider) }) { list.append(provider) }
        }
    }

    /// The registered engine that claims `location`, if any.
    static func provider(for location: String) -> (any StoreEngineProvider)? {
        providers.withLock { list in list.first { $0.claims(location) } }
    }

    /// Whether `location` is a server URL (`scheme://…`, PostgreSQL's among them) rather than a file path.
    static func isServerURL(_ location: String) -> Bool {
        guard let range = location.range(of: "://") else { return false }
        let scheme = location[..<range.lowerBound]
        return !scheme.isEmpty && scheme.allSatisfy { $0.isLetter || $0 == "+" }
    }

    /// `location` with any password replaced by `****`, whether in the user-info or a `password=`
    /// parameter; only the scheme when it cannot be parsed (no password can be told apart).
    package static func redacted(_ location: String) -> String {
        guard var components = URLComponents(string: location) else {
            return location.components(separatedBy: "://").first.map { $0 + "://…" } ?? "…"
        }
        if components.password != nil { components.password = "****" }
        if let items = components.queryItems, items.contains(where: { $0.name == "password" }) {
            components.queryItems = items.map { $0.name == "password" ? URLQueryItem(name: "password", value: "****") : $0 }
        }
        return components.string ?? "…"
    }
}

extension StorageEngine {
    /// An engine that keeps no releases lists none and answers no change query.
    package func releases(source: String?) throws -> [WellRelease] { [] }

    package func changes(_ query: ChangeQuery) throws -> ReleaseChanges {
        throw ReleaseError(.unsupported, "this store keeps no releases: releases are kept by SQLite stores (wells load --release --db FILE.sqlite)")
    }

    package func history(of identifier: String) throws -> [WellHistoryEntry] { [] }
}
