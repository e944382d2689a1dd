#if canImport(Glibc)
import Glibc
#endif
import CEpoll
import Logging
import NIOCore
import Synchronization
import TileCache

/// One thread of `RawTileServer`: an epoll set holding the shared listening socket (each
/// connection is accepted by one loop only) and the connections this loop accepted. Requests are
/// read with `RawTileRequest` and answered with `FastTileAnswer` (the bytes `TileWire` sends),
/// written with one `sendmsg` per answer (a large tile asked for again: its head, then its body by
/// `sendfile` from a sealed copy, `TileFiles`); requests that arrive together are answered in order.
/// Each answer's head is written into one buffer the loop keeps. A connection is watched for
/// both reading and writing, edge-triggered, from its accept to its end: no `epoll_ctl` per
/// answer, however the socket takes it. It is read until a short read (another arrival is another
/// edge), and not while an answer waits for the socket (the client's requests wait in the kernel).
/// A connection whose next request is not one of those is handed to Hummingbird once the answers
/// before it have gone out. A tile that needs a catalog read first (a paid tile whose credential
/// has no grant yet, or any tile while the paid map is stale) waits on the loop for the read
/// (`TileAccess.read`, off the loop; an eventfd says it ended): its connection then stays here,
/// refused or not (a 503 while the paid map has never been read); it goes to Hummingbird only
/// when the catalog could not check a credential. Request and
/// idle deadlines are checked by a sweep every quarter of the shorter one, as
/// `ConnectionDeadlines` does.
final class RawTileLoop: @unchecked Sendable {
    private let epoll: Int32
    private let listenFD: Int32
    private let stopFD: Int32
    /// Written when a catalog read ends (`catalogReadsEnded`).
    private let wakeFD: Int32
    /// Catalog reads that ended, by connection and read number, for the loop to take up.
    private let ended = Mutex<[(fd: Int32, number: UInt64, refusal: CatalogRefusal?)]>([])
    /// The last catalog read's number.
    private var waits: UInt64 = 0
    private let server: RawTileServer
    private let responder: TileResponder
    private let clientHeader: [UInt8]?
    private let requestLimit: UInt64
    private let idleLimit: UInt64
    private let sweepPeriod: UInt64
    /// Connections by file descriptor.
    private var connections: [RawTileConnection?] = []
    private let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 65536, alignment: 16)
    private var date = HTTPDateCache()
    /// The head of the answer being made (its storage reused answer after answer).
    private var head = ByteBufferAllocator().buffer(capacity: 512)
    /// Sealed copies of large tiles sent with `sendfile`; nil when the server keeps none.
    private let files: TileFiles?
    /// While the process is out of file descriptors, the loop stops watching the listening
    /// socket until then (monotonic ns): the connection waiting there would wake it at once,
    /// again and again, while no `accept` can succeed. nil while it accepts.
    private var acceptPausedUntil: UInt64?
    private var warnedOutOfDescriptors = false
    static let acceptPause: UInt64 = 100_000_000
    /// Connections that had their share of the loop's turn (one read, `answersPerTurn` answers)
    /// with requests left to answer or bytes left to read: taken up again after the events of the
    /// next wait (which then does not block), so that a client pipelining requests without pause
    /// cannot keep the loop from its other connections and its deadline sweep. An edge-triggered
    /// socket gives no new edge for bytes already there.
    private var later: [RawTileConnection] = []
    /// Once `stop()` was called: the loop accepts no more connections and reads no more requests;
    /// each connection closes once the answers it has (and any catalog read it waits for) are
    /// done, and the loop ends when none is left, or at this time (monotonic ns) at the latest.
    private var drainingUntil: UInt64?
    private let stopsImmediately = Atomic(false)
    /// Answers one connection gets in a turn (a full read can hold a thousand small requests).
    static let answersPerTurn = 64

    private static let (readable, writable, error, hangUp, exclusive, edge): (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32) =
        (0x001, 0x004, 0x008, 0x010, 1 << 28, 1 << 31)
    /// EPOLLRDHUP: the client shut down its sending side.
    private static let readHangUp: UInt32 = 0x2000
    private static let acceptTag = UInt64.max
    private static let stopTag = UInt64.max - 1
    private static let wakeTag = UInt64.max - 2

    /// `fileBytes`, `fileCopies`: what this loop's copies of large tiles may take, in bytes and
    /// in copies (`TileFiles`).
    init(listenFD: Int32, server: RawTileServer, fileBytes: Int, fileCopies: Int) throws {
        self.listenFD = listenFD
        self.server = server
        responder = server.responder
        clientHeader = responder.config.cache.clientHeader.map { Array($0.lowercased().utf8) }
        requestLimit = UInt64(max(0, responder.config.requestTimeout.nanoseconds))
        idleLimit = UInt64(max(0, responder.config.idleTimeout.nanoseconds))
        sweepPeriod = max(10_000_000, min(requestLimit, idleLimit) / 4)
        let metrics = server.responder.metrics
        let logger = server.responder.logger
        files =
            fileBytes >= TileFiles.minimumBytes
            ? TileFiles(
                byteLimit: fileBytes, copyLimit: fileCopies, now: Self.clock(),
                changed: { metrics.tileFilesChanged(bytes: $0, copies: $1) },
                failed: { code in
                    if metrics.recordTileFileFailure() {
                        logger.warning("a sealed copy of a large tile could not be made (errno \(code)): sent from memory instead")
                    }
                }) : nil
        epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard epoll >= 0 else { throw RawListener.Failure.system("epoll_create1", errno) }
        stopFD = eventfd(0, Int32(EFD_CLOEXEC) | Int32(EFD_NONBLOCK))
        guard stopFD >= 0 else {
            let code = errno
            Glibc.close(epoll)
            throw RawListener.Failure.system("eventfd", code)
        }
        wakeFD = eventfd(0, Int32(EFD_CLOEXEC) | Int32(EFD_NONBLOCK))
        guard wakeFD >= 0 else {
            let code = errno
            Glibc.close(stopFD)
            Glibc.close(epoll)
            throw RawListener.Failure.system("eventfd", code)
        }
        do {
            try watch(listenFD, events: Self.readable | Self.exclusive, tag: Self.acceptTag, op: EPOLL_CTL_ADD)
            try watch(stopFD, events: Self.readable, tag: Self.stopTag, op: EPOLL_CTL_ADD)
            try watch(wakeFD, events: Self.readable, tag: Self.wakeTag, op: EPOLL_CTL_ADD)
        } catch {
            // deinit closes the eventfds; the epoll set is closed by `run()`, which never ran.
            Glibc.close(epoll)
            throw error
        }
    }

    /// The eventfds close here, not in `closeAll`: a catalog read still running holds the loop and
    /// writes to the wake eventfd when it ends, and `stop()` may write to the stop eventfd after
    /// `run()` ended (a number closed there could be another file's by then).
    deinit {
        scratch.deallocate()
        Glibc.close(wakeFD)
        Glibc.close(stopFD)
    }

    /// Ends `run()` (from any thread) once the answers under way are sent, within the request
    /// timeout (`drainingUntil`); `immediately`: without waiting for them.
    func stop(immediately: Bool = false) {
        if immediately { stopsImmediately.store(true, ordering: .relaxed) }
        var one: UInt64 = 1
        _ = write(stopFD, &one, 8)
    }

    private func watch(_ fd: Int32, events: UInt32, tag: UInt64, op: Int32) throws {
        var event = epoll_event(events: events, data: epoll_data_t(u64: tag))
        guard epoll_ctl(epoll, op, fd, &event) == 0 else { throw RawListener.Failure.system("epoll_ctl", errno) }
    }

    /// Monotonic nanoseconds.
    static func clock() -> UInt64 { NIODeadline.now().uptimeNanoseconds }

    /// Serves until `stop()`, then until the answers under way are sent.
    func run() {
        let capacity = 256
        let events = UnsafeMutablePointer<epoll_event>.allocate(capacity: capacity)
        defer { events.deallocate() }
        var nextSweep = Self.clock() + sweepPeriod
        while true {
            let now = Self.clock()
            if now >= nextSweep {
                sweep(now)
                nextSweep = now + sweepPeriod
            }
            if let until = drainingUntil, now >= until || !connections.contains(where: { $0 != nil }) { break }
            if let until = acceptPausedUntil, now >= until { resumeAccepting() }
            let next = min(nextSweep, acceptPausedUntil ?? .max, drainingUntil ?? .max)
            let wait = later.isEmpty ? Int32(clamping: (next - min(next, now)) / 1_000_000 + 1) : 0
            let n = epoll_wait(epoll, events, Int32(capacity), wait)
            if n < 0 {
                if errno == EINTR { continue }
                break
            }
            for i in 0..<Int(n) {
                let tag = events[i].data.u64
                let flags = events[i].events
                if tag == Self.acceptTag {
                    if drainingUntil == nil { acceptConnections() }
                } else if tag == Self.stopTag {
                    drain()
                } else if tag == Self.wakeTag {
                    catalogReadsEnded()
                } else if Int(tag) < connections.count, let connection = connections[Int(tag)] {
                    handle(connection, flags)
                }
            }
            if !later.isEmpty { readLater() }
        }
        closeAll()
    }

    /// Stops accepting and reading: closes the connections with nothing under way now, the others
    /// once it is done (`settle`).
    private func drain() {
        var count: UInt64 = 0
        _ = read(stopFD, &count, 8)
        let now = Self.clock()
        if stopsImmediately.load(ordering: .relaxed) { drainingUntil = now }
        guard drainingUntil == nil else { return }
        drainingUntil = now + requestLimit
        if acceptPausedUntil == nil {
            var none = epoll_event()
            epoll_ctl(epoll, EPOLL_CTL_DEL, listenFD, &none)
        }
        acceptPausedUntil = nil
        for case let connection? in connections { settle(connection) }
    }

    /// Goes back to the connections that had their share of the last turn: answers the requests
    /// they have waiting, then reads on. One whose answer waits for its socket, or whose request
    /// waits for the catalog, goes on when that ends instead.
    private func readLater() {
        var turn: [RawTileConnection] = []
        swap(&turn, &later)
        for connection in turn {
            connection.later = false
            guard Int(connection.fd) < connections.count, connections[Int(connection.fd)] === connection,
                connection.output.isEmpty, connection.waitingForCatalog == nil
            else { continue }
            if connection.answerLater {
                goOn(connection, now: Self.clock())
            } else if connection.unread {
                readable(connection)
            }
        }
    }

    private func continueLater(_ connection: RawTileConnection) {
        guard !connection.later else { return }
        connection.later = true
        later.append(connection)
    }

    // MARK: - Connections

    private func acceptConnections() {
        for _ in 0..<64 {
            var address = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let fd = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { cepoll_accept(listenFD, $0, &length) }
            }
            guard fd >= 0 else {
                let code = errno
                if code == EMFILE || code == ENFILE || code == ENOBUFS || code == ENOMEM { pauseAccepting(code) }
                return
            }
            guard server.limit.admitSocket() else {
                ConnectionLimit.refusal.withUnsafeReadableBytes { _ = Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                Glibc.close(fd)
                responder.metrics.recordRefusedConnection()
                continue
            }
            var one: Int32 = 1
            setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            let connection = RawTileConnection(fd: fd, address: address, client: PrefetchClient(responder.config.cache), now: Self.clock())
            if Int(fd) >= connections.count {
                connections.append(contentsOf: repeatElement(nil, count: Int(fd) + 1 - connections.count + 64))
            }
            connections[Int(fd)] = connection
            do {
                try watch(fd, events: Self.readable | Self.writable | Self.readHangUp | Self.edge, tag: UInt64(fd), op: EPOLL_CTL_ADD)
            } catch { close(connection) }
        }
    }

    /// Stops watching the listening socket for `acceptPause` (out of descriptors or memory): the
    /// waiting connections stay in the backlog until a descriptor is free.
    private func pauseAccepting(_ code: Int32) {
        var none = epoll_event()
        guard epoll_ctl(epoll, EPOLL_CTL_DEL, listenFD, &none) == 0 else { return }
        acceptPausedUntil = Self.clock() + Self.acceptPause
        responder.metrics.recordAcceptPause()
        if !warnedOutOfDescriptors {
            warnedOutOfDescriptors = true
            responder.logger.warning(
                "a tile loop cannot accept connections (errno \(code): out of file descriptors or memory); it tries again every \(Self.acceptPause / 1_000_000) ms"
            )
        }
    }

    private func resumeAccepting() {
        // Added again, not modified: EPOLLEXCLUSIVE cannot be set by EPOLL_CTL_MOD.
        if (try? watch(listenFD, events: Self.readable | Self.exclusive, tag: Self.acceptTag, op: EPOLL_CTL_ADD)) != nil {
            acceptPausedUntil = nil
        } else {
            acceptPausedUntil = Self.clock() + Self.acceptPause
        }
    }

    private func handle(_ connection: RawTileConnection, _ flags: UInt32) {
        if flags & (Self.readable | Self.error | Self.hangUp | Self.readHangUp) != 0 { connection.unread = true }
        // The client's end of input may have come with its last request, in one edge: a short
        // read would then look like all there is, and the end would never be read.
        if flags & Self.readHangUp != 0 { connection.inputEnded = true }
        guard connection.waitingForCatalog == nil else { return }
        if !connection.output.isEmpty {
            guard flags & (Self.writable | Self.error | Self.hangUp) != 0 else { return }
            writable(connection)
        } else if connection.unread, !connection.later {
            // One on the `later` list goes on from there: it answers what it has read before it
            // reads more (so its input holds about one read), and reads once a turn.
            readable(connection)
        }
    }

    /// Reads once (the connection's read for this turn) and answers what came, until an answer the
    /// socket does not take at once, the end of what this loop answers on the connection, or the
    /// turn's answers; more to answer or read waits for the next turn (`later`).
    private func readable(_ connection: RawTileConnection) {
        guard drainingUntil == nil else { return settle(connection) }
        let n = SocketCall.retryingInterrupts { read(connection.fd, scratch.baseAddress, scratch.count) }
        if n <= 0 {
            guard n < 0, SocketCall.wouldBlock else { return close(connection) }
            connection.unread = false
            return settle(connection)
        }
        connection.unread = n == scratch.count || connection.inputEnded
        let now = Self.clock()
        connection.lastActivity = now
        if connection.requestStarted == nil { connection.requestStarted = now }
        if connection.input.isEmpty {
            let used = answer(connection, UnsafeRawBufferPointer(start: scratch.baseAddress, count: n), now: now)
            guard used >= 0 else { return }
            if used < n { connection.input.append(contentsOf: UnsafeRawBufferPointer(rebasing: scratch[used..<n])) }
        } else {
            connection.input.append(contentsOf: UnsafeRawBufferPointer(start: scratch.baseAddress, count: n))
            guard answerInput(connection, now: now) else { return }
        }
        // Requests left past this turn's answers, or bytes left to read: the next turn.
        if connection.answerLater
            || (connection.unread && connection.output.isEmpty && !connection.closeWhenSent && !connection.handOffWhenSent
                && connection.waitingForCatalog == nil)
        {
            continueLater(connection)
        }
        settle(connection)
    }

    private func writable(_ connection: RawTileConnection) {
        let written = connection.flushOutput()
        guard written >= 0 else { return close(connection) }
        let now = Self.clock()
        if written > 0 { connection.lastActivity = now }
        guard connection.output.isEmpty else { return }
        // A request that waited behind the answer just sent is timed from now: the client was
        // reading that answer, not slow to send this one.
        if written > 0, !connection.input.isEmpty { connection.requestStarted = now }
        goOn(connection, now: now)
    }

    /// Once nothing waits to be sent: answers the requests waiting in the input, then reads on
    /// (or closes, or hands on, as asked).
    private func goOn(_ connection: RawTileConnection, now: UInt64) {
        if !connection.closeWhenSent, !connection.handOffWhenSent {
            if !connection.input.isEmpty {
                guard answerInput(connection, now: now) else { return }
            }
            if connection.answerLater { return continueLater(connection) }
            if connection.output.isEmpty, !connection.handOffWhenSent, !connection.closeWhenSent, connection.waitingForCatalog == nil,
                connection.unread
            {
                return readable(connection)
            }
        }
        settle(connection)
    }

    /// Takes up the connections whose catalog read ended: each answers its waiting request (or
    /// hands the connection on) and goes on as after any answer.
    private func catalogReadsEnded() {
        var count: UInt64 = 0
        _ = read(wakeFD, &count, 8)
        let done = ended.withLock { list in
            defer { list.removeAll(keepingCapacity: true) }
            return list
        }
        for (fd, number, refusal) in done {
            guard Int(fd) < connections.count, let connection = connections[Int(fd)], connection.waitingForCatalog == number else {
                continue
            }
            connection.waitingForCatalog = nil
            if let refusal { connection.refusal = refusal }
            writable(connection)
        }
    }

    /// Reads the catalog, off the loop, for the request at the start of the connection's input;
    /// the connection waits (`catalogReadsEnded`).
    private func awaitCatalog(_ connection: RawTileConnection, _ wait: CatalogWait) -> Bool {
        guard let access = responder.access else { return false }
        waits &+= 1
        let number = waits
        let fd = connection.fd
        connection.waitingForCatalog = number
        connection.waits(for: wait.reason)
        responder.metrics.recordCatalogWait(wait)
        Task { [self] in
            let answer = await access.read(wait)
            var refusal: CatalogRefusal?
            if let answer { refusal = CatalogRefusal(wait: wait, answer: answer) }
            ended.withLock { $0.append((fd, number, refusal)) }
            var one: UInt64 = 1
            _ = write(wakeFD, &one, 8)
        }
        return true
    }

    /// Answers what waits in the connection's input; false when the connection closed.
    private func answerInput(_ connection: RawTileConnection, now: UInt64) -> Bool {
        let pending = connection.input
        let used = pending.withUnsafeBytes { answer(connection, $0, now: now) }
        guard used >= 0 else { return false }
        connection.input = used == pending.count ? [] : Array(pending[used...])
        return true
    }

    /// Answers the requests at the start of `bytes` while the socket takes the answers, at most
    /// `answersPerTurn` (then `answerLater`); returns how many bytes it used, or -1 when the
    /// connection closed.
    private func answer(_ connection: RawTileConnection, _ bytes: UnsafeRawBufferPointer, now: UInt64) -> Int {
        var offset = 0
        var answers = 0
        connection.answerLater = false
        while offset < bytes.count, connection.output.isEmpty, connection.waitingForCatalog == nil {
            if answers == Self.answersPerTurn {
                connection.answerLater = true
                return offset
            }
            answers += 1
            let rest = UnsafeRawBufferPointer(rebasing: bytes[offset...])
            switch RawTileRequest.parse(rest, clientHeader: clientHeader) {
            case .incomplete:
                return offset
            case .other:
                connection.handOffWhenSent = true
                return offset
            case let .request(request, length):
                let client = connection.client.name(headerValue: request.client?[...], address: connection.ipAddress)
                let header = FastTileAnswer.connectionHeader(keepAlive: request.keepAlive, http10: request.http10)
                let answer: FastTileAnswer
                switch FastTileAnswer.outcome(
                    responder, isHead: request.head, uri: request.target,
                    ifNoneMatch: request.ifNoneMatch, connection: header, client: client,
                    clientFromHeader: request.client != nil, authorization: request.authorization,
                    date: date.now(), received: now, paidMapRead: connection.hasWaited(for: .paidMap), refusal: connection.refusal,
                    head: &head)
                {
                case let .answer(made):
                    answer = made
                case let .waitForCatalog(wait):
                    if connection.hasWaited(for: wait.reason) || !awaitCatalog(connection, wait) { connection.handOffWhenSent = true }
                    return offset
                case .elsewhere:
                    connection.handOffWhenSent = true
                    return offset
                }
                connection.answered()
                offset += length
                connection.requestStarted = offset < bytes.count ? now : nil
                guard send(answer, on: connection, now: now) else {
                    close(connection)
                    return -1
                }
                if answer.close {
                    connection.closeWhenSent = true
                    return bytes.count
                }
            }
        }
        return offset
    }

    /// Sends an answer with one `sendmsg` (head and body), or a body with a sealed copy by
    /// `sendFile`; what the socket does not take waits in the connection's output. False when the
    /// socket failed.
    private func send(_ answer: FastTileAnswer, on connection: RawTileConnection, now: UInt64) -> Bool {
        if let files, let body = answer.body, let file = files.file(for: body, now: now) {
            return sendFile(head: answer.head, body: body, file: file, on: connection, now: now)
        }
        let head = answer.head
        let body = answer.body
        let total = head.readableBytes + (body?.readableBytes ?? 0)
        let sent = SocketCall.retryingInterrupts {
            head.withUnsafeReadableBytes { h in
                withUnsafeTemporaryAllocation(of: iovec.self, capacity: 2) { vectors in
                    vectors[0] = iovec(iov_base: UnsafeMutableRawPointer(mutating: h.baseAddress), iov_len: h.count)
                    guard let body else { return SocketCall.send(connection.fd, vectors, count: 1) }
                    return body.withUnsafeReadableBytes { b in
                        vectors[1] = iovec(iov_base: UnsafeMutableRawPointer(mutating: b.baseAddress), iov_len: b.count)
                        return SocketCall.send(connection.fd, vectors, count: 2)
                    }
                }
            }
        }
        if sent < 0, !SocketCall.wouldBlock { return false }
        if sent > 0 { connection.lastActivity = now }
        if sent < total { connection.queue(head, body, after: max(0, sent)) }
        return true
    }

    /// Sends the head (`MSG_MORE`: the kernel holds it for the body), then the body by `sendfile`
    /// from `file`, its sealed copy. What the socket does not take waits in the connection's output
    /// from the buffers, as `send` leaves it: nothing waits on the file, which may close before the
    /// output is sent. False when the socket failed.
    private func sendFile(head: ByteBuffer, body: ByteBuffer, file: Int32, on connection: RawTileConnection, now: UInt64) -> Bool {
        let sentHead = SocketCall.retryingInterrupts {
            head.withUnsafeReadableBytes { Glibc.send(connection.fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_MORE)) }
        }
        if sentHead < 0, !SocketCall.wouldBlock { return false }
        if sentHead > 0 { connection.lastActivity = now }
        guard sentHead == head.readableBytes else {
            // The socket is full: its next writable edge sends the rest.
            connection.queue(head, body, after: max(0, sentHead))
            return true
        }
        let sent = SocketCall.retryingInterrupts { cepoll_sendfile(connection.fd, file, body.readableBytes) }
        if sent < 0, !SocketCall.wouldBlock { return false }
        if sent > 0 { responder.metrics.recordTileFileSend() }
        if sent == body.readableBytes { return true }
        connection.queue(head, body, after: head.readableBytes + max(0, sent))
        // A short count with room left (not expected of a sealed file) would get no writable edge.
        if sent == 0 { return connection.flushOutput() >= 0 }
        return true
    }

    /// Once the output is sent: close, or hand on, as asked (until then the socket's next
    /// writable edge sends more); while the loop drains, close once no catalog read is awaited
    /// either.
    private func settle(_ connection: RawTileConnection) {
        guard connection.output.isEmpty else { return }
        if connection.closeWhenSent { return close(connection) }
        if drainingUntil != nil {
            if connection.waitingForCatalog == nil, !connection.answerLater {
                // Bytes left unread make `close` reset the connection, which can drop the end of
                // an answer the kernel has not sent yet: read them first (not answered).
                if connection.unread { discardInput(connection) }
                close(connection)
            }
            return
        }
        if connection.handOffWhenSent { return handOff(connection) }
    }

    /// Reads what the client has sent, without answering it, until the socket has no more
    /// (at most a megabyte).
    private func discardInput(_ connection: RawTileConnection) {
        for _ in 0..<16 {
            guard read(connection.fd, scratch.baseAddress, scratch.count) == scratch.count else { return }
        }
    }

    private func handOff(_ connection: RawTileConnection) {
        var none = epoll_event()
        epoll_ctl(epoll, EPOLL_CTL_DEL, connection.fd, &none)
        connections[Int(connection.fd)] = nil
        responder.metrics.recordHandOff()
        server.handOff(fd: connection.fd, bytes: connection.input)
    }

    private func close(_ connection: RawTileConnection) {
        guard Int(connection.fd) < connections.count, connections[Int(connection.fd)] === connection else { return }
        connections[Int(connection.fd)] = nil
        // The place first: a client that sees the connection end finds it free.
        server.limit.release()
        Glibc.close(connection.fd)
    }

    private func closeAll() {
        for case let connection? in connections { close(connection) }
        files?.removeAll()
        Glibc.close(epoll)
    }

    /// Closes connections past their request or idle deadline. While an answer is being sent, the
    /// request behind it has no deadline (it waits for the client to read): the idle one holds.
    private func sweep(_ now: UInt64) {
        for case let connection? in connections {
            let why: String
            if let started = connection.requestStarted, connection.output.isEmpty, now - min(now, started) >= requestLimit {
                why = "request not complete within \(requestLimit / 1_000_000_000) s"
            } else if now - min(now, connection.lastActivity) >= idleLimit {
                why = "idle for \(idleLimit / 1_000_000_000) s"
            } else {
                continue
            }
            responder.metrics.recordTimeout()
            responder.logger.info("closed connection from \(connection.ipAddress() ?? "?"): \(why)")
            close(connection)
        }
    }
}
