// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "WellKit",
    platforms: [.macOS(.v13)],
    products: [
        .library(name: "WellKit", targets: ["WellKit"]),
        .executable(name: "wells", targets: ["wells"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
    ],
    targets: [
        .systemLibrary(
            name: "CSpatiaLite",
            providers: [.apt(["libspatialite-dev", "libsqlite3-mod-spatialite"])]),
        .systemLibrary(
            name: "CProj",
            providers: [.apt(["libproj-dev"])]),
        .target(name: "CMemoryProbe"),
        .target(
            name: "WellKit",
            dependencies: [
                "CMemoryProbe",
                "CSpatiaLite",
                "CProj",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]),
        .target(name: "CAllocationCounter"),
        .executableTarget(
            name: "wells",
            dependencies: [
                "WellKit",
                "CAllocationCounter",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),
        .testTarget(
            name: "WellKitTests",
            dependencies: ["WellKit", .product(name: "GRDB", package: "GRDB.swift")]),
        .testTarget(
            name: "wellsTests",
            dependencies: ["wells", "WellKit"]),
    ],
    swiftLanguageModes: [.v6]
)
