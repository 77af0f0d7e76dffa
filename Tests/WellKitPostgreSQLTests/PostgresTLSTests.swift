import Foundation
import Testing
import WellsTestSupport
@testable import WellKit
@testable import WellKitPostgreSQL

/// TLS to PostgreSQL (`sslmode`, `sslrootcert`, `sslcert`, `sslkey`), against a cluster of its own
/// that refuses connections without TLS (`pg-cluster.sh tls DIR required`): which modes connect
/// and are encrypted (as the server's `pg_stat_ssl` sees them), the certificate and name checks,
/// a client certificate, and the errors.
@Suite(.serialized, .lane(.postgres), .blocking) struct PostgresTLSTests {
    /// The TLS cluster: its URL prefix (`postgresql://wells@127.0.0.1:PORT`) and its certificates' folder.
    static let cluster: Result<(server: String, port: String, tls: String), PostGISUnavailable> = {
        let directory = "/tmp/wellkit-pg-tls-\(getpid())"
        let url: String
        switch PostGIS.startCluster(in: directory) {
        case .success(let started): url = started
        case .failure(let error): return .failure(error)
        }
        let (tlsStatus, tlsOut, tlsErr) = PostGIS.run(["bash", PostGIS.script, "tls", directory, "required"])
        guard tlsStatus == 0, let tls = tlsOut.split(separator: "\n").last.map(String.init) else {
            return .failure(PostGISUnavailable(reason: "pg-cluster.sh tls failed (\(tlsStatus)): \(tlsErr.suffix(2000))"))
        }
        let server = String(url[..<url.lastIndex(of: "/")!])
        return .success((server, String(server[server.index(after: server.lastIndex(of: ":")!)...]), tls))
    }()

    /// A new database with PostGIS on the TLS cluster; its name.
    private func makeDatabase() throws -> String {
        let name = "tls_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(16)
        try psql("CREATE DATABASE \(name) TEMPLATE wellkit_template")
        return String(name)
    }

    /// psql on the TLS cluster (over TLS, as it must be), as the superuser wells.
    @discardableResult
    private func psql(_ sql: String, database: String = "wells") throws -> String {
        let (status, out, err) = PostGIS.run(["psql", try Self.cluster.get().server + "/\(database)?sslmode=require", "-v", "ON_ERROR_STOP=1", "-At", "-c", sql])
        guard status == 0 else { throw PostGISUnavailable(reason: "psql failed: \(err)") }
        return out.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The TLS of the other sessions on `database`, as the server reports them: one "t" or "f" per
    /// connection (a store's closed connections may linger a moment, so the tests compare them as a set).
    private func sessions(_ database: String) throws -> [String] {
        try psql("SELECT s.ssl FROM pg_stat_ssl s JOIN pg_stat_activity a USING (pid) WHERE a.datname = '\(database)' AND a.pid <> pg_backend_pid() ORDER BY 1")
            .split(separator: "\n").map(String.init)
    }

    private func url(host: String = "127.0.0.1", user: String = "wells", _ database: String, _ parameters: String) throws -> String {
        let cluster = try Self.cluster.get()
        return "postgresql://\(user)@\(host):\(cluster.port)/\(database)?\(parameters)"
    }

    private func tls(_ name: String) throws -> String { try Self.cluster.get().tls + "/" + name }

    @Test func eachModeThatConnectsIsEncryptedAndLoadsAndQueries() throws {
        let database = try makeDatabase()
        let csv = try Fixtures.file("uwi,name,lat,lon\nA,One,50,-114\nB,Two,51,-115\nC,Three,52,-116\n")
        // verify-full by a name the certificate has; a load (COPY) and a query over TLS.
        let verified = try WellStore(path: try url(host: "localhost", database, "sslmode=verify-full&sslrootcert=\(try tls("ca.crt"))"))
        #expect(try verified.load(csvAt: csv).inserted == 3)
        #expect(try verified.fetchIDs(WellFetchRequest(region: .box(try BoundingBox(parsing: "-114.5,49.5,-113.5,51.5")))).count == 1)
        #expect(Set(try sessions(database)) == ["t"])
        try verified.close()
        // Every other mode that may connect to a server that refuses plain connections: over TLS,
        // the default (prefer) included, and `allow` after the server refused it without.
        for parameters in ["", "sslmode=prefer", "sslmode=allow", "sslmode=require",
                           "sslmode=verify-ca&sslrootcert=\(try tls("ca.crt"))", "sslmode=require&sslrootcert=\(try tls("ca.crt"))"] {
            let store = try WellStore(path: try url(database, parameters), mode: .readOnly)
            #expect(try store.fetchCount(WellFetchRequest()) == 3, "\(parameters)")
            #expect(Set(try sessions(database)) == ["t"], "\(parameters)")
            try store.close()
        }
    }

    @Test func theServersCertificateIsChecked() throws {
        let database = try makeDatabase()
        // The certificate names localhost only: verify-full to 127.0.0.1 fails the name check.
        do {
            _ = try WellStore(path: try url(database, "sslmode=verify-full&sslrootcert=\(try tls("ca.crt"))"))
            Issue.record("verify-full accepted a certificate that does not name 127.0.0.1")
        } catch let error as StoreError {
            #expect(error.code == .connectionFailed)
            #expect(error.message.contains("does not name 127.0.0.1") && error.message.contains("verify-ca"), "\(error.message)")
        }
        // Signed by another CA than the one given: both verifying modes fail, and so does require with a root certificate.
        for parameters in ["sslmode=verify-full", "sslmode=verify-ca", "sslmode=require"] {
            do {
                _ = try WellStore(path: try url(host: "localhost", database, "\(parameters)&sslrootcert=\(try tls("other-ca.crt"))"))
                Issue.record("\(parameters) accepted a certificate that other-ca.crt did not sign")
            } catch let error as StoreError {
                #expect(error.code == .connectionFailed, "\(parameters)")
                #expect(error.message.contains("not signed by a root in sslrootcert"), "\(parameters): \(error.message)")
            }
        }
        // A verifying mode without a root certificate, or with one that is not there, is refused before connecting.
        for (parameters, says) in [("sslmode=verify-full", "add sslrootcert="), ("sslmode=verify-ca&sslrootcert=/nonexistent/ca.crt", "does not exist")] {
            do {
                _ = try WellStore(path: try url(database, parameters))
                Issue.record("\(parameters) connected")
            } catch let error as StoreError {
                #expect(error.code == .invalidArgument && error.message.contains(says), "\(parameters): \(error.message)")
            }
        }
    }

    @Test func aClientCertificateLogsIn() throws {
        let database = try makeDatabase()
        let base = "sslmode=verify-full&sslrootcert=\(try tls("ca.crt"))"
        let owner = try WellStore(path: try url(host: "localhost", database, base))
        #expect(try owner.load(csvAt: try Fixtures.file("uwi,name,lat,lon\nA,One,50,-114\nB,Two,51,-115\n")).inserted == 2)
        try owner.close()
        try psql("GRANT CONNECT ON DATABASE \(database) TO wells_cert; GRANT SELECT ON ALL TABLES IN SCHEMA public TO wells_cert", database: database)
        // wells_cert may log in with its certificate only (pg_hba `cert`).
        let reader = try WellStore(path: try url(host: "localhost", user: "wells_cert", database,
                                                 base + "&sslcert=\(try tls("client.crt"))&sslkey=\(try tls("client.key"))"), mode: .readOnly)
        #expect(try reader.fetchCount(WellFetchRequest()) == 2)
        #expect(Set(try sessions(database)) == ["t"])
        try reader.close()
        do {
            _ = try WellStore(path: try url(host: "localhost", user: "wells_cert", database, base))
            Issue.record("wells_cert logged in without its certificate")
        } catch let error as StoreError {
            #expect(error.code == .authenticationFailed, "\(error.message)")
        }
        // allow: refused without TLS, then without the certificate: both reasons are told.
        do {
            _ = try WellStore(path: try url(user: "wells_cert", database, "sslmode=allow"))
            Issue.record("wells_cert logged in without its certificate")
        } catch let error as StoreError {
            #expect(error.code == .authenticationFailed, "\(error.message)")
            #expect(error.message.contains("no encryption") && error.message.contains("with TLS") && error.message.contains("certificate"), "\(error.message)")
        }
        do {
            _ = try WellStore(path: try url(host: "localhost", user: "wells_cert", database, base + "&sslcert=\(try tls("client.crt"))"))
            Issue.record("a client certificate without its key was used")
        } catch let error as StoreError {
            #expect(error.code == .invalidArgument && error.message.contains("sslkey"), "\(error.message)")
        }
    }

    @Test func withoutTLSTheServerRefusesAndAServerWithoutTLSIsNamed() throws {
        let database = try makeDatabase()
        do {
            _ = try WellStore(path: try url(database, "sslmode=disable"))
            Issue.record("a plain connection was accepted by a server that refuses them")
        } catch let error as StoreError {
            #expect(error.code == .authenticationFailed, "\(error.message)")
            #expect(error.message.contains("no encryption"), "\(error.message)")
        }
        // The other test cluster has TLS off: require says so, and prefer connects without.
        let plain = try PostGIS.makeDatabase()
        do {
            _ = try WellStore(path: plain + "?sslmode=require")
            Issue.record("sslmode=require connected to a server without TLS")
        } catch let error as StoreError {
            #expect(error.code == .connectionFailed)
            #expect(error.message.contains("does not accept TLS") && error.message.contains("sslmode=prefer"), "\(error.message)")
        }
        let store = try WellStore(path: plain + "?sslmode=prefer")
        #expect(try store.fetchCount(WellFetchRequest()) == 0)
    }

    @Test func urlParametersAreReadAsLibpqReadsThem() throws {
        do {
            _ = try PostgresLocation(url: "postgresql://wells@127.0.0.1:5432/wells?sslmode=required")
            Issue.record("sslmode=required was accepted")
        } catch let error as StoreError {
            #expect(error.code == .invalidArgument && error.message.contains("sslmode=required is not one of disable, allow, prefer, require, verify-ca, verify-full"))
        }
        // The environment's libpq variables apply when the URL says nothing.
        let location = try PostgresLocation(url: "postgresql://wells@127.0.0.1:5432/wells",
                                            environment: ["PGSSLMODE": "verify-ca", "PGSSLROOTCERT": "/etc/ca.crt", "HOME": "/nonexistent"])
        #expect(location.tlsMode == .verifyCA && location.rootCertificate == "/etc/ca.crt" && location.clientCertificate == nil)
        #expect(try PostgresLocation(url: "postgresql://wells@127.0.0.1/wells?sslmode=disable", environment: ["PGSSLMODE": "require"]).tlsMode == .disable)
        #expect(try PostgresLocation(url: "postgresql://wells@127.0.0.1/wells", environment: ["HOME": "/nonexistent"]).tlsMode == .prefer)
        // The system's authorities check the name too (libpq 16): verify-full by default, and nothing weaker.
        #expect(try PostgresLocation(url: "postgresql://wells@db.example.org/wells?sslrootcert=system", environment: [:]).tlsMode == .verifyFull)
        #expect { _ = try PostgresLocation(url: "postgresql://wells@db.example.org/wells?sslrootcert=system&sslmode=require", environment: [:]) } throws: {
            ($0 as? StoreError)?.code == .invalidArgument && ($0 as? StoreError)?.message.contains("use sslmode=verify-full") == true
        }
        // connect_timeout, as libpq reads it: seconds, at least 2, 0 for none; 10 unless given.
        let timeouts = try ["", "?connect_timeout=0", "?connect_timeout=1", "?connect_timeout=30"].map {
            try PostgresLocation(url: "postgresql://wells@127.0.0.1/wells" + $0, environment: [:]).connectTimeout
        }
        #expect(timeouts == [.seconds(10), nil, .seconds(2), .seconds(30)])
        #expect(try PostgresLocation(url: "postgresql://wells@127.0.0.1/wells", environment: ["PGCONNECT_TIMEOUT": "5"]).connectTimeout == .seconds(5))
        #expect { _ = try PostgresLocation(url: "postgresql://wells@127.0.0.1/wells?connect_timeout=soon", environment: [:]) } throws: {
            ($0 as? StoreError)?.message.contains("connect_timeout must be a whole number") == true
        }
    }
}
