import Areas
import Catalog
import CatalogSQLite
import StoreVerification
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import TileGeometry
import TileStore
@testable import TrailMapServer
import TrailMapTestSupport

/// A server with a published catalog and a sandbox store, plus helpers for the store API.
struct StoreFixture {
    let tiles = ServerFixture()
    let catalog: CatalogDatabase
    let sandbox: SandboxStore
    static let bundleId = "com.trailmap.tests"

    /// `coloradoLayers`: the levels of detail the Colorado bundle records.
    init(coloradoLayers: [BundleLayer] = []) throws {
        catalog = try CatalogDatabase(path: tiles.dir.file("catalog.sqlite"), hasher: PasswordHasher(rounds: 1 << 10))
        sandbox = try SandboxStore.initialize(directory: tiles.dir.file("sandbox"), bundleId: Self.bundleId)
        try tiles.bundle("world")
        try tiles.bundle("co", shade: 1, layers: coloradoLayers)
        try tiles.bundle("ut", shade: 2)
        let entries: [[String: Any]] = [
            [
                "productId": "base", "title": "Base map", "category": "Base maps", "price": ["amount": "0", "currency": "USD"],
                "bundle": "world.mbtiles"
            ],
            [
                "productId": "colorado", "title": "Colorado", "category": "States/Colorado", "description": "CO",
                "price": ["amount": "4.99", "currency": "USD"], "bundle": "co.mbtiles"
            ],
            [
                "productId": "utah", "title": "Utah", "category": "States/Utah", "price": ["amount": "3.99", "currency": "USD"],
                "bundle": "ut.mbtiles"
            ]
        ]
        let file = tiles.dir.file("products.json")
        try JSONSerialization.data(withJSONObject: ["products": entries]).write(to: URL(fileURLWithPath: file))
        _ = try catalog.publish(try ProductFile.load(path: file), tilesDirectory: tiles.dir.path)
    }

    /// `areaQuoteSpace`: bytes unbought area quotes may take (nil: the server's default);
    /// `previewZooms`: the paid tilesets' preview levels (`ServerConfiguration.previewZooms`).
    func app(
        available: Set<String>? = nil, areaQuoteSpace: Int64? = nil, publicTilesets: Set<String> = [],
        fairness: AreaQuoteFairness? = nil, previewZooms: Int = 0, tileLoops: Int = 0, grantLifetime: Duration = .zero,
        onRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) throws -> Application<TileResponder> {
        var config = ServerConfiguration(tilesDirectory: tiles.dir.path)
        config.port = 0
        config.tileLoops = tileLoops
        config.grantLifetime = grantLifetime
        config.previewZooms = previewZooms
        config.reloadInterval = .milliseconds(100)
        var settings = try StoreSettings(catalog: catalog, verifier: try sandbox.verifier(), sandbox: sandbox, availableProducts: available)
        if let areaQuoteSpace { settings.maxUnboughtAreaBytes = areaQuoteSpace }
        settings.publicTilesets = publicTilesets
        if let fairness { settings.areaQuoteFairness = fairness }
        return TileServer.makeApplication(config: config, store: settings, onRunning: onRunning)
    }

    /// `app(...)` on a real port with `path` owning it.
    func live(
        _ path: ServingPath, available: Set<String>? = nil, publicTilesets: Set<String> = [], previewZooms: Int = 0,
        grantLifetime: Duration = .zero
    ) throws -> LiveApp {
        try LiveApp {
            try app(
                available: available, publicTilesets: publicTilesets, previewZooms: previewZooms, tileLoops: path.tileLoops,
                grantLifetime: grantLifetime, onRunning: $0)
        }
    }

    static func body(_ object: Any) -> ByteBuffer {
        ByteBuffer(bytes: (try? JSONSerialization.data(withJSONObject: object)) ?? Data())
    }

    static func json(_ r: some HTTPAnswer) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(Array(buffer: r.body))) as? [String: Any]) ?? [:]
    }

    static func errorCode(_ r: some HTTPAnswer) -> String? {
        (json(r)["error"] as? [String: Any])?["code"] as? String
    }
}

/// A logged-in account seen through the API, with HummingbirdTesting's client (`app.test`).
typealias APIUser = StoreUser<HummingbirdTestClient>

extension StoreUser where Client == HummingbirdTestClient {
    static func register(_ client: any TestClientProtocol, email: String) async throws -> APIUser {
        try await register(HummingbirdTestClient(base: client), email: email)
    }

    init(client: any TestClientProtocol, token: String, appAccountToken: String) {
        self.init(client: HummingbirdTestClient(base: client), token: token, appAccountToken: appAccountToken)
    }
}

/// A logged-in account seen through the API of a server `Client` speaks to.
struct StoreUser<Client: HTTPTestClient> {
    let client: Client
    let token: String
    let appAccountToken: String

    static func register(_ client: Client, email: String) async throws -> StoreUser {
        let creds = StoreFixture.body(["email": email, "password": "correct horse battery"])
        let json: HTTPFields = [.contentType: "application/json"]
        let r = try await client.execute(uri: "/api/v1/accounts", method: .post, headers: json, body: creds)
        guard r.status == .created else { throw CocoaError(.fileReadUnknown) }
        let s = try await client.execute(uri: "/api/v1/sessions", method: .post, headers: json, body: creds)
        let j = StoreFixture.json(s)
        return StoreUser(client: client, token: j["token"] as? String ?? "", appAccountToken: j["appAccountToken"] as? String ?? "")
    }

    func call(
        _ method: HTTPRequest.Method, _ path: String, _ body: Any? = nil, headers extra: HTTPFields = [:]
    ) async throws -> Client.Answer {
        var h: HTTPFields = [.authorization: "Bearer \(token)", .contentType: "application/json"]
        h.append(contentsOf: extra)
        return try await client.execute(uri: path, method: method, headers: h, body: body.map(StoreFixture.body))
    }

    /// Buys through the sandbox store; returns the purchase answer.
    func buy(_ product: String) async throws -> Client.Answer {
        let t = try await call(.post, "/api/v1/sandbox/transactions", ["productId": product])
        let jws = StoreFixture.json(t)["signedTransaction"] as? String ?? ""
        return try await call(.post, "/api/v1/purchases", ["signedTransaction": jws])
    }
}
