import Logging
import NIOCore
import NIOHTTP1

/// Closes slow and idle connections, so that a client that sends half a request and waits (or
/// trickles a byte at a time) cannot hold a connection, and memory, forever.
///
/// - **Request deadline**: from the first byte of a request, its head and body must have arrived
///   within `request` (30 s by default), however steadily bytes trickle in.
/// - **Idle**: a connection on which nothing is read or written for `idle` (60 s by default) is
///   closed, between requests (keep-alive) or while a client stops reading a response.
///
/// Two handlers share one state, both on the connection's event loop: `RawSide` sits next to the
/// socket and sees bytes (the first byte of a request arms the deadline, any traffic counts as
/// activity); `ParsedSide` sits after the HTTP decoder and sees where requests end.
enum ConnectionDeadlines {
    /// How long requests and idle connections may take.
    struct Limits: Sendable, Equatable {
        /// Time from a request's first byte to its last.
        var request: TimeAmount
        /// Time without any byte read or written.
        var idle: TimeAmount

        init(request: TimeAmount = .seconds(30), idle: TimeAmount = .seconds(60)) {
            self.request = request
            self.idle = idle
        }
    }

    /// Adds both handlers: `RawSide` first in the pipeline, `ParsedSide` right after `decoder`;
    /// and the handler `nextToRaw` makes, if any, right after `RawSide` (one that ends requests
    /// itself tells the state, as `ParsedSide` does).
    static func install(
        on pipeline: ChannelPipeline.SynchronousOperations, after decoder: any ChannelHandler, limits: Limits,
        nextToRaw: ((State) -> any ChannelHandler)? = nil,
        onClose: @escaping @Sendable (String) -> Void
    ) throws {
        let state = State(limits: limits, onClose: onClose)
        let raw = RawSide(state)
        try pipeline.addHandler(raw, position: .first)
        if let nextToRaw { try pipeline.addHandler(nextToRaw(state), position: .after(raw)) }
        try pipeline.addHandler(ParsedSide(state), position: .after(decoder))
    }

    /// Per connection, touched only on its event loop. One timer per connection checks the clocks
    /// every quarter of the shorter limit (so a connection is closed at most 1.25 times its limit
    /// late); traffic just notes the time, with no timer work per request or per write.
    final class State {
        let limits: Limits
        let onClose: @Sendable (String) -> Void
        /// When the current request's first byte arrived; nil between requests.
        var requestStarted: NIODeadline?
        var lastActivity = NIODeadline.now()
        var timer: Scheduled<Void>?
        var context: ChannelHandlerContext?

        init(limits: Limits, onClose: @escaping @Sendable (String) -> Void) {
            self.limits = limits
            self.onClose = onClose
        }

        func start(_ context: ChannelHandlerContext) {
            guard self.context == nil else { return }
            self.context = context
            lastActivity = .now()
            schedule(at: lastActivity + period)
        }

        /// Bytes moved: the idle clock starts again.
        @inline(__always) func activity() { lastActivity = .now() }

        /// A byte of a request arrived: a new request's deadline starts (if none runs).
        @inline(__always) func requestBytes() {
            if requestStarted == nil { requestStarted = lastActivity }
        }

        /// The decoder saw the end of a request.
        @inline(__always) func requestEnded() { requestStarted = nil }

        func stop() {
            timer?.cancel()
            timer = nil
            context = nil
        }

        /// How often the clocks are checked.
        private var period: TimeAmount { .nanoseconds(max(10_000_000, min(limits.idle, limits.request).nanoseconds / 4)) }

        private func schedule(at deadline: NIODeadline) {
            guard let context else { return }
            timer = context.eventLoop.scheduleTask(deadline: deadline) { [self] in check() }
        }

        private func check() {
            let now = NIODeadline.now()
            if let started = requestStarted, now - started >= limits.request {
                return close("request not complete within \(limits.request.nanoseconds / 1_000_000_000) s")
            }
            if now - lastActivity >= limits.idle {
                return close("idle for \(limits.idle.nanoseconds / 1_000_000_000) s")
            }
            schedule(at: now + period)
        }

        private func close(_ why: String) {
            guard let context else { return }
            stop()
            onClose(why)
            context.close(promise: nil)
        }
    }

    /// Next to the socket: sees every byte read and written.
    final class RawSide: ChannelDuplexHandler, RemovableChannelHandler {
        typealias InboundIn = ByteBuffer
        typealias InboundOut = ByteBuffer
        typealias OutboundIn = IOData
        typealias OutboundOut = IOData
        let state: State

        init(_ state: State) { self.state = state }

        /// The clocks start when the handler joins the pipeline (whether or not NIO has reported
        /// the connection active yet: waiting for `channelActive` missed connections now and then).
        func handlerAdded(context: ChannelHandlerContext) {
            state.start(context)
        }

        func handlerRemoved(context: ChannelHandlerContext) { state.stop() }

        func channelInactive(context: ChannelHandlerContext) {
            state.stop()
            context.fireChannelInactive()
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            if unwrapInboundIn(data).readableBytes > 0 {
                state.activity()
                state.requestBytes()
            }
            context.fireChannelRead(data)
        }

        func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
            state.activity()
            context.write(data, promise: promise)
        }
    }

    /// After the HTTP decoder: sees where each request ends.
    final class ParsedSide: ChannelInboundHandler, RemovableChannelHandler {
        typealias InboundIn = HTTPServerRequestPart
        typealias InboundOut = HTTPServerRequestPart
        let state: State

        init(_ state: State) { self.state = state }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            if case .end = unwrapInboundIn(data) { state.requestEnded() }
            context.fireChannelRead(data)
        }
    }
}
