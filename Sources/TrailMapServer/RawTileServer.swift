#if canImport(Glibc)
import Glibc
#endif
import CEpoll
import Foundation
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import Synchronization

/// The tile socket layer in front of Hummingbird (`ServerConfiguration.tileLoops` threads, off by
/// default): it owns the listening port, and each of its threads (`RawTileLoop`) accepts
/// connections and answers the requests `TileWire` would answer (free cached tiles, 304s, the 404
/// of an absent tile) with plain `read`/`sendmsg` on its own epoll set: no channel pipeline, no
/// event-loop promises, no reference-counted handler contexts per request.
///
/// The first request of a connection it does not answer (another route, a paid tile the catalog
/// refused, anything unusual; one that needs a catalog read first waits for it on its loop) hands
/// the whole connection, with the bytes already read, to Hummingbird's own child
/// channel (`TileChannel`, adopted with NIO's `ClientBootstrap.withConnectedSocket`), which then
/// serves the rest of it exactly as when Hummingbird owns the port. Hummingbird itself listens on
/// a Unix socket in a private folder that nothing connects to.
final class RawTileServer: Sendable {
    let responder: TileResponder
    let limit: ConnectionLimit
    let logger: Logger
    /// Hummingbird's child channel, once built.
    private let child = Mutex<TileChannel?>(nil)
    /// Hummingbird's server is listening.
    private let hummingbirdRunning = Atomic(false)
    /// The folder of Hummingbird's Unix socket.
    let socketFolder: String
    /// Connections handed to Hummingbird and still open (they run outside Hummingbird's server
    /// task, so its graceful shutdown does not reach them: `quiesceHandedOn()` does).
    private let handedOn = Mutex<[ObjectIdentifier: any Channel]>([:])

    init(responder: TileResponder, limit: ConnectionLimit, logger: Logger) {
        self.responder = responder
        self.limit = limit
        self.logger = logger
        socketFolder = NSTemporaryDirectory() + "trailmap-\(getpid())-\(UUID().uuidString.prefix(8))"
    }

    /// Where Hummingbird listens (made private to this user when the service starts).
    var hummingbirdSocket: String { socketFolder + "/http.sock" }

    func childBuilt(_ channel: TileChannel) { child.withLock { $0 = channel } }
    func hummingbirdStarted() { hummingbirdRunning.store(true, ordering: .releasing) }

    /// Makes the private folder of Hummingbird's socket (before Hummingbird binds it).
    func prepareSocketFolder() {
        mkdir(socketFolder, 0o700)
    }

    /// The service running the loops: waits for Hummingbird, binds the port, runs until graceful
    /// shutdown. `onRunning` gets the bound port.
    struct Loops: Service {
        let server: RawTileServer
        let host: String
        let port: Int
        let backlog: Int
        let threads: Int
        let onRunning: @Sendable (Int) async -> Void

        /// How many sealed copies of large tiles (`TileFiles`, a file descriptor each) a loop may
        /// keep: together at most an eighth of the process's descriptors, at most 256 a loop.
        static func fileCopiesPerLoop(loops: Int) -> Int {
            var limit = rlimit()
            guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 16 }
            let descriptors = limit.rlim_cur == rlim_t.max ? UInt64(1 << 20) : UInt64(limit.rlim_cur)
            return Int(max(1, min(256, descriptors / 8 / UInt64(max(1, loops)))))
        }

        func run() async throws {
            while !server.hummingbirdRunning.load(ordering: .acquiring) || server.child.withLock({ $0 == nil }) {
                try await Task.sleep(for: .milliseconds(2))
            }
            let listener = try RawListener(host: host, port: port, backlog: backlog)
            let loopCount = max(1, threads)
            let fileBytes = server.responder.config.sendfileBudget / loopCount
            let fileCopies = Self.fileCopiesPerLoop(loops: loopCount)
            let loops = try (0..<loopCount).map { _ in
                try RawTileLoop(listenFD: listener.fd, server: server, fileBytes: fileBytes, fileCopies: fileCopies)
            }
            let done = loops.map { loop in
                let finished = DispatchSemaphore(value: 0)
                let thread = Thread {
                    // `sendfile` has no MSG_NOSIGNAL: to a peer gone it raises SIGPIPE, whose
                    // default action ends the process; so does SIGXFSZ, raised by a sealed copy's
                    // write beyond a file size limit (`ulimit -f`). Blocked here, they stay
                    // pending on this thread instead (the calls fail with EPIPE and EFBIG),
                    // whatever the process does with the signals.
                    var signals = sigset_t()
                    sigemptyset(&signals)
                    sigaddset(&signals, SIGPIPE)
                    sigaddset(&signals, SIGXFSZ)
                    pthread_sigmask(SIG_BLOCK, &signals, nil)
                    // The kernel's name (top -H, /proc): Foundation's `Thread.name` does not set it here.
                    _ = cepoll_name_thread("trailmap-tiles")
                    loop.run()
                    finished.signal()
                }
                thread.start()
                return finished
            }
            server.logger.info("tile loops: \(loops.count) threads on port \(listener.port)")
            await onRunning(listener.port)
            try? await gracefulShutdown()
            // Each loop sends the answers under way first (within the request timeout), unless
            // the service was cancelled: waited for on a thread of its own, not one of the pool's.
            let cancelled = Task.isCancelled
            for loop in loops { loop.stop(immediately: cancelled) }
            // Refuses new connections (and resets those waiting to be accepted) at once, where
            // they would wait for the drain; the descriptor stays open, so no loop can find its
            // number reused.
            shutdown(listener.fd, Int32(SHUT_RD))
            await withTaskCancellationHandler {
                await withCheckedContinuation { (ended: CheckedContinuation<Void, Never>) in
                    Thread {
                        for finished in done { finished.wait() }
                        ended.resume()
                    }.start()
                }
            } onCancel: {
                for loop in loops { loop.stop(immediately: true) }
            }
            listener.close()
            await server.quiesceHandedOn()
            unlink(server.hummingbirdSocket)
            rmdir(server.socketFolder)
        }
    }

    /// Gives `fd` (a connected socket no loop watches any more) and the bytes read from it so far
    /// to Hummingbird's child channel, on one of NIO's event loops. The connection keeps the place
    /// its loop took for it (`ConnectionLimit.Place`), released when the channel closes.
    func handOff(fd: Int32, bytes: [UInt8]) {
        let place = ConnectionLimit.Place(limit)
        guard let channel = child.withLock({ $0 }) else {
            Glibc.close(fd)
            place.release()
            return
        }
        let logger = logger
        Task {
            do {
                let value = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                    .withConnectedSocket(NIOBSDSocket.Handle(fd)) { nio in
                        channel.setup(channel: nio, logger: logger, place: place).flatMapThrowing { value in
                            if !bytes.isEmpty {
                                try nio.pipeline.syncOperations.addHandler(Preface(bytes: bytes), position: .first)
                            }
                            return value
                        }
                    }
                let nio = value.channel
                let key = ObjectIdentifier(nio)
                handedOn.withLock { $0[key] = nio }
                nio.closeFuture.whenComplete { [self] _ in _ = handedOn.withLock { $0.removeValue(forKey: key) } }
                await channel.handle(value: value, logger: logger)
            } catch {
                // A channel made closes and releases the place itself; none made, this does.
                place.release()
                logger.debug("connection not handed to Hummingbird: \(error)")
            }
        }
    }

    /// Asks every handed-on connection to close once its current request is answered (as
    /// Hummingbird's graceful shutdown does for its own) and waits until they have.
    func quiesceHandedOn() async {
        let open = handedOn.withLock { Array($0.values) }
        for channel in open { channel.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent()) }
        for channel in open { try? await channel.closeFuture.get() }
    }

    /// First in a handed-on connection's pipeline: passes on the bytes `RawTileLoop` read before
    /// any the channel reads itself, then leaves. It waits one event-loop turn first: the setup
    /// swaps NIO's HTTP decoder, and NIO removes a decoder on a later turn (bytes passed on in
    /// the same turn reached both decoders). Bytes the channel reads meanwhile wait behind them.
    final class Preface: ChannelInboundHandler, RemovableChannelHandler {
        typealias InboundIn = ByteBuffer
        typealias InboundOut = ByteBuffer
        private var held: ByteBuffer?

        init(bytes: [UInt8]) { held = ByteBuffer(bytes: bytes) }

        func channelActive(context: ChannelHandlerContext) {
            context.fireChannelActive()
            let loop = context.eventLoop
            let bound = NIOLoopBound(context, eventLoop: loop)
            loop.execute { [self] in release(bound.value) }
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            guard held != nil else { return context.fireChannelRead(data) }
            var more = unwrapInboundIn(data)
            held!.writeBuffer(&more)
        }

        private func release(_ context: ChannelHandlerContext) {
            guard let bytes = held else { return }
            held = nil
            context.fireChannelRead(wrapInboundOut(bytes))
            context.fireChannelReadComplete()
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
        }
    }
}

/// The listening socket of `RawTileServer`.
struct RawListener {
    let fd: Int32
    let port: Int

    enum Failure: Error, CustomStringConvertible {
        case address(String, Int32)
        case system(String, Int32)

        var description: String {
            switch self {
            case let .address(host, code): "cannot resolve \(host): \(String(cString: gai_strerror(code)))"
            case let .system(call, code): "\(call): \(String(cString: strerror(code)))"
            }
        }
    }

    init(host: String, port: Int, backlog: Int) throws {
        var hints = addrinfo()
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        let code = getaddrinfo(host, String(port), &hints, &found)
        guard code == 0, let first = found else { throw Failure.address(host, code) }
        defer { freeaddrinfo(found) }
        let fd = socket(
            first.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw Failure.system("socket", errno) }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        guard bind(fd, first.pointee.ai_addr, first.pointee.ai_addrlen) == 0 else {
            let e = errno
            Glibc.close(fd)
            // NIO's error, as when Hummingbird binds the port itself (callers tell an address in use by it).
            throw IOError(errnoCode: e, reason: "bind \(host):\(port)")
        }
        guard listen(fd, Int32(clamping: backlog)) == 0 else {
            let e = errno
            Glibc.close(fd)
            throw Failure.system("listen", e)
        }
        var address = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        let v6 = address.ss_family == sa_family_t(AF_INET6)
        let bound: UInt16 = withUnsafePointer(to: &address) { pointer in
            v6
                ? pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_port }
                : pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_port }
        }
        self.fd = fd
        self.port = Int(UInt16(bigEndian: bound))
    }

    func close() { Glibc.close(fd) }
}
