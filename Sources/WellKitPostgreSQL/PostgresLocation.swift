import WellKit
import Foundation

/// Where a PostgreSQL store is: a `postgresql://` (or `postgres://`) URL, as libpq reads it.
///
/// For example `postgresql://wells@localhost:5432/wells`, or for a Unix socket
/// `postgresql://wells@/wells?host=/var/run/postgresql`. A missing user is `$PGUSER` or the
/// login name, a missing database the user's name, a missing password `$PGPASSWORD` or the
/// password file's (``passwordFromFile(_:)``).
///
/// TLS follows libpq's `sslmode` (``TLSMode``), with `sslrootcert`, `sslcert` and `sslkey` (or
/// `$PGSSLMODE`, `$PGSSLROOTCERT`, `$PGSSLCERT`, `$PGSSLKEY`, and libpq's files in `~/.postgresql`).
///
/// `max_connections` bounds the store's connection pool (``maximumConnections``), a WellKit
/// parameter that libpq does not have.
///
/// Its ``description`` never holds the password: it is what errors, the SQL log and the
/// `loads` table name the store by.
struct PostgresLocation: Sendable, Equatable, CustomStringConvertible {
    /// libpq's `sslmode`: whether the connection is encrypted, and what of the server's certificate is checked.
    /// Ignored on a Unix socket, as libpq does.
    enum TLSMode: String, Sendable, CaseIterable {
        /// No TLS.
        case disable
        /// Without TLS, or with it (unverified) if the server refuses a connection without.
        case allow
        /// With TLS (unverified) if the server offers it, else without: libpq's default.
        case prefer
        /// TLS or no connection; the certificate is verified as by `verify-ca` when a root certificate is given or in `~/.postgresql/root.crt`.
        case require
        /// TLS, and the server's certificate signed by a trusted root (`sslrootcert`).
        case verifyCA = "verify-ca"
        /// As `verify-ca`, and the certificate names the host the URL connects to.
        case verifyFull = "verify-full"
    }

    /// The parameters a URL may have.
    static let parameters = ["host", "port", "user", "password", "dbname", "application_name", "connect_timeout",
                             "sslmode", "sslrootcert", "sslcert", "sslkey", "max_connections"]

    /// A TCP host name or address; nil with ``socketDirectory``.
    var host: String?
    /// The directory of the server's Unix socket, from `?host=/dir`.
    var socketDirectory: String?
    var port: Int
    var user: String
    var password: String?
    var database: String
    /// What `pg_stat_activity` shows for the store's sessions: `application_name` (or `$PGAPPNAME`), else `WellKit`.
    var applicationName: String
    var tlsMode: TLSMode
    /// How long a connection may take: `connect_timeout` (or `$PGCONNECT_TIMEOUT`) seconds, 10 by
    /// default; nil for `connect_timeout=0`, no limit.
    var connectTimeout: Duration?
    /// The trusted roots (PEM) for `verify-ca` and `verify-full`, or `system` for the system's.
    var rootCertificate: String?
    /// A client certificate (PEM) and its key, for servers that authenticate by certificate.
    var clientCertificate: String?
    var clientKey: String?
    /// The most connections the store's pool opens at once: `max_connections`, 8 by default.
    /// Calls beyond it wait for a connection to be returned.
    var maximumConnections: Int

    /// Whether `text` names a PostgreSQL store rather than a file.
    static func isURL(_ text: String) -> Bool {
        text.hasPrefix("postgresql://") || text.hasPrefix("postgres://")
    }

    init(url text: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        guard Self.isURL(text), let components = URLComponents(string: text) else {
            throw StoreError(.invalidArgument, "not a PostgreSQL URL; give one such as postgresql://user@localhost:5432/wells",
                             path: Self.redacted(text))
        }
        let query = Dictionary((components.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { $1 })
        for name in query.keys where !Self.parameters.contains(name) {
            throw StoreError(.invalidArgument, "the URL has a parameter \(name) that WellKit does not know; "
                                + "use \(Self.parameters.joined(separator: ", "))", path: Self.redacted(text))
        }
        applicationName = query["application_name"] ?? environment["PGAPPNAME"] ?? "WellKit"
        // libpq's files in ~/.postgresql stand in for parameters not given, when they exist.
        let home = environment["HOME"]
        func file(_ parameter: String, _ variable: String, _ name: String) -> String? {
            if let given = query[parameter] ?? environment[variable], !given.isEmpty { return given }
            return home.map { $0 + "/.postgresql/" + name }.flatMap { FileManager.default.fileExists(atPath: $0) ? $0 : nil }
        }
        rootCertificate = file("sslrootcert", "PGSSLROOTCERT", "root.crt")
        clientCertificate = file("sslcert", "PGSSLCERT", "postgresql.crt")
        clientKey = file("sslkey", "PGSSLKEY", "postgresql.key")
        // As libpq 16: the system's authorities vouch for any host they signed, so they check the name too.
        let system = rootCertificate == "system"
        let mode = query["sslmode"] ?? environment["PGSSLMODE"] ?? (system ? TLSMode.verifyFull : .prefer).rawValue
        guard let tlsMode = TLSMode(rawValue: mode) else {
            throw StoreError(.invalidArgument, "sslmode=\(mode) is not one of \(TLSMode.allCases.map(\.rawValue).joined(separator: ", "))",
                             path: Self.redacted(text))
        }
        if system && tlsMode != .verifyFull {
            throw StoreError(.invalidArgument, "sslmode=\(mode) may not be used with sslrootcert=system, which trusts every authority the system does; "
                                + "use sslmode=verify-full (the default with it)", path: Self.redacted(text))
        }
        self.tlsMode = tlsMode
        guard let timeout = Int(query["connect_timeout"] ?? environment["PGCONNECT_TIMEOUT"] ?? "10"), timeout >= 0 else {
            throw StoreError(.invalidArgument, "connect_timeout must be a whole number of seconds (0 waits without limit)", path: Self.redacted(text))
        }
        guard let maximum = Int(query["max_connections"] ?? "8"), (1...1_000).contains(maximum) else {
            throw StoreError(.invalidArgument, "max_connections must be a whole number from 1 to 1000 (the store's pool opens at most that many connections; 8 by default)",
                             path: Self.redacted(text))
        }
        maximumConnections = maximum
        // libpq takes anything under 2 seconds as 2.
        connectTimeout = timeout == 0 ? nil : .seconds(max(timeout, 2))
        // libpq's order: the URL's host, then $PGHOST, then the Unix socket in /var/run/postgresql
        // (Debian's directory); a host that starts with / is a socket directory.
        let urlHost = components.percentEncodedHost.flatMap { $0.removingPercentEncoding }.flatMap { $0.isEmpty ? nil : $0 }
        let server = query["host"] ?? urlHost ?? environment["PGHOST"] ?? "/var/run/postgresql"
        if server.hasPrefix("/") { socketDirectory = server } else { host = server }
        guard let port = Int(query["port"] ?? components.port.map(String.init) ?? environment["PGPORT"] ?? "5432"), (1...65535).contains(port) else {
            throw StoreError(.invalidArgument, "the URL's port is not a number from 1 to 65535", path: Self.redacted(text))
        }
        self.port = port
        user = query["user"] ?? components.user.flatMap { $0.removingPercentEncoding }.flatMap { $0.isEmpty ? nil : $0 }
            ?? environment["PGUSER"] ?? NSUserName()
        password = query["password"] ?? components.password.flatMap { $0.removingPercentEncoding } ?? environment["PGPASSWORD"]
        let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        database = query["dbname"] ?? (path.isEmpty ? nil : path.removingPercentEncoding) ?? environment["PGDATABASE"] ?? user
        if password == nil, let file = environment["PGPASSFILE"] ?? home.map({ $0 + "/.pgpass" }) {
            password = passwordFromFile(file)
        }
    }

    /// The password for this location in a password file as libpq reads it (`~/.pgpass`, or
    /// `$PGPASSFILE`): the first line `host:port:database:user:password` whose first four fields
    /// match, `*` matching anything and `\` escaping `:` and itself; a Unix socket matches
    /// `localhost` or its directory. As libpq, a file that its group or others may read is ignored.
    func passwordFromFile(_ path: String) -> String? {
        var status = stat()
        guard stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG, status.st_mode & 0o077 == 0,
              let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        let hosts = socketDirectory.map { ["localhost", $0] } ?? [host!]
        for line in text.split(whereSeparator: \.isNewline) where !line.hasPrefix("#") {
            var fields: [String] = [""], escaped = false
            for character in line {
                if escaped { fields[fields.count - 1].append(character); escaped = false }
                else if character == "\\" { escaped = true }
                else if character == ":" && fields.count < 5 { fields.append("") }
                else { fields[fields.count - 1].append(character) }
            }
            guard fields.count == 5 else { continue }
            func matches(_ field: String, _ values: [String]) -> Bool { field == "*" || values.contains(field) }
            if matches(fields[0], hosts) && matches(fields[1], [String(port)]) && matches(fields[2], [database]) && matches(fields[3], [user]) {
                return fields[4]
            }
        }
        return nil
    }

    /// The URL without its password: `postgresql://wells@127.0.0.1:5432/wells`.
    var description: String {
        if let socketDirectory {
            return "postgresql://\(user)@/\(database)?host=\(socketDirectory)"
        }
        let shownHost = host!.contains(":") ? "[\(host!)]" : host!
        return "postgresql://\(user)@\(shownHost):\(port)/\(database)"
    }

    /// Where the server is, for a connection error: `127.0.0.1:5432` or the socket's path.
    var server: String {
        if let socketDirectory { return "the Unix socket \(socketPath(socketDirectory))" }
        return "\(host!):\(port)"
    }

    /// `dir/.s.PGSQL.port`, the socket's file.
    func socketPath(_ directory: String) -> String { "\(directory)/.s.PGSQL.\(port)" }

    /// `text` with any password replaced, for a message about a URL that did not parse.
    static func redacted(_ text: String) -> String { StoreEngines.redacted(text) }
}
