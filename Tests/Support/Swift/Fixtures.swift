import Foundation
import Testing
import WellKit

/// Temporary files and stores for tests, and the shared real well lists.
package enum Fixtures {
    /// This test process's directory for temporary files, removed when the process exits.
    private static let root: URL = {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("wellkit-tests-\(getpid())")
        try? FileManager.default.removeItem(at: url)
        atexit { try? FileManager.default.removeItem(at: Fixtures.root) }
        return url
    }()

    /// A new empty directory under this process's temporary directory.
    package static func temporaryDirectory() throws -> URL {
        let url = root.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// A path for a new store file in a new temporary directory.
    package static func storePath() throws -> String {
        try temporaryDirectory().appendingPathComponent("wells.sqlite").path
    }

    /// A new store in a temporary file, like GRDB's `makeDatabaseQueue()`.
    package static func makeStore() throws -> WellStore {
        try WellStore(path: storePath())
    }

    /// Writes `text` to a new temporary file and returns its path.
    package static func file(_ text: String, name: String = "wells.csv") throws -> String {
        let url = try temporaryDirectory().appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url.path
    }

    /// The records of a delimited file, its header first, each split into fields by the loader's reader.
    package static func records(ofFileAt path: String) throws -> [[String]] {
        let reader = try CSVReader(bytes: Array(try Data(contentsOf: URL(fileURLWithPath: path))))
        var records: [[String]] = []
        while let record = try reader.next() { records.append(record.fields) }
        return records
    }

    /// The repository root.
    package static var repositoryRoot: URL { RepositoryData.root }

    /// The path of a real well list in `Data/real`; records an issue if it is missing.
    package static func sharedData(_ name: String) -> String {
        let path = RepositoryData.realList(name)
        if !FileManager.default.fileExists(atPath: path) { Issue.record("missing \(path): the real well lists are kept in Data/real") }
        return path
    }

    /// Counts the data records of a delimited file with an independent, naive RFC 4180 scan.
    package static func naiveRecordCount(_ path: String) throws -> Int {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        var records = 0, inQuotes = false, fieldChars = false
        for byte in bytes {
            if byte == UInt8(ascii: "\"") { inQuotes.toggle(); fieldChars = true }
            else if byte == 0x0A && !inQuotes { if fieldChars { records += 1 }; fieldChars = false }
            else if byte != 0x0D { fieldChars = true }
        }
        if fieldChars { records += 1 }
        return records - 1  // the header
    }
}
