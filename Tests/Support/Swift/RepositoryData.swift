import Foundation

/// The repository's own data, for the tests of both test targets.
package enum RepositoryData {
    /// The repository root, from this file's path (`Tests/Support/Swift/…`).
    package static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The path of a real well list in `Data/real` (copied with its provenance from the agencies' files).
    package static func realList(_ name: String) -> String {
        root.appendingPathComponent("Data/real/\(name)").path
    }
}
