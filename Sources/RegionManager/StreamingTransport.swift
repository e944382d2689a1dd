import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Sends requests through AsyncHTTPClient and hands over each answer as it arrives, never whole
/// in memory: status and headers first (the caller may refuse the answer there, and says how
/// many body bytes it accepts), then the body in pieces with back-pressure. A body that passes
/// its limit is cut off at once (the connection is closed, nothing more is read). Redirects are
/// not followed, so credentials never travel to another origin.
struct StreamingTransport: Sendable {
    /// What a request does with its answer.
    struct Handlers {
        /// Status and headers (lower-cased names) → the byte limit of the body; throwing refuses the answer.
        var head: (Int, [String: String]) throws -> Int64
        /// A piece of the body; throwing stops the request with that error.
        var body: (Data) throws -> Void
    }

    /// Idle time allowed between bytes received (and to connect).
    let timeout: TimeInterval
    private let client: AsyncHTTPClient.HTTPClient

    init(timeout: TimeInterval) {
        self.timeout = timeout
        client = Self.client(idle: timeout)
    }

    /// Sends `request` once and feeds its answer to `handlers`; returns when the body is complete.
    func run(_ request: URLRequest, _ handlers: Handlers) async throws {
        guard let url = request.url?.absoluteString else { throw RegionManagerError.invalidResponse("a request without a URL") }
        var r = HTTPClientRequest(url: url)
        r.method = HTTPMethod(rawValue: request.httpMethod ?? "GET")
        for (name, value) in request.allHTTPHeaderFields ?? [:] { r.headers.add(name: name, value: value) }
        if let body = request.httpBody { r.body = .bytes(ByteBuffer(bytes: body)) }
        // The deadline covers a whole exchange; the idle timeout (between bytes) is the client's.
        let response = try await client.execute(r, timeout: .hours(24))
        var headers: [String: String] = [:]
        for (name, value) in response.headers {
            let key = name.lowercased()
            headers[key] = headers[key].map { "\($0), \(value)" } ?? value
        }
        let limit = try handlers.head(Int(response.status.code), headers)
        if let length = headers["content-length"].flatMap(Int64.init), length > limit {
            throw RegionManagerError.invalidResponse("the server's answer has \(length) bytes, more than the \(limit) asked for")
        }
        var received: Int64 = 0
        for try await buffer in response.body {
            received += Int64(buffer.readableBytes)
            guard received <= limit else {
                throw RegionManagerError.invalidResponse("the server sent more than the \(limit) bytes asked for")
            }
            try handlers.body(Data(buffer.readableBytesView))
        }
    }

    /// One AsyncHTTPClient per idle timeout, for the life of the process (they are never shut
    /// down, as the library requires of a client that is never released).
    private static func client(idle: TimeInterval) -> AsyncHTTPClient.HTTPClient {
        clients.withLock { map in
            let key = Int64((idle * 1000).rounded())
            if let c = map[key] { return c }
            let amount = TimeAmount.milliseconds(key)
            var pool = AsyncHTTPClient.HTTPClient.Configuration.ConnectionPool()
            // A refused connection fails the attempt at once; `RetryingHTTPClient` retries with its own policy.
            pool.retryConnectionEstablishment = false
            let config = AsyncHTTPClient.HTTPClient.Configuration(
                redirectConfiguration: .disallow, timeout: .init(connect: amount, read: amount), connectionPool: pool)
            let c = AsyncHTTPClient.HTTPClient(eventLoopGroup: AsyncHTTPClient.HTTPClient.defaultEventLoopGroup, configuration: config)
            map[key] = c
            return c
        }
    }

    private static let clients = Mutex<[Int64: AsyncHTTPClient.HTTPClient]>([:])
}
