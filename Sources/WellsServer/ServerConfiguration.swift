import Foundation
import WellKit

/// What `wells serve` serves and how: the store, the address, the caps and the files the map page uses.
package struct ServerConfiguration: Sendable {
    /// The store file, opened read-only.
    package var storePath: String
    /// The store as documents, problems and metrics name it: ``name`` when the operator gave one,
    /// else a file's name (no directory) or a database's name (no user, host or port).
    package var storeName: String { name ?? WellStore.publicName(of: storePath) }
    /// The name the operator gives the store (`wells serve --name`), shown instead of its file's or database's.
    package var name: String?
    /// The address to bind: the loopback interface unless told otherwise (the server has no
    /// authentication; ``isLoopback(_:)`` tells whether an address is only this machine's).
    package var host = "127.0.0.1"
    /// The port; 0 picks a free one (the running server reports it).
    package var port = 8080
    /// Leaflet's files, served under `/assets/leaflet/` (Debian's libjs-leaflet).
    package var leafletDirectory = "/usr/share/javascript/leaflet"
    /// A shapefile of country outlines for the map's background instead of the Natural Earth 1:50m
    /// countries compiled into WellKit (see ``Basemap``); nil for those.
    package var basemapPath: String?
    /// Origins allowed to call the API from other sites' pages; empty, CORS stays off.
    package var corsOrigins: [String] = []
    /// The `limit` of `items` when none is given.
    package var defaultLimit = 100
    /// The largest `limit`: a larger one is lowered to it, as OGC API – Features requires.
    package var maximumLimit = 10_000
    /// The largest `offset`: paging deeper costs time in proportion.
    package var maximumOffset = 1_000_000
    /// The most ids `ids` returns.
    package var maximumIDs = 100_000
    /// The most ids one `items?ids=` request may name.
    package var maximumItemIDs = 500
    /// A request's longest run before its query is interrupted and it answers 503.
    package var requestTimeout: Duration = .seconds(10)
    /// How long requests in flight may take to finish after SIGTERM or SIGINT before they are cancelled.
    package var shutdownTimeout: Duration = .seconds(10)
    /// How long a connection may stay idle before it is closed.
    package var idleTimeout: Duration = .seconds(60)
    /// Read-only connections to the store that serve requests side by side: one per core for work
    /// of unbounded cost (a sort of the whole store), and one more that such work never takes, kept
    /// for a box's page or one well (see ``StoreReaders``). With none kept, whole-store sorts would
    /// hold every connection and `/conformance` would wait behind them; the kept one is one more
    /// than the cores, not one of them, so the sorts still run one per core (Benchmarks/README.md's
    /// "Serving").
    package var readers = max(2, ProcessInfo.processInfo.activeProcessorCount) + 1
    /// The most requests of each kind (small, such as a box's page; large, such as a sort of the
    /// whole store) that may wait for a connection; one more answers 503 with `Retry-After` at once.
    package var maximumWaiting = 256
    /// How tiles are cut and clustered.
    package var tileOptions = TileOptions()
    /// The largest tile zoom served.
    package var maximumZoom = 22
    /// Bytes of encoded tiles and `items` pages kept in memory, reused until the store changes.
    package var cacheBytes = 64 << 20

    /// Whether `host` reaches this machine only: `localhost`, 127.0.0.0/8 or `::1`.
    package static func isLoopback(_ host: String) -> Bool {
        let host = host.lowercased()
        if host == "localhost" || host == "::1" || host == "0:0:0:0:0:0:0:1" { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { UInt8($0) != nil }
    }

    package init(storePath: String) {
        self.storePath = storePath
    }
}
