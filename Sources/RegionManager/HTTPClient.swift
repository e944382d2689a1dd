import Foundation
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

/// A thin URLSession wrapper that retries network failures and 5xx answers with exponential backoff.
public struct HTTPClient: Sendable {
    public let retry: RetryPolicy
    private let session: URLSession

    public init(retry: RetryPolicy = .standard, timeout: TimeInterval = 30) {
        self.retry = retry
        let config = URLSessionConfiguration.ephemeral
        config.timeoutIntervalForRequest = timeout
        config.requestCachePolicy = .reloadIgnoringLocalCacheData
        config.urlCache = nil
        config.httpCookieStorage = nil
        session = URLSession(configuration: config)
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
                let (data, response) = try await session.data(for: request)
                guard let http = response as? HTTPURLResponse else {
                    throw RegionManagerError.invalidResponse("not an HTTP response")
                }
                var headers: [String: String] = [:]
                for (k, v) in http.allHeaderFields {
                    if let k = k as? String, let v = v as? String { headers[k.lowercased()] = v }
                }
                let reply = HTTPReply(status: http.statusCode, headers: headers, body: data)
                let retryable = reply.status >= 500 && (idempotent || [502, 503, 504].contains(reply.status))
                guard retryable else { return reply }
                guard attempt < retry.attempts else {
                    throw RegionManagerError.serverFailure(status: reply.status, attempts: attempt,
                                                           message: HTTPClient.errorMessage(reply.body))
                }
                let after = reply.header("retry-after").flatMap(Double.init).map { Duration.milliseconds(Int($0 * 1000)) }
                try await Task.sleep(for: retry.delay(after: attempt, retryAfter: after))
            } catch let error as RegionManagerError {
                throw error
            } catch is CancellationError {
                throw CancellationError()
            } catch {
                guard HTTPClient.isTransient(error), attempt < retry.attempts else {
                    throw RegionManagerError.serverUnreachable(server: server, attempts: attempt,
                                                               reason: HTTPClient.describe(error))
                }
                try await Task.sleep(for: retry.delay(after: attempt))
            }
        }
    }

    static func isTransient(_ error: any Error) -> Bool {
        if let url = error as? URLError {
            switch url.code {
            case .cancelled, .badURL, .unsupportedURL: return false
            default: return true
            }
        }
        return true
    }

    static func describe(_ error: any Error) -> String {
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
