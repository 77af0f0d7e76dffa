import Dispatch
import Foundation

extension WellStore {
    // Loads of what an app holds rather than a path: a file URL, bytes in memory, an open file
    // handle, or bytes arriving (from URLSession or a socket). Each is the load of a path, with the
    // same inference, rejects and single transaction: bytes that are not a file yet are copied to a
    // temporary file first (a load maps its input and reads it several times, which a stream cannot
    // give), and the copy is removed afterwards. `name` stands for the input in the summary, in
    // messages and in the identifiers generated for wells without one: give the same name when a
    // list is loaded again, so that those identifiers stay the same. Its extension, if any, helps
    // tell a workbook or an archive from a CSV file, as a path's does.

    /// Loads the well list at a file URL: ``load(csvAt:options:rejects:)`` of its path.
    ///
    /// For example:
    ///
    /// ```swift
    /// let summary = try store.load(contentsOf: URL(fileURLWithPath: "wells.csv"))
    /// ```
    ///
    /// - Throws: ``ImportError`` `cannotOpen` for a URL that is not a file's: fetch it first, and load
    ///   its bytes with ``load(bytes:named:options:rejects:)``.
    public func load(contentsOf url: URL, options: LoadOptions = LoadOptions(),
                     rejects handler: ((_ rejects: RejectList) throws -> Void)? = nil) throws -> LoadSummary {
        try load(csvAt: try Self.filePath(of: url), options: options, rejects: handler)
    }

    /// Loads a well list held in memory, as a load of a file with those bytes.
    ///
    /// For example:
    ///
    /// ```swift
    /// let csv = Data("uwi,name,latitude,longitude\nW1,Well 1,51.05,-114.07\n".utf8)
    /// let summary = try store.load(data: csv, named: "wells.csv")
    /// ```
    ///
    /// The bytes are copied to a temporary file (in `TMPDIR`), which the load maps and reads;
    /// ``LoadOptions/spoolLimit`` bounds the copy.
    public func load(data: Data, named name: String = "data", options: LoadOptions = LoadOptions(),
                     rejects handler: ((_ rejects: RejectList) throws -> Void)? = nil) throws -> LoadSummary {
        try InputFile.withTemporaryFile(label: name) { spool in
            var copy = try InputFile.Spool(path: spool, label: name, limit: options.spoolLimit, describe: options.describeRemedy)
            try copy.append(data)
            copy.close()
            return try load(csvAt: spool, named: name, options: options, rejects: handler)
        }
    }

    /// Loads the well list an open file handle reads, from its current offset to its end: a file,
    /// a pipe or a socket.
    ///
    /// For example:
    ///
    /// ```swift
    /// let summary = try store.load(from: FileHandle.standardInput, named: "stdin")
    /// ```
    ///
    /// What the handle reads is copied to a temporary file first, up to ``LoadOptions/spoolLimit``
    /// (or 90% of the temporary folder's free space); the handle is left open.
    public func load(from handle: FileHandle, named name: String, options: LoadOptions = LoadOptions(),
                     rejects handler: ((_ rejects: RejectList) throws -> Void)? = nil) throws -> LoadSummary {
        try InputFile.withSpool(reading: handle, label: name, limit: options.spoolLimit, describe: options.describeRemedy) { spool in
            try load(csvAt: spool, named: name, options: options, rejects: handler)
        }
    }

    /// Loads a well list arriving as bytes, such as `URLSession`'s `bytes(from:)` or a file
    /// handle's `bytes`, without blocking the caller's thread.
    ///
    /// For example:
    ///
    /// ```swift
    /// let (bytes, _) = try await URLSession.shared.bytes(from: listURL)
    /// let summary = try await store.load(bytes: bytes, named: "wells.csv")
    /// ```
    ///
    /// The bytes are copied to a temporary file as they arrive, up to ``LoadOptions/spoolLimit``
    /// (or 90% of the temporary folder's free space); the load then runs on a thread of its own,
    /// outside Swift's cooperative pool, while the task waits. Cancelling the task while the bytes
    /// arrive stops the copy and throws `CancellationError`, with nothing loaded (a sequence that
    /// waits for its next byte must end that wait on cancellation, as `URLSession`'s bytes do); once
    /// the load has started, it runs to its end (or its failure) in its one transaction.
    public func load<Bytes: AsyncSequence>(bytes: Bytes, named name: String, options: LoadOptions = LoadOptions(),
                                           rejects handler: (@Sendable (_ rejects: RejectList) throws -> Void)? = nil)
        async throws -> LoadSummary where Bytes.Element == UInt8 {
        try await InputFile.withTemporaryFile(label: name) { spool in
            do {
                var copy = try InputFile.Spool(path: spool, label: name, limit: options.spoolLimit, describe: options.describeRemedy)
                var buffer: [UInt8] = []
                buffer.reserveCapacity(1 << 20)
                for try await byte in bytes {
                    buffer.append(byte)
                    if buffer.count == 1 << 20 {
                        try Task.checkCancellation()
                        try copy.append(buffer)
                        buffer.removeAll(keepingCapacity: true)
                    }
                }
                try Task.checkCancellation()
                try copy.append(buffer)
                copy.close()
            } catch let error as ImportError {
                throw error
            } catch let error as CancellationError {
                throw error
            } catch {
                throw ImportError(.cannotOpen, "cannot read the input into a temporary copy: \(error.localizedDescription)", file: name)
            }
            return try await Self.offThePool { [self] in try load(csvAt: spool, named: name, options: options, rejects: handler) }
        }
    }

    /// The path of a file URL.
    static func filePath(of url: URL) throws -> String {
        guard url.isFileURL else {
            throw ImportError(.cannotOpen, "is not a file URL; fetch it first (URLSession's bytes(from:)) and load the bytes "
                              + "with load(bytes:named:), or save it to a file", file: url.absoluteString)
        }
        return url.path
    }

    /// Runs `work`, which blocks on SQLite or the file, on a dispatch thread while the task waits
    /// without holding a thread of Swift's cooperative pool.
    static func offThePool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(with: Result { try work() }) }
        }
    }
}
