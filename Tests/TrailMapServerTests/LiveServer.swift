import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import ServiceLifecycle
import Testing
@testable import TrailMapServer

/// Which socket layer owns the server's TCP port in a test.
enum ServingPath: String, CaseIterable, Sendable, CustomTestStringConvertible {
    /// `RawTileServer`'s tile loops (two threads), as `trailmap serve` runs by default: they answer
    /// free tiles themselves and hand every other connection to Hummingbird on its Unix socket.
    case loops
    /// Hummingbird's NIO pipeline (`tileLoops` 0), where `TileWire` answers tiles.
    case nio

    /// `ServerConfiguration.tileLoops` for this path.
    var tileLoops: Int { self == .loops ? 2 : 0 }

    var testDescription: String { rawValue }
}

/// An application run for a test on a real TCP port of 127.0.0.1, the port `TileServer` reports
/// through `onRunning`. `app.test(.live)` cannot reach the tile loops: it rebinds Hummingbird to a
/// TCP port of its own and reads the port from Hummingbird's channel, so with the loops on, its
/// client still spoke to Hummingbird.
struct LiveApp {
    /// The application, built (not yet running).
    let app: Application<TileResponder>
    private let ports: AsyncStream<Int>
    private let reported: AsyncStream<Int>.Continuation

    /// `make` builds the application, passing the port callback on to `TileServer.makeApplication`.
    init(_ make: (@escaping @Sendable (Int) async -> Void) throws -> Application<TileResponder>) rethrows {
        let (ports, reported) = AsyncStream<Int>.makeStream()
        self.ports = ports
        self.reported = reported
        app = try make { reported.yield($0) }
    }

    /// Runs the application until `body` returns, then shuts it down gracefully; `body` gets a
    /// client for the port. Once only.
    func test<Value: Sendable>(_ body: (LiveClient) async throws -> Value) async throws -> Value {
        let services = ServiceGroup(configuration: .init(services: [app], logger: app.logger))
        let reported = reported
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                defer { reported.finish() }
                try await services.run()
            }
            var next = ports.makeAsyncIterator()
            guard let port = await next.next() else {
                try await group.waitForAll()
                throw LiveClient.Failure(description: "the server stopped before it listened")
            }
            do {
                let value = try await body(LiveClient(port: port))
                await services.triggerGracefulShutdown()
                try await group.waitForAll()
                return value
            } catch {
                await services.triggerGracefulShutdown()
                throw error
            }
        }
    }
}

/// What a test reads of an HTTP response, from HummingbirdTesting's client or `LiveClient`.
protocol HTTPAnswer: Sendable {
    var status: HTTPResponse.Status { get }
    var headers: HTTPFields { get }
    var body: ByteBuffer { get }
}

extension TestResponse: HTTPAnswer {}

/// A client that sends one request and returns its answer.
protocol HTTPTestClient: Sendable {
    associatedtype Answer: HTTPAnswer
    func execute(uri: String, method: HTTPRequest.Method, headers: HTTPFields, body: ByteBuffer?) async throws -> Answer
}

/// HummingbirdTesting's client (`app.test`) as an `HTTPTestClient`.
struct HummingbirdTestClient: HTTPTestClient {
    let base: any TestClientProtocol

    func execute(uri: String, method: HTTPRequest.Method, headers: HTTPFields, body: ByteBuffer?) async throws -> TestResponse {
        try await base.execute(uri: uri, method: method, headers: headers, body: body)
    }
}

/// A response read by `LiveClient`.
struct LiveResponse: HTTPAnswer {
    let head: HTTPResponse
    let body: ByteBuffer
    var status: HTTPResponse.Status { head.status }
    var headers: HTTPFields { head.headerFields }
}

/// An HTTP/1.1 client of a `LiveApp`: every request on a connection of its own (as
/// HummingbirdTesting's live client sends it, keep-alive), so that each one reaches the socket
/// layer that owns the port first (on the tile loops, a connection with a request for Hummingbird
/// stays with Hummingbird).
struct LiveClient: HTTPTestClient {
    let port: Int?

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    init(port: Int) { self.port = port }

    func execute(
        uri: String, method: HTTPRequest.Method, headers: HTTPFields = [:], body: ByteBuffer? = nil
    ) async throws -> LiveResponse {
        guard let port else { throw Failure(description: "no port") }
        var headers = headers
        headers[.connection] = "keep-alive"
        let request = TestClient.Request(uri, method: method, authority: "localhost", headers: headers, body: body)
        let response = try await TestClient.withClient(host: "127.0.0.1", port: port, configuration: .init(timeout: .seconds(60))) {
            try await $0.execute(request)
        }
        return LiveResponse(head: response.head, body: response.body ?? ByteBuffer())
    }
}
