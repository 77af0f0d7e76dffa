import Foundation
import Hummingbird
import Logging
import WellKit

/// An error answered as an RFC 9457 problem document (`application/problem+json`): the status,
/// a title, the detail in words a user can act on, and the query parameter at fault.
///
/// For example, `GET /collections/wells/items?limit=x` answers 400 with
/// `{"type":"about:blank","title":"Bad Request","status":400,"detail":"limit must be a whole number from 1 to 10000, got 'x'","parameter":"limit"}`.
struct Problem: HTTPResponseError {
    let status: HTTPResponse.Status
    let detail: String
    /// The query or path parameter the problem is about, when one is.
    var parameter: String?
    /// Seconds after which trying again may succeed, sent as `Retry-After` (a busy server's 503).
    var retryAfter: Int?

    init(_ status: HTTPResponse.Status, _ detail: String, parameter: String? = nil, retryAfter: Int? = nil) {
        self.status = status
        self.detail = detail
        self.parameter = parameter
        self.retryAfter = retryAfter
    }

    static func badParameter(_ name: String, _ detail: String) -> Problem {
        Problem(.badRequest, detail, parameter: name)
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        var body = #"{"type":"about:blank","title":"#
        body += ResultWriter.json(.text(status.reasonPhrase))
        body += #","status":\#(status.code),"detail":"# + ResultWriter.json(.text(detail))
        if let parameter { body += #","parameter":"# + ResultWriter.json(.text(parameter)) }
        body += #","instance":"# + ResultWriter.json(.text(request.uri.path)) + "}\n"
        var headers: HTTPFields = [.contentType: "application/problem+json", .cacheControl: "no-store"]
        if let retryAfter { headers[.retryAfter] = String(retryAfter) }
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
    }
}

/// Answers a path no route serves with a 404 problem document, and any error that is not already
/// an HTTP answer (a store that is damaged, unreadable or whose server went away) with a problem
/// document that says what happened (500, or 503 when trying again may help), never an empty 500.
/// A ``StoreError``'s reason names the store's path, or its server's host, port and user: the
/// client gets what kind of failure it was, the operator's log the reason.
struct NotFoundMiddleware<Context: RequestContext>: RouterMiddleware {
    private static var logger: Logger { Logger(label: "wells serve") }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound {
            throw Problem(.notFound, "nothing at \(FeatureQuery.shown(request.uri.path)); the API's links are at /?f=json")
        } catch let error as any HTTPResponseError {
            throw error
        } catch let error as StoreError {
            Self.logger.warning("\(request.method) \(AccessLog.shown(request.uri.description)): \(error.reason)")
            switch error.code {
            case .busy:
                throw Problem(.serviceUnavailable, "the store is busy; try again", retryAfter: 1)
            case .connectionFailed, .connectionLost:
                throw Problem(.serviceUnavailable, "the store cannot answer now: the server cannot reach its database; try again", retryAfter: 1)
            case .damaged:
                throw Problem(.internalServerError, "the store is damaged: the server's operator can see where with `wells check`")
            default:
                throw Problem(.internalServerError, "the store failed (\(error.code)); the server's log says why")
            }
        } catch {
            throw Problem(.internalServerError, "the server failed on this request (\(type(of: error)))")
        }
    }
}

/// The router, with HEAD answered as GET without the body (and any method but GET, HEAD and
/// OPTIONS with 405 and `Allow: GET, HEAD`): the same status and headers,
/// `Content-Length` and the ETag included, so that `curl -I` and link checkers see what a GET
/// would get. (A middleware cannot do this: the router picks a route by method before its
/// middleware runs, and no route is registered for HEAD.)
struct HeadResponder<Base: HTTPResponder>: HTTPResponder where Base.Context: RequestContext {
    let base: Base

    func respond(to request: Request, context: Base.Context) async throws -> Response {
        // Every resource is read-only: another method is 405 with the methods there are, as nginx answers
        // (OPTIONS goes on, for CORS preflight when --cors-origin is set).
        guard [.get, .head, .options].contains(request.method) else {
            var response = try Problem(.methodNotAllowed, "\(request.method) is not allowed: wells serve is read-only and answers GET and HEAD")
                .response(from: request, context: context)
            response.headers[.allow] = "GET, HEAD"
            return response
        }
        guard request.method == .head else { return try await base.respond(to: request, context: context) }
        var head = request.head
        head.method = .get
        var response: Response
        do {
            response = try await base.respond(to: Request(head: head, body: request.body), context: context)
        } catch let error as any HTTPResponseError {
            response = try error.response(from: request, context: context)
        }
        let length = response.headers[.contentLength]
        response.body = ResponseBody()
        response.headers[.contentLength] = length
        return response
    }
}
