#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The SHA-256 that names a loaded file (`loads.sha256`, how a reload of the same bytes is told
/// apart): OpenSSL's `SHA256`, from libcrypto loaded on first use like PROJ and SpatiaLite (see
/// ``SystemLibrary``).
///
/// libcrypto is on every Debian system (apt, curl and PROJ's libcurl link it), so it costs no
/// package and no build step, where swift-crypto compiled a copy of BoringSSL into every client of
/// WellKit for this one function. OpenSSL's assembly uses the CPU's SHA extensions where present.
enum FileDigest {
    private typealias OneShot = @convention(c) (UnsafePointer<UInt8>?, Int, UnsafeMutablePointer<UInt8>?) -> UnsafeMutablePointer<UInt8>?

    private struct API: @unchecked Sendable { var sha256: OneShot? }

    private static let loaded: Result<API, StoreError> = SystemLibrary.load(
        "OpenSSL's libcrypto", names: ["libcrypto.so.3", "libcrypto.so"], package: "libssl3", into: API()) { handle, api in
        guard let symbol = dlsym(handle, "SHA256") else { return UnsafePointer(strdup("SHA256")) }
        api.pointee.sha256 = unsafeBitCast(symbol, to: OneShot.self)
        return nil
    }

    /// The SHA-256 of `bytes`, as 64 lowercase hex digits.
    static func sha256(_ bytes: UnsafeBufferPointer<UInt8>) throws -> String {
        let api = try loaded.get()
        var digest = [UInt8](repeating: 0, count: 32)
        _ = api.sha256!(bytes.baseAddress, bytes.count, &digest)
        let hex = Array("0123456789abcdef".utf8)
        return String(decoding: digest.flatMap { [hex[Int($0 >> 4)], hex[Int($0 & 15)]] }, as: UTF8.self)
    }
}
