import Foundation
import Hummingbird

/// Byte ranges of the static files (Leaflet under `/assets/leaflet/`) answered as RFC 9110 and
/// nginx answer them, in front of Hummingbird's `FileMiddleware`, which serves the bytes: a range
/// that starts past the end is `416 Range Not Satisfiable` with `Content-Range: bytes */N` (the
/// file middleware answered 206 with the last byte), a suffix range (`bytes=-500`) is the file's
/// last bytes (it served the first), and a header that is not one byte range is ignored, so the
/// whole file goes out with 200.
///
/// The middleware reads the file's size (`stat`) and hands the file middleware the one range
/// to serve, as `bytes=first-last` inside the file; the validators (`If-None-Match`, `If-Range`)
/// and the bytes stay the file middleware's. For example, with a file of 10,975 bytes:
///
/// ```
/// Range: bytes=999999999999-   →  416, Content-Range: bytes */10975
/// Range: bytes=-100            →  206, Content-Range: bytes 10875-10974/10975
/// ```
struct ByteRangeMiddleware<Context: RequestContext>: RouterMiddleware {
    /// The folder the file middleware serves.
    let directory: String
    /// Where it serves it, such as `/assets/leaflet`.
    let urlBasePath: String

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.method == .get || request.method == .head, let header = request.headers[.range],
              let size = fileSize(request.uri.path) else {
            return try await next(request, context)
        }
        var head = request.head
        switch ByteRange(header: header, size: size) {
        case .whole:
            head.headerFields[.range] = nil
            return try await next(Request(head: head, body: request.body), context)
        case .part(let range):
            head.headerFields[.range] = "bytes=\(range.lowerBound)-\(range.upperBound)"
            return try await next(Request(head: head, body: request.body), context)
        case .unsatisfiable:
            // A range the file middleware certainly serves, so that its answer says whether the
            // range counts: a 206 does; a 200 (`If-Range` no longer matches) or a 304 is answered as is.
            head.headerFields[.range] = "bytes=0-0"
            let response = try await next(Request(head: head, body: request.body), context)
            guard response.status == .partialContent else { return response }
            var refused = try Problem(.rangeNotSatisfiable, "the range \(FeatureQuery.shown(header)) lies past the end of the file, which has \(size) bytes")
                .response(from: request, context: context)
            refused.headers[.contentRange] = "bytes */\(size)"
            return refused
        }
    }

    /// The size of the regular file that `path` names under ``urlBasePath``, found as the file
    /// middleware finds it; nil when there is none (it then answers 404 or a redirect).
    private func fileSize(_ path: String) -> Int? {
        guard let path = path.removingPercentEncoding, !path.contains(".."), path.hasPrefix(urlBasePath + "/") else { return nil }
        var status = stat()
        guard stat(directory + path.dropFirst(urlBasePath.count), &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return nil }
        return Int(status.st_size)
    }
}

/// What a `Range` header asks of a file of a given size (RFC 9110 §14.1.2).
enum ByteRange: Equatable {
    /// The whole file with 200: the header is not in bytes, is malformed, or asks for several
    /// ranges (a server may answer those with the whole file).
    case whole
    /// One range of the file's bytes, its last byte inside the file.
    case part(ClosedRange<Int>)
    /// No range of the header overlaps the file: 416.
    case unsatisfiable

    init(header: String, size: Int) {
        let parts = header.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces).lowercased() == "bytes" else {
            self = .whole
            return
        }
        var satisfiable: [ClosedRange<Int>] = []
        for spec in parts[1].split(separator: ",", omittingEmptySubsequences: false) {
            let bounds = spec.trimmingCharacters(in: .whitespaces).split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
            guard bounds.count == 2, bounds.allSatisfy({ $0.allSatisfy { $0.isASCII && $0.isNumber } }), !bounds[0].isEmpty || !bounds[1].isEmpty else {
                self = .whole
                return
            }
            // Digits past Int's range count as a position past any file's end.
            if bounds[0].isEmpty {
                // A suffix: the last `length` bytes (all of a shorter file); none of an empty file.
                let length = Int(bounds[1]) ?? .max
                if length > 0, size > 0 { satisfiable.append(max(0, size - length)...(size - 1)) }
            } else {
                let first = Int(bounds[0]) ?? .max
                let last = bounds[1].isEmpty ? .max : Int(bounds[1]) ?? .max
                guard first <= last else {
                    self = .whole
                    return
                }
                if first < size { satisfiable.append(first...min(last, size - 1)) }
            }
        }
        switch satisfiable.count {
        case 0: self = .unsatisfiable
        case 1: self = .part(satisfiable[0])
        default: self = .whole
        }
    }
}
