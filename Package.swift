// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "WellKit",
    platforms: [.macOS(.v13)],
    products: [
        // The core and its SQLite engine: GRDB, SpatiaLite and PROJ, no network library.
        .library(name: "WellKit", targets: ["WellKit"]),
        // The PostgreSQL/PostGIS engine, plugging into WellKit's storage seam (WellStore.enablePostgreSQL()).
        .library(name: "WellKitPostgreSQL", targets: ["WellKitPostgreSQL"]),
        // Synthetic well lists for tests and benchmarks (the Benchmarks/ package links it); not part of WellKit.
        .library(name: "WellKitSynthetic", targets: ["WellKitSynthetic"]),
        .executable(name: "wells", targets: ["wells"]),
    ],
    // The server and the PostgreSQL engine are traits, on by default (`swift build`, `swift test` and a
    // client's default build get everything). Without them, nothing of NIO, TLS, Hummingbird or
    // postgres-nio is resolved or built: a client that stores wells in files declares this package with
    // `traits: []`, and the README's main job builds `wells` with `--disable-default-traits`.
    traits: [
        .trait(name: "PostgreSQL", description: "The PostgreSQL/PostGIS engine (WellKitPostgreSQL): postgres-nio and NIOSSL."),
        .trait(name: "Server", description: "wells serve (WellsServer): Hummingbird."),
        .default(enabledTraits: ["PostgreSQL", "Server"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", exact: "2.28.1"),
        .package(url: "https://github.com/vapor/postgres-nio", exact: "1.33.2"),
        // TLS to PostgreSQL (sslmode): postgres-nio's own TLS, configured with NIOSSL's types.
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        // The server's operations (the Server trait): gzip of responses, Prometheus metrics through
        // swift-metrics, the access log, and graceful shutdown on SIGTERM.
        .package(url: "https://github.com/adam-fowler/compress-nio", exact: "1.5.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", exact: "2.4.1"),
        .package(url: "https://github.com/apple/swift-metrics", exact: "2.13.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", exact: "2.13.0"),
        // Child processes in the tests and wells-bench (ProcessRunner), never in the library or `wells`.
        .package(url: "https://github.com/swiftlang/swift-subprocess", exact: "1.0.2"),
        // The ZIP containers a load reads as they come: `.xlsx` workbooks and `.zip` archives.
        .package(url: "https://github.com/weichsel/ZIPFoundation", exact: "0.9.20"),
    ],
    targets: [
        .systemLibrary(
            name: "CSpatiaLite",
            providers: [.apt(["libspatialite-dev", "libsqlite3-mod-spatialite"])]),
        .systemLibrary(
            name: "CProj",
            providers: [.apt(["libproj-dev"])]),
        // The library: store, import, query, results, geo and export. Nothing that measures or fabricates.
        .target(
            name: "WellKit",
            dependencies: [
                "CSpatiaLite",
                "CProj",
                "CThreadSanitizer",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
            ],
            // The outlines of US counties and the world's countries that loads check wells against
            // (`Data/boundaries/make_places.py` makes them from `Data/boundaries`).
            resources: [.copy("Resources/places.tsv"), .copy("Resources/places.bin")]),
        // The PostgreSQL engine: postgres-nio, with NIOSSL's types for TLS (sslmode).
        .target(
            name: "WellKitPostgreSQL",
            dependencies: [
                "WellKit",
                .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["PostgreSQL"])),
                .product(name: "NIOSSL", package: "swift-nio-ssl", condition: .when(traits: ["PostgreSQL"])),
            ]),
        // The synthetic well lists with their answer keys: linked by the CLI (demo, generate), the
        // benchmarks and the tests, never by the library.
        .target(name: "WellKitSynthetic", dependencies: ["WellKit"]),
        // The commands of `wells`, as a library so that `wells-bench` and the tests share them.
        .target(
            name: "WellsCLI",
            dependencies: [
                "WellKit",
                "WellKitSynthetic",
                .target(name: "WellKitPostgreSQL", condition: .when(traits: ["PostgreSQL"])),
                .target(name: "WellsServer", condition: .when(traits: ["Server"])),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),
        // `wells serve`: OGC API – Features, vector tiles and the map page over HTTP, on Hummingbird,
        // with what only the server uses (tiles, the basemap's shapefile reader). Its own target, so
        // that the library never depends on an HTTP server.
        .target(
            name: "WellsServer",
            dependencies: [
                "WellKit",
                .product(name: "Hummingbird", package: "hummingbird", condition: .when(traits: ["Server"])),
                .product(name: "CompressNIO", package: "compress-nio", condition: .when(traits: ["Server"])),
                .product(name: "Prometheus", package: "swift-prometheus", condition: .when(traits: ["Server"])),
                .product(name: "Metrics", package: "swift-metrics", condition: .when(traits: ["Server"])),
                .product(name: "Logging", package: "swift-log", condition: .when(traits: ["Server"])),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: .when(traits: ["Server"])),
            ],
            // The map page's files, compiled into the binary (`PackageResources.map_html`, …): `wells`
            // stands alone, with nothing to find beside it at run time.
            resources: [.embedInCode("Resources/map.html"), .embedInCode("Resources/map.css"), .embedInCode("Resources/map.js")]),
        .executableTarget(name: "wells", dependencies: ["WellsCLI"]),
        // The one way the tests and wells-bench start a child process: swift-subprocess, and `wait4`
        // for the peak memory of a child wells-bench measures. Its own target because both use it.
        .target(name: "ProcessRunner", dependencies: [.product(name: "Subprocess", package: "swift-subprocess")]),
        // The benchmarks, with their probes: glibc's heap statistics and a counting malloc, which
        // only this executable links. No product: `swift run wells-bench` in this package only.
        .target(name: "CMemoryProbe"),
        .target(name: "CAllocationCounter"),
        // The thread sanitizer's annotations of the locks it cannot see (Swift's Mutex on Linux).
        .target(name: "CThreadSanitizer"),
        .executableTarget(
            name: "wells-bench",
            dependencies: [
                "WellsCLI",
                "WellsServer",
                "WellKit",
                "WellKitSynthetic",
                "CMemoryProbe",
                "CAllocationCounter",
                "ProcessRunner",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                // The PostgreSQL benchmark's floor: postgres-nio alone beside WellKit's engine and pgbench.
                .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["PostgreSQL"])),
            ]),
        // What the test targets share: temporary stores and files, the real lists, a throwaway
        // PostgreSQL cluster (PostGIS), `wells serve` in a child process, HTTP requests, the lanes
        // (`.lane(.slow)`, off with WELLS_FAST=1), and ProcessRunner (re-exported).
        .target(name: "WellsTestSupport", dependencies: ["WellKit", "WellKitPostgreSQL", "ProcessRunner"], path: "Tests/Support/Swift"),
        // The library, on store files; its oracle tests also run on PostgreSQL (the *PostGIS suites).
        .testTarget(
            name: "WellKitTests",
            dependencies: ["WellKit", "WellKitSynthetic", "WellsTestSupport", .product(name: "GRDB", package: "GRDB.swift")]),
        // The PostgreSQL engine against throwaway clusters: connections, pools, TLS, faults, replicas.
        .testTarget(
            name: "WellKitPostgreSQLTests",
            dependencies: ["WellKit", "WellKitPostgreSQL", "WellsTestSupport",
                           .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["PostgreSQL"]))]),
        // The server: in process (HummingbirdTesting), as `wells serve` in a child process, and its vector tiles.
        .testTarget(
            name: "WellsServerTests",
            dependencies: ["WellsServer", "WellKit", "WellKitSynthetic", "WellsTestSupport",
                           .product(name: "HummingbirdTesting", package: "hummingbird", condition: .when(traits: ["Server"])),
                           .product(name: "CompressNIO", package: "compress-nio", condition: .when(traits: ["Server"]))]),
        // A client of the public API alone, with Foundation and GRDB imported beside WellKit.
        .testTarget(
            name: "ClientTests",
            dependencies: ["WellKit", .product(name: "GRDB", package: "GRDB.swift")]),
        // The `wells` commands, as a library and as the built executable.
        .testTarget(
            name: "wellsTests",
            dependencies: ["WellsCLI", "wells-bench", "WellKit", "WellKitSynthetic", "WellsTestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
