import WellKit
import Foundation
import NIOSSL
import PostgresNIO

/// TLS to PostgreSQL, as libpq's `sslmode` sets it (``PostgresLocation/TLSMode``), on postgres-nio's
/// own TLS (NIOSSL).
extension PostgresLocation {
    /// postgres-nio's TLS for this location: `.disable` on a Unix socket (libpq ignores `sslmode` there).
    ///
    /// - Parameter retry: for `allow`, the second attempt, made after the server refused one without TLS.
    /// - Throws: ``StoreError`` (`invalidArgument`) for a certificate or key that is missing or
    ///   unreadable, or a verifying mode without a root certificate.
    func tls(retry: Bool = false) throws -> PostgresConnection.Configuration.TLS {
        if socketDirectory != nil { return .disable }
        switch tlsMode {
        case .disable: return .disable
        case .allow: return retry ? .require(try tlsContext(.none)) : .disable
        case .prefer: return .prefer(try tlsContext(.none))
        case .require: return .require(try tlsContext(rootCertificate == nil ? .none : .noHostnameVerification))
        case .verifyCA: return .require(try tlsContext(.noHostnameVerification))
        case .verifyFull: return .require(try tlsContext(.fullVerification))
        }
    }

    /// What `sslmode` asks of the server's certificate, in words, for messages.
    var tlsVerification: String {
        switch tlsMode {
        case .disable, .allow, .prefer: "sslmode=\(tlsMode.rawValue), unverified"
        case .require: rootCertificate == nil ? "sslmode=require, unverified" : "sslmode=require with sslrootcert=\(rootCertificate!), verified as verify-ca"
        case .verifyCA, .verifyFull: "sslmode=\(tlsMode.rawValue) with sslrootcert=\(rootCertificate ?? "(none)")"
        }
    }

    private func tlsContext(_ verification: CertificateVerification) throws -> NIOSSLContext {
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
            return try NIOSSLContext(configuration: configuration)
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
