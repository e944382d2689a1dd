import NIOCore
import Synchronization

/// Caps the connections open at once (`ServerConfiguration.maxConnections`). A connection past
/// the cap is answered a 503 with `Connection: close` straight on its socket, before any request
/// is parsed, and closed: thousands of idle sockets cost the server a counter, not its pipelines.
final class ConnectionLimit: Sendable {
    let max: Int
    private let open = Atomic(0)

    init(max: Int) {
        self.max = max
    }

    /// Connections open now.
    var count: Int { open.load(ordering: .relaxed) }

    /// Takes a place for `channel`, released when it closes; false (nothing taken) when full.
    func admit(_ channel: any Channel) -> Bool {
        let now = open.wrappingAdd(1, ordering: .relaxed).newValue
        guard now <= max else {
            open.wrappingSubtract(1, ordering: .relaxed)
            return false
        }
        channel.closeFuture.whenComplete { [self] _ in open.wrappingSubtract(1, ordering: .relaxed) }
        return true
    }

    /// Takes a place for a socket not (yet) in a NIO channel (`RawTileServer`); false when full.
    /// The caller gives it back with `release()`.
    func admitSocket() -> Bool {
        let now = open.wrappingAdd(1, ordering: .relaxed).newValue
        guard now <= max else {
            open.wrappingSubtract(1, ordering: .relaxed)
            return false
        }
        return true
    }

    /// Gives back a place `admitSocket()` took.
    func release() { open.wrappingSubtract(1, ordering: .relaxed) }

    /// A place `admitSocket()` took, given back once however many of its holders release it: a
    /// connection handed from a tile loop to a NIO channel keeps its place across the hand-off,
    /// and whichever of the channel's close and a failed hand-off comes releases it.
    final class Place: Sendable {
        private let limit: ConnectionLimit
        private let released = Atomic(false)

        init(_ limit: ConnectionLimit) { self.limit = limit }

        func release() {
            guard !released.exchange(true, ordering: .relaxed) else { return }
            limit.release()
        }
    }

    /// The answer a refused connection gets before it is closed.
    static let refusal: ByteBuffer = {
        let body = #"{"error":"too_many_connections","message":"the server has too many open connections; try again shortly"}"#
        return ByteBuffer(
            string: "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\n"
                + "Content-Length: \(body.utf8.count)\r\nRetry-After: 1\r\nCache-Control: no-store\r\n"
                + "Connection: close\r\n\r\n" + body)
    }()

    /// First in a refused connection's pipeline: once the socket is active, writes `refusal`
    /// and closes; reads nothing (a connection is set up before it is active, when a write
    /// cannot go out yet, so the answer waits for activation).
    final class Refusal: ChannelInboundHandler, RemovableChannelHandler {
        typealias InboundIn = NIOAny
        private var sent = false

        init() {}

        func handlerAdded(context: ChannelHandlerContext) {
            if context.channel.isActive { refuse(context) }
        }

        func channelActive(context: ChannelHandlerContext) {
            refuse(context)
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {}

        private func refuse(_ context: ChannelHandlerContext) {
            guard !sent else { return }
            sent = true
            context.writeAndFlush(NIOAny(ConnectionLimit.refusal)).whenComplete { _ in context.close(promise: nil) }
        }
    }
}
