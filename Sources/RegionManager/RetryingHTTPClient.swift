import AsyncHTTPClient
import Foundation
import TrailMapAPI
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An HTTP answer: status, headers (lower-cased names) and body.
public struct HTTPReply: Sendable {
    public var status: Int
    public var headers: [String: String]
    public var body: Data

    public func header(_ name: String) -> String? { headers[name.lowercased()] }
}

/// A URLSession wrapper that retries network failures and 5xx answers with exponential backoff,
/// and never holds more of an answer in memory than was asked for: API answers are capped at
/// `maxBodyBytes`, bundle bytes stream to disk (`stream`).
public struct RetryingHTTPClient: Sendable {
    public let retry: RetryPolicy
    /// Largest answer `send` keeps in memory; a larger one is refused (`invalidResponse`).
    public let maxBodyBytes: Int
    /// Whether plain `http://` may reach another machine (passwords, tokens and bundles then
    /// cross the network unencrypted). Loopback (`localhost`, 127.0.0.0/8, ::1) is always allowed.
    public let allowsInsecureHTTP: Bool
    private let transport: StreamingTransport

    public init(
        retry: RetryPolicy = .standard, timeout: TimeInterval = 30, maxBodyBytes: Int = 16 << 20,
        allowsInsecureHTTP: Bool = false
    ) {
        self.retry = retry
        self.maxBodyBytes = maxBodyBytes
        self.allowsInsecureHTTP = allowsInsecureHTTP
        transport = StreamingTransport(timeout: timeout)
    }

    /// Sends `request` once (no retries) and streams its body to `body` as it arrives, after
    /// `head` has seen the status and headers and returned how many body bytes it accepts (it may
    /// throw to refuse the answer before any body is read). A longer body, by its Content-Length
    /// or as it arrives, is cut off with `invalidResponse`.
    public func stream(
        _ request: URLRequest, head: @escaping (Int, [String: String]) throws -> Int64,
        body: @escaping (Data) throws -> Void
    ) async throws {
        if let url = request.url, !allowsInsecureHTTP, TransportSecurity.isPlainHTTPToAnotherMachine(url) {
            throw RegionManagerError.insecureHTTP(server: TransportSecurity.origin(url))
        }
        try await transport.run(request, .init(head: head, body: body))
    }

    /// One attempt, its body collected in memory up to `maxBodyBytes`.
    private func once(_ request: URLRequest) async throws -> HTTPReply {
        final class Collected {
            var reply = HTTPReply(status: 0, headers: [:], body: Data())
        }
        let collected = Collected()
        let limit = Int64(maxBodyBytes)
        try await stream(
            request,
            head: { status, headers in
                collected.reply.status = status
                collected.reply.headers = headers
                return limit
            }, body: { collected.reply.body.append($0) })
        return collected.reply
    }

    /// Sends the request; retries connection failures always, 5xx answers when `idempotent`
    /// (502, 503 and 504 always: the request did not reach the application).
    public func send(_ request: URLRequest, idempotent: Bool) async throws -> HTTPReply {
        let server = request.url.map { "\($0.scheme ?? "http")://\($0.host ?? "?")\($0.port.map { ":\($0)" } ?? "")" } ?? "?"
        var attempt = 0
        while true {
            attempt += 1
            try Task.checkCancellation()
            do {
                let reply = try await once(request)
                let retryable = reply.status >= 500 && (idempotent || [502, 503, 504].contains(reply.status))
                guard retryable else { return reply }
                guard attempt < retry.attempts else {
                    throw RegionManagerError.serverFailure(
                        status: reply.status, attempts: attempt,
                        message: RetryingHTTPClient.errorMessage(reply.body))
                }
                let after = ServerInput.retryAfter(reply.header("retry-after"))
                try await Task.sleep(for: retry.delay(after: attempt, retryAfter: after))
            } catch let error as RegionManagerError {
                throw error
            } catch is CancellationError {
                throw CancellationError()
            } catch {
                guard RetryingHTTPClient.isTransient(error), attempt < retry.attempts else {
                    throw RegionManagerError.serverUnreachable(
                        server: server, attempts: attempt,
                        reason: RetryingHTTPClient.describe(error))
                }
                try await Task.sleep(for: retry.delay(after: attempt))
            }
        }
    }

    static func isTransient(_ error: any Error) -> Bool {
        if let e = error as? AsyncHTTPClient.HTTPClientError, [.cancelled, .invalidURL, .emptyHost, .emptyScheme].contains(e) {
            return false
        }
        if let url = error as? URLError {
            switch url.code {
            case .cancelled, .badURL, .unsupportedURL: return false
            default: return true
            }
        }
        return true
    }

    static func describe(_ error: any Error) -> String {
        if let e = error as? AsyncHTTPClient.HTTPClientError {
            switch e {
            case .connectTimeout: return "timed out connecting"
            case .readTimeout, .deadlineExceeded: return "timed out"
            case .remoteConnectionClosed: return "connection lost"
            default: return String(describing: e)
            }
        }
        let text = String(describing: error)
        if text.contains("connection refused") || text.contains("ECONNREFUSED") || text.contains("errno: 111") {
            return "connection refused"
        }
        if let url = error as? URLError {
            switch url.code {
            case .cannotConnectToHost: return "connection refused"
            case .timedOut: return "timed out"
            case .networkConnectionLost: return "connection lost"
            case .cannotFindHost: return "unknown host"
            case .notConnectedToInternet: return "no network"
            default: return url.localizedDescription
            }
        }
        return String(describing: error)
    }

    /// The `message` of an API error body, or the body's start.
    static func errorMessage(_ body: Data) -> String {
        if let e = try? JSONDecoder().decode(APIErrorBody.self, from: body) { return e.error.message }
        return String(decoding: body.prefix(200), as: UTF8.self)
    }
}
