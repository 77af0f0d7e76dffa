import Foundation
import Hummingbird
import HummingbirdCore
import HTTPTypes
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import WellKit

/// The limits of a request's head, and the problem document a request over them gets.
///
/// NIO's HTTP/1 decoder counts the request target (path and query) as a header field: by
/// Hummingbird's defaults a target over 80 KiB, or a head over 80 KiB in all, failed to parse and
/// Hummingbird answered an empty `400`. A CQL2 filter of 100,000 characters (``CQL2Filter/maximumLength``),
/// percent-encoded, is up to 300,000 bytes of target, so filters of 27,000 to 100,000 characters
/// got that empty `400`. Here the target may be ``maximumTarget`` bytes, room for such a filter
/// with every character encoded as `%XX` and the other parameters; a longer one answers `414`,
/// headers over ``maximumHead`` (or more than ``maximumFields`` of them) `431`, and any other head
/// that does not parse `400`, each as a problem document, and the connection is closed (the
/// decoder cannot find where the next request would start).
enum HeadLimits {
    /// The most bytes of a request's target.
    static let maximumTarget = 320 << 10
    /// The most bytes of a request's target and headers together.
    static let maximumHead = maximumTarget + (64 << 10)
    /// The most header fields of a request.
    static let maximumFields = 1_000

    /// NIO's decoder limits for these: the target is one field to it, and every field counts
    /// against the whole head's limit.
    static var decoder: HTTP1Channel.Configuration.DecoderConfiguration {
        .init(maxHeaderFieldSize: maximumTarget, maxHeaderListSize: maximumHead, maxHeaderFieldCount: maximumFields)
    }
}

/// Answers a head that NIO's decoder refused with a problem document (see ``HeadLimits``), in
/// place of Hummingbird's empty `400`: it takes the decoder's error before the server's handler
/// sees it, waits for the responses of the requests before it on the connection, then writes the
/// problem and closes. With ``RequestLineTracker`` in front of the decoder it tells a target too
/// long (`414`) from headers too large (`431`).
final class HeadProblemHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let tracker = RequestLineTracker()
    /// Requests read whose response has not ended.
    private var pending = 0
    /// The problem to write once `pending` is 0.
    private var problem: (status: HTTPResponse.Status, detail: String)?

    func handlerAdded(context: ChannelHandlerContext) {
        try? context.pipeline.syncOperations.addHandler(tracker, position: .first)   // before NIO's decoder
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head = unwrapInboundIn(data) {
            pending += 1
            tracker.headDecoded()
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let ended = if case .end = unwrapOutboundIn(data) { true } else { false }
        context.write(data, promise: promise)
        if ended {
            pending -= 1
            if pending == 0, problem != nil { answer(context) }
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let parse = error as? HTTPParserError, problem == nil else { return context.fireErrorCaught(error) }
        // NIO counts the target alone; the line adds the method and the version.
        if case .headerOverflow = parse, tracker.lengthOfHeadBeingDecoded > HeadLimits.maximumTarget {
            problem = (HTTPResponse.Status(code: 414, reasonPhrase: "URI Too Long"),
                       "the request's target (path and query) is longer than the server's limit of \(HeadLimits.maximumTarget) bytes; "
                       + "a filter of up to \(CQL2Filter.maximumLength) characters fits, percent-encoded, when it is ASCII: shorten the filter or the parameters")
        } else if case .headerOverflow = parse {
            problem = (HTTPResponse.Status(code: 431, reasonPhrase: "Request Header Fields Too Large"),
                       "the request's headers are larger than the server's limit of \(HeadLimits.maximumHead) bytes with its target, or more than \(HeadLimits.maximumFields) fields")
        } else {
            problem = (.badRequest, "the request is not HTTP/1.1 the server can read (\(parse))")
        }
        if pending == 0 { answer(context) }
    }

    /// Writes the problem document and closes the connection: its output at once, its input once
    /// the client closes (or after two seconds). A client still sending the rest of a long head
    /// when the connection closed whole would get a reset, which discards the answer unread.
    private func answer(_ context: ChannelHandlerContext) {
        guard let problem else { return }
        let (status, detail) = problem
        let body = #"{"type":"about:blank","title":"# + ResultWriter.json(.text(status.reasonPhrase)) + #","status":\#(status.code),"detail":"#
            + ResultWriter.json(.text(detail)) + "}\n"
        let head = HTTPResponse(status: status, headerFields: [.contentType: "application/problem+json", .cacheControl: "no-store",
                                                              .contentLength: String(body.utf8.count), .connection: "close"])
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(ByteBuffer(string: body))), promise: nil)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in
            channel.close(mode: .output, promise: nil)
            channel.eventLoop.scheduleTask(in: .seconds(2)) { channel.close(promise: nil) }
        }
    }
}

/// Follows the raw bytes of a connection before NIO's decoder, to tell how long the request line
/// of the head being decoded is: the first line of the connection, and each first line after a
/// blank line ends a head. It reads each buffer before the decoder does, so it may be ahead by
/// whole heads: it keeps the length of each request line seen whose head the decoder has not
/// delivered (``headDecoded()``), oldest first. Only ``HeadProblemHandler`` reads it, on an error;
/// a body with blank lines in it could mislead it (a `431` for a `414`), and this server takes no bodies.
final class RequestLineTracker: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    /// The request lines (in bytes, without the line break) of the heads not yet decoded.
    private var lengths: [Int] = []
    private var inRequestLine = true
    /// Bytes of the current line read so far.
    private var lineLength = 0

    /// The request line of the head the decoder is in: complete, or as far as it was read.
    var lengthOfHeadBeingDecoded: Int { lengths.first ?? (inRequestLine ? lineLength : 0) }

    /// The decoder delivered the oldest head.
    func headDecoded() {
        if !lengths.isEmpty { lengths.removeFirst() }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        buffer.withUnsafeReadableBytes { bytes in
            var start = 0
            while let newline = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) {
                let length = lineLength + newline - start
                if inRequestLine {
                    lengths.append(length)
                    inRequestLine = false
                } else if length <= 1 {
                    inRequestLine = true   // "\r\n" alone: the head ended
                }
                lineLength = 0
                start = newline + 1
            }
            lineLength += bytes.count - start
        }
        context.fireChannelRead(data)
    }
}
