import Foundation

/// A deterministic synthetic Alberta-like well list, written as RFC 4180 CSV.
///
/// The file has a header line and `count` data rows with the 20 ``header`` columns, LF line
/// endings, and fields quoted only when they contain a comma, a double quote, CR or LF.
///
/// - About 90% of wells cluster in ~200 gaussian fields, 10% are uniform noise inside
///   lat 49...60, lon -120...-110; coordinates have 6 decimals.
/// - `uwi` is a Dominion Land Survey identifier derived from the coordinates
///   (e.g. `100/06-12-034-05W4/00`); repeated locations take the next location exception,
///   then the next event sequence, so every `uwi` is unique.
/// - About 2,000 licensees with zipf-like popularity, some with commas; well names of 15...40
///   characters, about 4% with a comma and 0.2% with an embedded double quote.
/// - ISO dates with licence <= spud <= final drill; spud and final drill blank for `Issued`.
///
/// The output depends only on `count`, `seed` and `dirty`: the generator uses its own
/// xoshiro256** stream and platform-independent maths and number formatting, so the same
/// arguments give the same bytes on every run and machine. Output is streamed in chunks of
/// at most ``chunkSize`` bytes; memory does not grow with `count` (a fixed table,
/// ``UWIAllocator``, tracks used `uwi`s per DLS location).
///
/// With `dirty`, about 1% of rows are corrupted (see ``DirtyKind``) and the last row opens a
/// quoted field that is never closed; ``write(to:)`` returns what was injected.
public struct WellGenerator: Sendable {
    /// The column names, in file order.
    public static let header = [
        "uwi", "well_name", "surface_latitude", "surface_longitude", "licence_number",
        "licensee", "field_name", "formation", "status", "fluid", "mode", "well_type",
        "province", "licence_date", "spud_date", "final_drill_date", "total_depth_m",
        "ground_elevation_m", "kb_elevation_m", "confidential",
    ]

    /// The number of wells in the list that inspired the project.
    public static let defaultCount = 244_292

    /// The largest chunk handed to a sink.
    public static let chunkSize = 256 * 1024

    /// Number of data rows.
    public let count: Int
    /// Seed of the pseudo-random stream.
    public let seed: UInt64
    /// Whether about 1% of rows are corrupted on purpose.
    public let dirty: Bool

    /// Describes a list of `count` rows (at least 1) drawn from `seed`, corrupted when `dirty`.
    public init(count: Int = WellGenerator.defaultCount, seed: UInt64 = 1, dirty: Bool = false) {
        precondition(count >= 1, "WellGenerator needs at least one row, got \(count)")
        self.count = count
        self.seed = seed
        self.dirty = dirty
    }

    /// Streams the CSV file to `sink` in chunks of at most ``chunkSize`` bytes, header first.
    ///
    /// Each buffer is valid only during the call that receives it.
    /// - Returns: What dirty mode injected (an empty report for a clean file).
    @discardableResult
    public func write(to sink: (UnsafeRawBufferPointer) throws -> Void) rethrows -> DirtyReport {
        let flushThreshold = WellGenerator.chunkSize - 4096 // no record comes near 4 KiB
        var out = CSVOutput(capacity: WellGenerator.chunkSize)
        out.appendRecord(WellGenerator.header.map { Array($0.utf8) })
        var synthesizer = RowSynthesizer(count: count, seed: seed)
        var injector = dirty ? DirtyInjector(count: count, seed: seed) : nil
        for index in 0..<count {
            synthesizer.writeRow(to: &out)
            injector?.process(&out, index: index, count: count)
            if out.count >= flushThreshold {
                try out.withUnsafeBytes { try sink($0) }
                out.removeAll()
            }
        }
        if out.count > 0 {
            try out.withUnsafeBytes { try sink($0) }
        }
        return injector?.report ?? DirtyReport()
    }

    /// Writes the CSV file to `path`, replacing any existing file.
    @discardableResult
    public func write(toFileAt path: String) throws -> DirtyReport {
        guard FileManager.default.createFile(atPath: path, contents: nil) else {
            throw WellGeneratorError.cannotCreateFile(path: path)
        }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        return try write(to: handle)
    }

    /// Writes the CSV file to standard output.
    @discardableResult
    public func writeToStandardOutput() throws -> DirtyReport {
        try write(to: FileHandle.standardOutput)
    }

    private func write(to handle: FileHandle) throws -> DirtyReport {
        try write { chunk in
            guard let base = chunk.baseAddress else { return }
            let data = Data(bytesNoCopy: UnsafeMutableRawPointer(mutating: base), count: chunk.count, deallocator: .none)
            try handle.write(contentsOf: data)
        }
    }
}

// MARK: - WellGeneratorError

/// Failures of ``WellGenerator`` file output.
public enum WellGeneratorError: Error, Equatable, CustomStringConvertible {
    /// The output file could not be created or truncated.
    case cannotCreateFile(path: String)

    /// A one-line explanation.
    public var description: String {
        switch self {
        case .cannotCreateFile(let path): "cannot create output file '\(path)'"
        }
    }
}
