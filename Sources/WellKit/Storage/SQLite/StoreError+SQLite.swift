import Foundation
import GRDB

extension StoreError.Cause {
    /// GRDB's error as plain values.
    init(_ error: DatabaseError) {
        self.init(resultCode: error.resultCode.rawValue, extendedResultCode: error.extendedResultCode.rawValue,
                  message: error.message, sql: error.sql)
    }
}

extension StoreError {
    /// The store error for an SQLite failure on the file at `path`, in words a user can act on;
    /// nil when the failure is not about the file (a constraint, a misuse), which stays as it is.
    init?(sqlite error: DatabaseError, path: String) {
        switch error.resultCode {
        case .SQLITE_FULL:
            self.init(.diskFull, "the disk is full (SQLite error 13 while \(Self.doing(error))); nothing was changed; free some space and run the command again", cause: Cause(error), path: path)
        case .SQLITE_READONLY:
            self.init(.readOnly, "cannot write the store: the file or its directory is read-only (\(error.message ?? "SQLITE_READONLY")); "
                        + "queries still work, loads need a writable file and directory", cause: Cause(error), path: path)
        case .SQLITE_BUSY, .SQLITE_LOCKED:
            self.init(.busy, "another process is writing to the store (it stayed locked for \(Int(WellStore.busyTimeout)) s); "
                        + "run the command again when it has finished", cause: Cause(error), path: path)
        case .SQLITE_CORRUPT:
            self.init(.damaged, "the store is damaged: \(error.message ?? "database disk image is malformed") (SQLite error 11 while \(Self.doing(error)))",
                      remedy: .checkStore, cause: Cause(error), path: path)
        case .SQLITE_IOERR, .SQLITE_CANTOPEN, .SQLITE_PERM:
            self.init(.ioError, "cannot read or write the store: \(error.message ?? "\(error.resultCode)") (SQLite error \(error.resultCode.rawValue) while \(Self.doing(error)))", cause: Cause(error), path: path)
        default:
            return nil
        }
    }

    /// What SQLite was running, shortened: "COMMIT TRANSACTION", "INSERT INTO pins …".
    private static func doing(_ error: DatabaseError) -> String {
        guard let sql = error.sql?.trimmingCharacters(in: .whitespacesAndNewlines), !sql.isEmpty else { return "writing" }
        let line = sql.prefix { $0 != "\n" }
        return "executing `" + (line.count > 60 ? line.prefix(60) + "…" : line) + "`"
    }

    /// Runs `body`, turning SQLite's errors about the file at `path` into ``StoreError``s.
    package static func translating<T>(path: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as DatabaseError {
            throw StoreError(sqlite: error, path: path) ?? error
        }
    }

    /// ``translating(path:_:)`` for an asynchronous `body`.
    package static func translating<T>(path: String, _ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as DatabaseError {
            throw StoreError(sqlite: error, path: path) ?? error
        }
    }
}
