import WellKit
import Foundation
import NIOSSL
import PostgresNIO

/// TLS to PostgreSQL, as libpq's `sslmode` sets it (``PostgresLocation/TLSMode``), on postgres-nio's
/// own TLS (NIOSSL).
extension PostgresLocation {
    /// What TLS a connection uses: none, TLS if the server offers it, or TLS or no connection;
    /// for the store's first connection (``connection``) and the pool's (``client``) alike.
    enum TLSUse: Sendable {
        case disable
        case prefer(TLSConfiguration, NIOSSLContext)
        case require(TLSConfiguration, NIOSSLContext)

        /// For `PostgresConnection.connect`.
        var connection: PostgresConnection.Configuration.TLS {
            switch self {
            case .disable: .disable
            case .prefer(_, let context): .prefer(context)
            case .require(_, let context): .require(context)
            }
        }

        /// For the pool, `PostgresClient`.
        var client: PostgresClient.Configuration.TLS {
            switch self {
            case .disable: .disable
            case .prefer(let configuration, _): .prefer(configuration)
            case .require(let configuration, _): .require(configuration)
            }
        }
    }

    /// The TLS for this location: `.disable` on a Unix socket (libpq ignores `sslmode` there).
    ///
    /// - Parameter retry: for `allow`, the second attempt, made after the server refused one without TLS.
    /// - Throws: ``StoreError`` (`invalidArgument`) for a certificate or key that is missing or
    ///   unreadable, or a verifying mode without a root certificate.
    func tls(retry: Bool = false) throws -> TLSUse {
        if socketDirectory != nil { return .disable }
        switch tlsMode {
        case .disable: return .disable
        case .allow:
            if retry { return try require(.none) }
            return .disable
        case .prefer:
            let (configuration, context) = try tlsConfiguration(.none)
            return .prefer(configuration, context)
        case .require: return try require(rootCertificate == nil ? .none : .noHostnameVerification)
        case .verifyCA: return try require(.noHostnameVerification)
        case .verifyFull: return try require(.fullVerification)
        }
    }

    private func require(_ verification: CertificateVerification) throws -> TLSUse {
        let (configuration, context) = try tlsConfiguration(verification)
        return .require(configuration, context)
    }

    /// What `sslmode` asks of the server's certificate, in words, for messages.
    var tlsVerification: String {
        switch tlsMode {
        case .disable, .allow, .prefer: "sslmode=\(tlsMode.rawValue), unverified"
        case .require: rootCertificate == nil ? "sslmode=require, unverified" : "sslmode=require with sslrootcert=\(rootCertificate!), verified as verify-ca"
        case .verifyCA, .verifyFull: "sslmode=\(tlsMode.rawValue) with sslrootcert=\(rootCertificate ?? "(none)")"
        }
    }

    /// The TLS configuration for `verification`, with its context made from it: a configuration
    /// that cannot make one is told here, at the open.
    private func tlsConfiguration(_ verification: CertificateVerification) throws -> (TLSConfiguration, NIOSSLContext) {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.certificateVerification = verification
        if verification != .none {
            guard let root = rootCertificate else {
                throw StoreError(.invalidArgument, "sslmode=\(tlsMode.rawValue) checks the server's certificate against a root certificate, and none was given; "
                                    + "add sslrootcert=/path/to/ca.crt to the URL (or put it in ~/.postgresql/root.crt), "
                                    + "sslrootcert=system to trust the system's certificate authorities, or use sslmode=require to encrypt without checking",
                                 path: description)
            }
            configuration.trustRoots = root == "system" ? .default : .certificates(try Self.certificates(root, "sslrootcert", location: self))
        }
        if let certificate = clientCertificate {
            guard let key = clientKey else {
                throw StoreError(.invalidArgument, "a client certificate (sslcert=\(certificate)) needs its private key: add sslkey=/path/to/key to the URL", path: description)
            }
            configuration.certificateChain = try Self.certificates(certificate, "sslcert", location: self).map { .certificate($0) }
            do {
                configuration.privateKey = .privateKey(try NIOSSLPrivateKey(file: key, format: .pem))
            } catch {
                throw StoreError(.invalidArgument, "cannot read the private key sslkey=\(key) (\(error)); give a PEM key file that is not encrypted", path: description)
            }
        }
        do {
            return (configuration, try NIOSSLContext(configuration: configuration))
        } catch {
            throw StoreError(.invalidArgument, "cannot set up TLS for \(tlsVerification): \(error)", path: description)
        }
    }

    /// The PEM certificates in `path`, for the URL's `parameter`.
    private static func certificates(_ path: String, _ parameter: String, location: PostgresLocation) throws -> [NIOSSLCertificate] {
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw StoreError(.invalidArgument, "\(parameter)=\(path) does not exist or cannot be read; give the path of a PEM certificate file", path: location.description)
        }
        do {
            let certificates = try NIOSSLCertificate.fromPEMFile(path)
            guard !certificates.isEmpty else { throw NIOSSLError.failedToLoadCertificate }
            return certificates
        } catch {
            throw StoreError(.invalidArgument, "\(parameter)=\(path) holds no PEM certificate (\(error))", path: location.description)
        }
    }

    /// A ``StoreError`` for a failed TLS handshake or a server without TLS, or nil when `error` is neither.
    func tlsFailure(_ error: any Error) -> StoreError? {
        let cause = (error as? PSQLError).flatMap { $0.underlying } ?? error
        if let psql = error as? PSQLError, psql.code == .sslUnsupported {
            return StoreError(.connectionFailed, "PostgreSQL at \(server) does not accept TLS connections, and sslmode=\(tlsMode.rawValue) needs one; "
                                + "turn ssl on in the server's postgresql.conf, or use sslmode=prefer", path: description)
        }
        if let extra = cause as? NIOSSLExtraError, extra == .failedToValidateHostname {
            return StoreError(.connectionFailed, "the certificate of PostgreSQL at \(server) does not name \(host ?? server) (\(tlsVerification)); "
                                + "connect by a name or address the certificate has, or use sslmode=verify-ca to check only who signed it", path: description)
        }
        if cause is NIOSSLError || cause is NIOSSLExtraError || cause is BoringSSLError {
            // BoringSSL's reason, such as CERTIFICATE_VERIFY_FAILED, without its source file and line.
            let text = "\(cause)"
            let reason = text.firstMatch(of: /OPENSSL_internal:([A-Z0-9_]+)/).map { String($0.1) } ?? text
            let remedy = reason == "CERTIFICATE_VERIFY_FAILED"
                ? "the server's certificate is not signed by a root in sslrootcert; give the certificate of the authority that signed it, or use sslmode=require to encrypt without checking"
                : "check the server's certificate and its ssl settings"
            return StoreError(.connectionFailed, "the TLS handshake with PostgreSQL at \(server) failed (\(tlsVerification)): \(reason); \(remedy)", path: description)
        }
        return nil
    }
}
