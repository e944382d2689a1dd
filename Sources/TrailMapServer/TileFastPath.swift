import HTTPTypes
import Logging
import NIOCore
import NIOHTTPTypes
import TileCache

/// Answers successful tile requests (200 and 304) directly on the connection's event loop,
/// without the hop into Swift concurrency that every Hummingbird request takes; measured, that
/// hop and its allocations are most of a request's cost. Everything else (other routes, errors,
/// `Connection: close`, a request arriving while an earlier one is still with Hummingbird) goes
/// on to Hummingbird unchanged, so responses stay in request order.
final class TileFastPath: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let responder: TileResponder
    /// Requests handed to Hummingbird whose response has not ended yet.
    private var outstanding = 0
    /// The answer to the request being read (sent at its end), if this handler took it.
    private var pending: (head: HTTPResponse, body: ByteBuffer?)?
    private var start = ContinuousClock.now

    init(responder: TileResponder) {
        self.responder = responder
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case let .head(request):
            if outstanding == 0, let answer = answer(request, context: context) {
                pending = answer
                return
            }
            outstanding += 1
            context.fireChannelRead(data)
        case .body:
            if pending == nil { context.fireChannelRead(data) }
        case .end:
            guard let answer = pending else {
                context.fireChannelRead(data)
                return
            }
            pending = nil
            context.write(wrapOutboundOut(.head(answer.head)), promise: nil)
            if let body = answer.body { context.write(wrapOutboundOut(.body(body)), promise: nil) }
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { outstanding = max(0, outstanding - 1) }
        context.write(data, promise: promise)
    }

    /// The response for a GET/HEAD of a tile that exists, or nil to let Hummingbird answer.
    private func answer(_ request: HTTPRequest, context: ChannelHandlerContext) -> (head: HTTPResponse, body: ByteBuffer?)? {
        guard request.method == .get || request.method == .head, let fullPath = request.path,
              fullPath.hasPrefix("/tiles/"), fullPath.utf8.count <= 2048 else { return nil }
        if let connection = request.headerFields[.connection], connection.lowercased().contains("close") { return nil }
        let start = ContinuousClock.now
        let path = fullPath.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)[0]
        let parts = Array(path.split(separator: "/", omittingEmptySubsequences: false).dropFirst())
        guard parts.count == 5 else { return nil }
        let answer: TileResponder.TileAnswer
        do {
            answer = try responder.tileAnswer(parts, ifNoneMatch: request.headerFields[.ifNoneMatch], client: client(request, context))
        } catch let error as APIError where error.code == "tile_not_found" {
            // A tile the bundle lacks (empty sea skipped at build): common on maps, answered here
            // too, so the bundle is not read a second time by the Hummingbird path.
            var headers = error.headers
            headers[.contentType] = "application/json; charset=utf-8"
            headers[.accessControlAllowOrigin] = "*"
            headers[.cacheControl] = "no-store"
            let body = error.body
            headers[.contentLength] = String(body.readableBytes)
            answer = TileResponder.TileAnswer(status: error.status, headers: headers, body: body)
        } catch {
            return nil
        }
        var headers = answer.headers
        headers[.server] = "trailmap"
        let head = HTTPResponse(status: answer.status, headerFields: headers)
        let body = request.method == .head ? nil : answer.body
        let bytes = body?.readableBytes ?? 0
        let elapsed = ContinuousClock.now - start
        responder.metrics.record(route: .tile, status: answer.status.code, bodyBytes: bytes, duration: elapsed)
        responder.logger.info("\(request.method) \(fullPath) \(answer.status.code) \(bytes)B \(elapsed)")
        return (head, body)
    }

    /// Who asks, for prefetch: the configured client header, else the remote address; nil with prefetch off.
    private func client(_ request: HTTPRequest, _ context: ChannelHandlerContext) -> String? {
        let cache = responder.config.cache
        guard cache.prefetch else { return nil }
        if let name = cache.clientHeader, let field = HTTPField.Name(name), let value = request.headerFields[field] {
            return String(value.prefix(128))
        }
        return context.remoteAddress?.ipAddress
    }
}
