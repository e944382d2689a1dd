import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypesHTTP1
import Synchronization

/// Hummingbird's HTTP/1 child channel with tile requests answered as early as they can be:
/// `TileWire` before NIO's HTTP/1 parser (the common request, read from raw bytes), and
/// `TileFastPath` between the parser and the conversion to Swift HTTP types (the rest of a
/// connection once `TileWire` has handed it on).
///
/// NIO's server pipeline wires its request decoder to its response encoder: the decoder queues
/// every request's method and the encoder pops one per response head it writes (to send no body
/// for HEAD). Fast-path answers never pass the encoder, so that queue grew by one entry per tile
/// request for the life of a connection, and after a tile HEAD the next Hummingbird response
/// lost its body. The decoder is therefore replaced by an unwired one with the same limits, and
/// `TileFastPath` drops the body of Hummingbird's responses to HEAD itself.
struct TileChannel: ServerChildChannel {
    typealias Value = HTTP1Channel.Value

    let http1: HTTP1Channel
    let responder: TileResponder
    let listener = ListenerTuning()
    let limit: ConnectionLimit

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        setup(channel: channel, logger: logger, place: nil)
    }

    /// `place`: the place a tile loop took for the connection it hands on (`RawTileServer`), kept
    /// until the channel closes instead of a new one taken: another connection accepted in
    /// between cannot take it.
    func setup(channel: any Channel, logger: Logger, place: ConnectionLimit.Place?) -> EventLoopFuture<Value> {
        if let server = channel.parent { listener.tune(server) }
        if let place {
            channel.closeFuture.whenComplete { _ in place.release() }
        } else if !limit.admit(channel) {
            responder.metrics.recordRefusedConnection()
            do { try channel.pipeline.syncOperations.addHandler(ConnectionLimit.Refusal(), position: .first) } catch {
                return channel.eventLoop.makeFailedFuture(error)
            }
            return http1.setup(channel: channel, logger: logger)
        }
        return http1.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let pipeline = channel.pipeline.syncOperations
            let wired = try pipeline.context(handlerType: ByteToMessageHandler<HTTPRequestDecoder>.self)
            let decoder = HTTPRequestDecoder(leftOverBytesStrategy: .dropBytes, limitConfiguration: decoderLimits)
            let unwired = ByteToMessageHandler(decoder)
            try pipeline.addHandler(unwired, position: .after(wired.handler))
            pipeline.removeHandler(context: wired, promise: nil)
            let codec = try pipeline.handler(type: HTTP1ToHTTPServerCodec.self)
            let encoder = try pipeline.context(handlerType: HTTPResponseEncoder.self)
            try pipeline.addHandler(TileFastPath(responder: responder, socket: encoder), position: .before(codec))
            let (metrics, logger) = (responder.metrics, responder.logger)
            let peer = channel.remoteAddress?.description ?? "?"
            let responder = responder
            try ConnectionDeadlines.install(
                on: pipeline, after: unwired, limits: deadlineLimits,
                nextToRaw: { TileWire(responder: responder, deadlines: $0) }
            ) { why in
                metrics.recordTimeout()
                logger.info("closed connection from \(peer): \(why)")
            }
            return value
        }
    }

    /// The request and idle deadlines of the configuration.
    var deadlineLimits: ConnectionDeadlines.Limits {
        ConnectionDeadlines.Limits(
            request: .nanoseconds(responder.config.requestTimeout.nanoseconds),
            idle: .nanoseconds(responder.config.idleTimeout.nanoseconds))
    }

    /// The parsing limits Hummingbird gives its own decoder.
    var decoderLimits: NIOHTTPDecoderLimitConfiguration {
        var limits = NIOHTTPDecoderLimitConfiguration()
        limits.maxHeaderFieldSize = http1.configuration.httpDecoder.maxHeaderFieldSize
        limits.maxHeaderListSize = http1.configuration.httpDecoder.maxHeaderListSize
        limits.maxHeaderFieldCount = http1.configuration.httpDecoder.maxHeaderFieldCount
        return limits
    }

    func handle(value: Value, logger: Logger) async {
        await http1.handle(value: value, logger: logger)
    }
}

/// Lets the listening socket accept many connections per wake-up instead of NIO's 4. The
/// listener shares an event loop with hundreds of busy connections; at 4 per loop turn, 1,000
/// clients connecting at once waited seconds to be accepted (measured: wrk timeouts at 2 s).
/// Hummingbird does not expose server channel options, so the first connection sets it.
final class ListenerTuning: Sendable {
    static let acceptsPerWakeUp: UInt = 256
    private let done = Atomic(false)

    func tune(_ server: any Channel) {
        guard !done.exchange(true, ordering: .relaxed) else { return }
        server.setOption(ChannelOptions.maxMessagesPerRead, value: Self.acceptsPerWakeUp).whenComplete { _ in }
    }
}

extension HTTPServerBuilder {
    /// HTTP/1 with the tile fast path.
    /// `limit`: the open-connection cap (shared with `RawTileServer` when it runs); `built` gets
    /// the child channel once Hummingbird has made it (`RawTileServer` hands connections to it).
    static func tiles(
        _ responder: TileResponder, limit: ConnectionLimit? = nil,
        built: @escaping @Sendable (TileChannel) -> Void = { _ in }
    ) -> HTTPServerBuilder {
        let limit = limit ?? ConnectionLimit(max: responder.config.maxConnections)
        return HTTPServerBuilder { respond in
            let channel = TileChannel(http1: HTTP1Channel(responder: respond), responder: responder, limit: limit)
            built(channel)
            return channel
        }
    }
}
