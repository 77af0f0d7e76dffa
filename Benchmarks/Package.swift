// swift-tools-version:6.1
import PackageDescription

// Regression tracking of WellKit's time and malloc counts with ordo-one/benchmark.
// Not part of the default CI run: `swift package --package-path Benchmarks benchmark`.
let package = Package(
    name: "WellKitBenchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "WellKit", path: "../"),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        .executableTarget(
            name: "WellKitBenchmarks",
            dependencies: [
                .product(name: "WellKit", package: "WellKit"),
                .product(name: "WellKitSynthetic", package: "WellKit"),
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/WellKitBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ]
)
