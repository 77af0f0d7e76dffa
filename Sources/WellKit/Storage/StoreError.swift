import Foundation

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
        /// The store's file is damaged (SQLite's "database disk image is malformed"): a page holds
        /// what its table or index cannot. ``Remedy/checkStore`` says what to do.
        case damaged
        /// A system library WellKit loads on first use (SpatiaLite, PROJ) is not installed.
        case missingLibrary
        /// A load would need more memory than the machine (or the process's limits) has free.
        case outOfMemory
        /// A PostgreSQL server cannot be reached: nothing listens there, or the host is unknown.
        case connectionFailed
        /// A PostgreSQL server refused the user or the password.
        case authenticationFailed
        /// The connection to a PostgreSQL server closed during the work; a load rolled back.
        case connectionLost
        /// A PostgreSQL database lacks an extension WellKit needs (PostGIS), and the user cannot create it.
        case missingExtension
        /// A PostgreSQL server failed a statement for a reason none of the other codes names.
        case serverError
        /// The store's engine does not do this (an SQLite-only maintenance command on a PostgreSQL store).
        case unsupported
    }

    /// How to fix the error, as data; ``message`` says it in the API's words.
    public enum Remedy: Sendable, Equatable {
        /// Create the store: open it with ``WellStore/OpenMode/create`` and load a file into it.
        case createStore
        /// Give a path to a new file, or to an existing WellKit store.
        case chooseStore
        /// Give a path to a new file: this one holds something else.
        case chooseNewFile
        /// Open the store for writing once, which migrates it to this schema version.
        case upgradeStore(toVersion: Int32)
        /// A newer WellKit knows the store's schema; this one knows up to `knowsUpTo`.
        case upgradeWellKit(knowsUpTo: Int32)
        /// A user who can write the store and its directory opens it for writing, which rolls
        /// back the journal of an interrupted load.
        case rollBackJournal
        /// Install the named system package (a Debian package name, such as libspatialite-dev).
        case installPackage(String)
        /// Check the store for damage (`wells check`, ``WellStore/check(quick:)``) and copy what can be
        /// read into a new store.
        case checkStore
        /// Run this SQL as a user allowed to, such as `CREATE EXTENSION postgis;` as a superuser.
        case runSQL(String)
    }

    /// The SQLite failure behind a store error, as plain values.
    public struct Cause: Sendable, Equatable {
        /// SQLite's primary result code, such as 13 for SQLITE_FULL.
        public var resultCode: Int32
        /// SQLite's extended result code.
        public var extendedResultCode: Int32
        /// SQLite's message.
        public var message: String?
        /// The statement SQLite was running.
        public var sql: String?

        public init(resultCode: Int32, extendedResultCode: Int32, message: String?, sql: String?) {
            self.resultCode = resultCode
            self.extendedResultCode = extendedResultCode
            self.message = message
            self.sql = sql
        }
    }

    public let code: Code
    /// What went wrong, without the remedy.
    public let reason: String
    /// The store file, when the error concerns one.
    public var path: String?
    /// How to fix it, when WellKit knows.
    public var remedy: Remedy?
    /// The SQLite failure behind the error, when there is one.
    public var cause: Cause?
    /// The store's schema version, for ``Code/newerSchema`` and ``Code/olderSchema``.
    public var schemaVersion: Int32?
    /// The system library that could not be loaded, for ``Code/missingLibrary``, such as "SpatiaLite".
    public var library: String?

    public init(_ code: Code, _ reason: String, schemaVersion: Int32? = nil, remedy: Remedy? = nil, cause: Cause? = nil,
                library: String? = nil, path: String? = nil) {
        self.code = code
        self.reason = reason
        self.path = path
        self.schemaVersion = schemaVersion
        self.remedy = remedy
        self.cause = cause
        self.library = library
    }

    /// The reason and, when there is one, the remedy in the API's words.
    public var message: String {
        guard let remedy else { return reason }
        return reason + "; " + remedy.advice
    }

    public var description: String {
        if let path { return "\(path): \(message)" }
        return message
    }
}

/// Foundation's `localizedDescription` (which `NSError` bridging reads) says what ``StoreError/description``
/// says, never `The operation could not be completed. (WellKit.StoreError error 1.)`.
extension StoreError: LocalizedError {
    public var errorDescription: String? { description }
}

extension StoreError.Remedy {
    /// The remedy in the API's words.
    var advice: String {
        switch self {
        case .createStore: "create one with WellStore(path:mode: .create) and load a file into it"
        case .chooseStore: "give a path to a new file or an existing WellKit store"
        case .chooseNewFile: "choose a new file for the store"
        case .upgradeStore(let version): "open it for writing (mode .create or .existing) and call upgrade() to upgrade it to version \(version)"
        case .upgradeWellKit: "upgrade WellKit to open it"
        case .rollBackJournal: "open it for writing as that user to roll it back"
        case .installPackage(let package): "install \(package)"
        case .checkStore: "nothing was changed; see what is damaged with `wells check` (WellStore.check()), "
            + "then copy what SQLite can read into a new file (sqlite3 STORE .recover | sqlite3 NEW.sqlite) or load the source lists again"
        case .runSQL(let sql): "run \(sql) as a user allowed to (a superuser or the database's owner), then try again"
        }
    }
}

extension StoreError.Code {
    /// Lets `catch StoreError.Code.notAWellStore` match a thrown ``StoreError``.
    public static func ~= (code: Self, error: any Error) -> Bool {
        (error as? StoreError)?.code == code
    }
}
