import CompressNIO
import Foundation
import Hummingbird
import Synchronization

/// The content codings `wells serve` answers with: gzip, or deflate (zlib's format, as RFC 9110
/// defines `deflate`), chosen from the request's `Accept-Encoding` for JSON, GeoJSON, MVT and HTML
/// bodies of at least ``minimumSize`` bytes. Smaller bodies and `304`s go out as they are: a few
/// hundred bytes gain less than the coding's header and the CPU it costs.
///
/// Every compressible response says `Vary: Accept-Encoding`, and its ETag names the coding the
/// client asked for (`"…-gzip"`), so a cache never hands gzip to a client that did not ask for it.
/// ``WellsServer`` keeps compressed bodies in its ``ResponseCache`` beside the identity ones, so
/// a cached answer costs no compression.
///
/// For example, `Accept-Encoding: gzip;q=0.5, deflate` chooses deflate; `gzip;q=0` or no header, identity.
enum ContentCoding: String, Sendable, CaseIterable {
    case gzip
    case deflate

    /// Bodies smaller than this go out uncompressed.
    static let minimumSize = 1_024

    /// The coding the client prefers among those served here, or nil for identity: the highest
    /// non-zero `q` (1 when none is given), gzip on a tie; `*` stands for codings not named, and
    /// `q=0` refuses one.
    static func negotiate(_ acceptEncoding: String?) -> ContentCoding? {
        guard let acceptEncoding else { return nil }
        var named: [String: Double] = [:]
        for item in acceptEncoding.split(separator: ",") {
            let parts = item.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            guard let name = parts.first, !name.isEmpty else { continue }
            var quality = 1.0
            for parameter in parts.dropFirst() where parameter.hasPrefix("q=") {
                quality = Double(parameter.dropFirst(2)).map { min(max($0, 0), 1) } ?? 0
            }
            named[name == "x-gzip" ? "gzip" : name] = quality
        }
        var best: (coding: ContentCoding, quality: Double)?
        for coding in allCases {
            let quality = named[coding.rawValue] ?? named["*"] ?? 0
            if quality > 0, quality > (best?.quality ?? 0) { best = (coding, quality) }
        }
        return best?.coding
    }

    /// The coding for a response of `contentType` to `request`: nil when the type is not worth
    /// compressing or the client asked for none.
    static func negotiate(_ request: Request, contentType: String) -> ContentCoding? {
        compressible(contentType) ? negotiate(request.headers[.acceptEncoding]) : nil
    }

    /// Whether bodies of `contentType` are text or MVT, which compress (PNGs and the like do not).
    static func compressible(_ contentType: String) -> Bool {
        contentType.contains("json") || contentType.hasPrefix("application/vnd.mapbox-vector-tile") || contentType.hasPrefix("text/")
    }

    /// `body` coded; nil when it is smaller than ``minimumSize`` (send it as it is).
    func encode(_ body: ByteBuffer) -> ByteBuffer? {
        guard body.readableBytes >= Self.minimumSize else { return nil }
        var input = body
        return try? input.compress(with: self == .gzip ? .gzip() : .zlib())
    }

    /// The suffix a response cache key and an ETag take for this coding.
    var suffix: String { "-" + rawValue }
}

/// Bodies that never change (the basemap's layers), with their coded forms made on the first
/// request that asks for each and kept for the run.
final class CodedBodies: Sendable {
    private let coded = Mutex<[String: ByteBuffer]>([:])

    /// `identity`, the body called `name`, in `coding` (nil: as it is), and the coding applied.
    func body(_ identity: ByteBuffer, named name: String, in coding: ContentCoding?) -> (ByteBuffer, ContentCoding?) {
        guard let coding else { return (identity, nil) }
        let key = name + coding.suffix
        if let kept = coded.withLock({ $0[key] }) { return (kept, coding) }
        guard let made = coding.encode(identity) else { return (identity, nil) }
        coded.withLock { $0[key] = made }
        return (made, coding)
    }
}
