import Foundation

/// Runs `body` with a new empty directory under the system's temporary directory, and removes it after.
func withTemporaryDirectory<T>(_ prefix: String, _ body: (URL) throws -> T) throws -> T {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    return try body(directory)
}
