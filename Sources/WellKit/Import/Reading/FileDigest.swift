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
    private typealias NewContext = @convention(c) () -> OpaquePointer?
    private typealias FreeContext = @convention(c) (OpaquePointer?) -> Void
    private typealias Method = @convention(c) () -> OpaquePointer?
    private typealias Initialize = @convention(c) (OpaquePointer?, OpaquePointer?, OpaquePointer?) -> Int32
    private typealias Update = @convention(c) (OpaquePointer?, UnsafeRawPointer?, Int) -> Int32
    private typealias Finish = @convention(c) (OpaquePointer?, UnsafeMutablePointer<UInt8>?, UnsafeMutablePointer<UInt32>?) -> Int32

    /// OpenSSL's one-shot `SHA256`, and its streaming EVP digest for files read and given back in parts.
    private struct API: @unchecked Sendable {
        var sha256: OneShot?
        var newContext: NewContext?, freeContext: FreeContext?, method: Method?
        var initialize: Initialize?, update: Update?, finish: Finish?
    }

    private static let loaded: Result<API, StoreError> = SystemLibrary.load(
        "OpenSSL's libcrypto", names: ["libcrypto.so.3", "libcrypto.so"], package: "libssl3", into: API()) { handle, api in
        func symbol<T>(_ name: String, as type: T.Type) -> T? { dlsym(handle, name).map { unsafeBitCast($0, to: type) } }
        api.pointee.sha256 = symbol("SHA256", as: OneShot.self)
        api.pointee.newContext = symbol("EVP_MD_CTX_new", as: NewContext.self)
        api.pointee.freeContext = symbol("EVP_MD_CTX_free", as: FreeContext.self)
        api.pointee.method = symbol("EVP_sha256", as: Method.self)
        api.pointee.initialize = symbol("EVP_DigestInit_ex", as: Initialize.self)
        api.pointee.update = symbol("EVP_DigestUpdate", as: Update.self)
        api.pointee.finish = symbol("EVP_DigestFinal_ex", as: Finish.self)
        let found = [("SHA256", api.pointee.sha256 != nil), ("EVP_MD_CTX_new", api.pointee.newContext != nil),
                     ("EVP_MD_CTX_free", api.pointee.freeContext != nil), ("EVP_sha256", api.pointee.method != nil),
                     ("EVP_DigestInit_ex", api.pointee.initialize != nil), ("EVP_DigestUpdate", api.pointee.update != nil),
                     ("EVP_DigestFinal_ex", api.pointee.finish != nil)]
        return found.first { !$0.1 }.map { UnsafePointer(strdup($0.0)) }
    }

    /// The SHA-256 of `bytes`, as 64 lowercase hex digits.
    static func sha256(_ bytes: UnsafeBufferPointer<UInt8>) throws -> String {
        let api = try loaded.get()
        var digest = [UInt8](repeating: 0, count: 32)
        _ = api.sha256!(bytes.baseAddress, bytes.count, &digest)
        return hex(digest)
    }

    /// The SHA-256 of a mapped file, as 64 lowercase hex digits; a file that gives back its pages
    /// (``MappedFile/releases``) is read in large parts, each given back once hashed.
    static func sha256(_ file: MappedFile) throws -> String {
        guard file.releases, let base = file.bytes.baseAddress else { return try sha256(file.bytes) }
        let api = try loaded.get()
        // The loader checked every symbol.
        guard let context = api.newContext!() else { return try sha256(file.bytes) }
        defer { api.freeContext!(context) }
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        var ok = api.initialize!(context, api.method!(), nil) == 1
        let step = 32 << 20
        for start in stride(from: 0, to: file.bytes.count, by: step) where ok {
            let end = min(start + step, file.bytes.count)
            ok = api.update!(context, base + start, end - start) == 1
            file.release(start..<end)
        }
        guard ok, api.finish!(context, &digest, &length) == 1, length == 32 else { return try sha256(file.bytes) }
        return hex(digest)
    }

    private static func hex(_ digest: [UInt8]) -> String {
        let hex = Array("0123456789abcdef".utf8)
        return String(decoding: digest.flatMap { [hex[Int($0 >> 4)], hex[Int($0 & 15)]] }, as: UTF8.self)
    }
}
