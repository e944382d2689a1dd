import HTTPTypes
import Logging
import NIOCore
import NIOHTTP1
import TileCache

/// Answers tile requests (200, 304 and 404 for a tile the bundle lacks) on the connection's event
/// loop, right after NIO's HTTP/1 parser, and writes the response's bytes straight to the socket.
///
/// Measured under load, a Hummingbird request spends most of its time outside the tile lookup: the
/// hop into Swift concurrency, converting the request and the response between NIO's and Swift's
/// HTTP types, and the encoder. This handler sits before that conversion (see `TileChannel`),
/// serializes the response head itself (`ResponseHead`) and sends the cached tile's own buffer.
/// HTTP/1.0 and `Connection: close` are honoured (the connection closes after the answer), for
/// Hummingbird's answers to HTTP/1.0 too.
/// Everything else (other routes, errors, a request arriving while an earlier one is still with
/// Hummingbird) goes on to Hummingbird unchanged, so responses stay in request order.
final class TileFastPath: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private let responder: TileResponder
    /// The context of the handler that turns responses into bytes: writes made from it go to the
    /// socket as they are. Released when this handler leaves the pipeline.
    private var socket: ChannelHandlerContext?
    /// Requests handed to Hummingbird whose response has not ended yet, oldest first.
    private var forwarded = CircularBuffer<Forwarded>(initialCapacity: 4)
    /// The response being written answers a HEAD: its body parts are dropped, its head kept.
    private var droppingBody = false
    /// The answer to the request being read (sent at its end), if this handler took it.
    private var pending: FastTileAnswer?
    /// The client asked to close after an answer of this handler: later input is ignored.
    private var closing = false
    private var date = HTTPDateCache()
    private var client: PrefetchClient

    /// `socket`: the context of the pipeline's response encoder.
    init(responder: TileResponder, socket: ChannelHandlerContext) {
        self.responder = responder
        self.socket = socket
        client = PrefetchClient(responder.config.cache)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        socket = nil
    }

    /// A request handed to Hummingbird, kept until its response ends.
    struct Forwarded {
        /// A HEAD: the response's body is dropped (the pipeline's encoder is not told of request
        /// methods, see `TileChannel`).
        var head: Bool
        /// The `Connection` header to send (`connectionHeader`; Hummingbird keeps HTTP/1.0
        /// connections open and answers without it), `close` also closing after the response.
        var connection: String?
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if closing { return }
        switch unwrapInboundIn(data) {
        case let .head(request):
            if forwarded.isEmpty, let answer = answer(request, context: context) {
                pending = answer
                return
            }
            forwarded.append(Forwarded(head: request.method == .HEAD, connection: Self.connectionHeader(request)))
            context.fireChannelRead(data)
        case .body:
            if pending == nil { context.fireChannelRead(data) }
        case .end:
            guard let answer = pending else {
                context.fireChannelRead(data)
                return
            }
            pending = nil
            guard let socket else { return }
            let written = answer.close ? closeAfter(context) : nil
            if let body = answer.body {
                socket.write(NIOAny(IOData.byteBuffer(answer.head)), promise: nil)
                socket.writeAndFlush(NIOAny(IOData.byteBuffer(body)), promise: written)
            } else {
                socket.writeAndFlush(NIOAny(IOData.byteBuffer(answer.head)), promise: written)
            }
        }
    }

    /// The promise for an answer's last write, after which the connection closes (`promise`, the
    /// writer's own, completes with it); input from now on is ignored.
    private func closeAfter(_ context: ChannelHandlerContext, cascadingTo promise: EventLoopPromise<Void>? = nil) -> EventLoopPromise<Void>
    {
        closing = true
        let written = context.eventLoop.makePromise(of: Void.self)
        if let promise { written.futureResult.cascade(to: promise) }
        let channel = context.channel
        written.futureResult.whenComplete { _ in channel.close(promise: nil) }
        return written
    }

    /// The `Connection` header of an answer to `request`: `close` when the client does not keep the
    /// connection (HTTP/1.0 unless told, or `Connection: close`), `keep-alive` for an HTTP/1.0
    /// client that asked for it, none otherwise (HTTP/1.1 keeps it unless told).
    static func connectionHeader(_ request: HTTPRequestHead) -> String? {
        FastTileAnswer.connectionHeader(keepAlive: request.isKeepAlive, http10: request.version.minor == 0)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case var .head(response):
            // A 1xx other than 101 is followed by the final head, which is the one that answers.
            let code = response.status.code
            guard code >= 200 || code < 100 || code == 101, let request = forwarded.first else { break }
            droppingBody = request.head
            if let connection = request.connection {
                response.headers.replaceOrAdd(name: "Connection", value: connection)
                context.write(wrapOutboundOut(.head(response)), promise: promise)
                return
            }
        case .body where droppingBody:
            promise?.succeed(())
            return
        case .body:
            break
        case .end:
            droppingBody = false
            guard !forwarded.isEmpty, forwarded.removeFirst().connection == "close" else { break }
            context.write(data, promise: closeAfter(context, cascadingTo: promise))
            return
        }
        context.write(data, promise: promise)
    }

    /// The response to a GET/HEAD of a tile, or nil to let Hummingbird answer (as `RawTileRequest`
    /// does, a request that sends `Authorization` twice).
    private func answer(_ request: HTTPRequestHead, context: ChannelHandlerContext) -> FastTileAnswer? {
        guard request.method == .GET || request.method == .HEAD, request.version.major == 1, socket != nil else { return nil }
        let authorization = request.headers["authorization"]
        guard authorization.count <= 1 else { return nil }
        let headerValue = client.headerName.flatMap { request.headers.first(name: $0)?[...] }
        return FastTileAnswer.make(
            responder, isHead: request.method == .HEAD, uri: request.uri,
            ifNoneMatch: request.headers.first(name: "if-none-match"),
            connection: Self.connectionHeader(request),
            client: client.name(headerValue: headerValue, context: context), clientFromHeader: headerValue != nil,
            authorization: authorization.first,
            date: date.now(), received: RawTileLoop.clock(), allocator: context.channel.allocator)
    }
}
