import HTTPTypes
import Logging
import NIOCore
import TileCache

/// A tile request answered on the connection's event loop, as the bytes to send: 200, 304, the
/// 404 of a tile the bundle lacks, or the 401/403 of a paid tile refused (no credential, a tileset
/// nobody may buy whole, a credential the catalog refused). Shared by `TileWire` (requests read
/// from raw bytes) and `TileFastPath` (requests from NIO's parser). nil when the request is for
/// Hummingbird's path: paid tiles whose credential it checks, bad paths, unavailable tilesets, a
/// bundle that cannot be read.
struct FastTileAnswer {
    var head: ByteBuffer
    var body: ByteBuffer?
    /// The connection closes once this is written.
    var close: Bool

    /// - Parameters:
    ///   - isHead: a HEAD request (no body sent).
    ///   - uri: the request target.
    ///   - connection: the `Connection` header to send (`TileFastPath.connectionHeader`).
    ///   - client: who asks, for prefetch (nil: no prediction); `clientFromHeader`: it is the
    ///     configured client header's value (else a paid tile's login session names the client).
    ///   - authorization: the `Authorization` header's value (a paid tile's bearer token), read
    ///     only for a paid tile.
    ///   - received: when the request was read, in nanoseconds of `NIODeadline`'s clock (the
    ///     request's duration is measured from it, and the predictor is told its time).
    static func make(
        _ responder: TileResponder, isHead: Bool, uri: String, ifNoneMatch: String?, connection: String?,
        client: String?, clientFromHeader: Bool = false, authorization: @autoclosure () -> String? = nil, date: String,
        received: UInt64,
        allocator: ByteBufferAllocator
    ) -> FastTileAnswer? {
        var head = allocator.buffer(capacity: 320)
        let made = outcome(
            responder, isHead: isHead, uri: uri, ifNoneMatch: ifNoneMatch, connection: connection, client: client,
            clientFromHeader: clientFromHeader, authorization: authorization(), date: date, received: received, head: &head)
        guard case let .answer(answer) = made else { return nil }
        return answer
    }

    /// What the fast path makes of a tile request.
    enum Outcome {
        case answer(FastTileAnswer)
        /// A tile that needs a catalog read first (`TileAccess.read`): answered here after it when
        /// it can be, else on Hummingbird's path.
        case waitForCatalog(CatalogWait)
        /// For Hummingbird's path.
        case elsewhere
    }

    /// As `make(_:isHead:uri:ifNoneMatch:connection:client:clientFromHeader:authorization:date:received:allocator:)`, writing the head
    /// into `head` after clearing it: a caller that keeps one buffer for its answers (a tile loop)
    /// allocates no head per answer. The answer's `head` shares the buffer's storage until either
    /// is written again. A caller that can wait for a catalog read gets `.waitForCatalog`;
    /// `paidMapRead`: the request has waited for a read of the paid map (`TileResponder.tileAnswer`);
    /// `refusal` is what the read this request waited for refused it with (`TileAccess.read`),
    /// sent instead of waiting for the same read again.
    static func outcome(
        _ responder: TileResponder, isHead: Bool, uri: String, ifNoneMatch: String?, connection: String?,
        client: String?, clientFromHeader: Bool = false, authorization: @autoclosure () -> String? = nil, date: String,
        received: UInt64, paidMapRead: Bool = false, refusal: CatalogRefusal? = nil,
        head: inout ByteBuffer
    ) -> Outcome {
        guard let parts = TileRequestParsing.tilePath(uri) else { return .elsewhere }
        head.clear()
        let status: HTTPResponse.Status
        var body: ByteBuffer?
        do {
            switch try responder.tileAnswer(
                parts, ifNoneMatch: ifNoneMatch, client: client, milliseconds: received / 1_000_000, onEventLoop: true,
                paidMapRead: paidMapRead,
                credential: TileGrants.Credential.presented(target: uri, authorization: authorization()), clientFromHeader: clientFromHeader
            )
            {
            case let .tile(answer):
                status = answer.status
                ResponseHead.writeTile(answer, date: date, connection: connection, into: &head)
                if !answer.notModified { body = answer.body }
            case let .absent(error), let .refused(error):
                status = error.status
                body = write(error, date: date, connection: connection, into: &head)
            }
        } catch {
            let wait: CatalogWait
            switch error {
            case let needed as TileGrants.Needed: wait = .grant(needed)
            case is StaleAccessMap: wait = .paidMap
            default: return .elsewhere
            }
            guard let refusal, refusal.wait == wait else { return .waitForCatalog(wait) }
            status = refusal.answer.status
            body = write(refusal.answer, date: date, connection: connection, into: &head)
        }
        if isHead { body = nil }
        let bytes = body?.readableBytes ?? 0
        let now = NIODeadline.now().uptimeNanoseconds
        let elapsed = Duration.nanoseconds(Int64(clamping: now >= received ? now - received : 0))
        responder.metrics.record(route: .tile, status: status.code, bodyBytes: bytes, duration: elapsed)
        responder.logger.info("\(isHead ? "HEAD" : "GET") \(LogRedaction.uri(uri)) \(status.code) \(bytes)B \(elapsed)")
        return .answer(FastTileAnswer(head: head, body: body, close: connection == "close"))
    }

    /// Writes the head of `error`'s JSON answer into `head`, as Hummingbird's path renders it
    /// (`APIError.response(from:context:)`); returns the body.
    private static func write(_ error: APIError, date: String, connection: String?, into head: inout ByteBuffer) -> ByteBuffer {
        var headers = error.responseHeaders
        let json = error.body
        headers[.contentLength] = String(json.readableBytes)
        ResponseHead.write(status: error.status, headers: headers, date: date, connection: connection, into: &head)
        return json
    }
}

extension FastTileAnswer {
    /// The `Connection` header of an answer: `close` when the client does not keep the connection
    /// (HTTP/1.0 unless told, or `Connection: close`), `keep-alive` for an HTTP/1.0 client that
    /// asked for it, none otherwise (HTTP/1.1 keeps it unless told).
    static func connectionHeader(keepAlive: Bool, http10: Bool) -> String? {
        keepAlive ? (http10 ? "keep-alive" : nil) : "close"
    }
}

/// Who a connection's requests come from, for prefetch: the configured client header's value
/// (at most 128 characters), else the remote address, formatted once per connection
/// (`inet_ntop` is not free); nil with prefetch off.
struct PrefetchClient {
    private let prefetch: Bool
    private let header: String?
    private var peer: String?
    private var peerKnown = false

    init(_ config: CacheConfiguration) {
        prefetch = config.prefetch
        header = config.clientHeader
    }

    /// `headerValue`: the client header's value in this request, if the header is configured and sent.
    mutating func name(headerValue: Substring?, context: ChannelHandlerContext) -> String? {
        name(headerValue: headerValue) { context.remoteAddress?.ipAddress }
    }

    /// `address`: the remote address as text, asked once per connection.
    mutating func name(headerValue: Substring?, address: () -> String?) -> String? {
        guard prefetch else { return nil }
        if header != nil, let headerValue { return String(headerValue.prefix(128)) }
        if !peerKnown {
            peer = address()
            peerKnown = true
        }
        return peer
    }

    /// The configured client header, if any.
    var headerName: String? { header }
}
