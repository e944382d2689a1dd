import NIOCore
import TileCache

/// Answers the common tile request straight from the connection's bytes, before NIO's HTTP parser:
/// a `GET`/`HEAD` of `/tiles/...` with plain headers (`RawTileRequest`) that `FastTileAnswer`
/// can answer. Under load most of a tile request's time went to turning bytes into NIO's request
/// parts and passing them along the pipeline; here the request is read in place, answered, and
/// its bytes never go further.
///
/// The first request it does not answer (another route, a paid tile, anything unusual) and every
/// byte after it go on to NIO's parser for the rest of the connection, so answers stay in request
/// order and everything else behaves as before (`TileFastPath` still answers tiles there). It sits
/// right after `ConnectionDeadlines.RawSide` and tells the deadlines where its requests end.
final class TileWire: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let responder: TileResponder
    private let deadlines: ConnectionDeadlines.State
    /// The configured client header in lowercase (prefetch), if any.
    private let clientHeader: [UInt8]?
    private var client: PrefetchClient
    /// Once set, every byte goes to NIO's parser.
    private var passing = false
    /// The start of a request whose end has not arrived yet.
    private var partial: ByteBuffer?
    /// The client asked to close after an answer: later input is ignored.
    private var closing = false
    private var date = HTTPDateCache()

    init(responder: TileResponder, deadlines: ConnectionDeadlines.State) {
        self.responder = responder
        self.deadlines = deadlines
        client = PrefetchClient(responder.config.cache)
        clientHeader = responder.config.cache.clientHeader.map { Array($0.lowercased().utf8) }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if passing {
            context.fireChannelRead(data)
            return
        }
        if closing { return }
        var buffer = unwrapInboundIn(data)
        if var start = partial {
            partial = nil
            start.writeBuffer(&buffer)
            buffer = start
        }
        var wrote = false
        while buffer.readableBytes > 0 {
            let parsed = buffer.withUnsafeReadableBytes { RawTileRequest.parse($0, clientHeader: clientHeader) }
            switch parsed {
            case .incomplete:
                partial = buffer
                if wrote { context.flush() }
                return
            case .other:
                pass(buffer, context: context, flushing: wrote)
                return
            case let .request(request, length):
                let connection = FastTileAnswer.connectionHeader(keepAlive: request.keepAlive, http10: request.http10)
                guard
                    let answer = FastTileAnswer.make(
                        responder, isHead: request.head, uri: request.target,
                        ifNoneMatch: request.ifNoneMatch, connection: connection,
                        client: client.name(headerValue: request.client?[...], context: context),
                        clientFromHeader: request.client != nil, authorization: request.authorization, date: date.now(),
                        received: RawTileLoop.clock(), allocator: context.channel.allocator)
                else {
                    pass(buffer, context: context, flushing: wrote)
                    return
                }
                buffer.moveReaderIndex(forwardBy: length)
                deadlines.requestEnded()
                if buffer.readableBytes > 0 { deadlines.requestBytes() }
                if answer.close {
                    closing = true
                    let written = context.eventLoop.makePromise(of: Void.self)
                    let channel = context.channel
                    written.futureResult.whenComplete { _ in channel.close(promise: nil) }
                    send(answer, context: context, promise: written)
                    return
                }
                send(answer, context: context)
                wrote = true
            }
        }
        if wrote { context.flush() }
    }

    /// Hands `buffer` and everything after it to NIO's parser.
    private func pass(_ buffer: ByteBuffer, context: ChannelHandlerContext, flushing: Bool) {
        passing = true
        if flushing { context.flush() }
        context.fireChannelRead(wrapInboundOut(buffer))
    }

    /// Writes an answer (flushed with `promise`, when given: the last write before a close).
    private func send(_ answer: FastTileAnswer, context: ChannelHandlerContext, promise: EventLoopPromise<Void>? = nil) {
        guard let body = answer.body else {
            if promise != nil {
                context.writeAndFlush(wrapInboundOut(answer.head), promise: promise)
            } else {
                context.write(wrapInboundOut(answer.head), promise: nil)
            }
            return
        }
        context.write(wrapInboundOut(answer.head), promise: nil)
        if promise != nil {
            context.writeAndFlush(wrapInboundOut(body), promise: promise)
        } else {
            context.write(wrapInboundOut(body), promise: nil)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        partial = nil
        context.fireChannelInactive()
    }
}
