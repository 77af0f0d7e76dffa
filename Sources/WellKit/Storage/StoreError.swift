/// An error from opening, migrating or writing a ``WellStore``.
///
/// Match on the code:
///
/// ```swift
/// do { _ = try WellStore(path: "notes.txt") }
/// catch let error as StoreError where error.code == .notAWellStore { print(error) }
/// ```
public struct StoreError: Error, CustomStringConvertible, Sendable {
    /// What went wrong, in a form that `switch` can match.
    public enum Code: String, Sendable {
        case notADatabase
        case notAWellStore
        case newerSchema
        case olderSchema
        case spatiaLite
        case notFound
        case invalidArgument
        /// The disk (or the file system's quota) is full.
        case diskFull
        /// The file or its directory cannot be written.
        case readOnly
        /// Another process holds the store's write lock for longer than the busy timeout.
        case busy
        /// The operating system failed to read or write the file.
        case ioError
    }

    public let code: Code
    public let message: String
    /// The store file, when the error concerns one.
    public var path: String?

    public init(_ code: Code, _ message: String, path: String? = nil) {
        self.code = code
        self.message = message
        self.path = path
    }

    public var description: String {
        if let path { return "\(path): \(message)" }
        return message
    }
}

extension StoreError.Code {
    /// Lets `catch StoreError.Code.notAWellStore` match a thrown ``StoreError``.
    public static func ~= (code: Self, error: any Error) -> Bool {
        (error as? StoreError)?.code == code
    }
}
