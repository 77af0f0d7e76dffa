// swift-tools-version:6.1
// An app's use of WellKit's results controller, built as a client builds it: Swift 6 language mode
// (strict concurrency), WellKit from this repository with `traits: []` (files only, no network
// library). CI builds and runs it under the thread sanitizer (`bash Examples/ResultsApp/run.sh`).
import PackageDescription

let package = Package(
    name: "ResultsApp",
    platforms: [.macOS(.v13)],
    dependencies: [.package(name: "WellKit", path: "../..", traits: [])],
    targets: [
        .executableTarget(name: "ResultsApp", dependencies: [.product(name: "WellKit", package: "WellKit")]),
    ])
