import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Raster
import Testing
import TileGeometry
import TileStore
@testable import TrailMapServer
import TrailMapTestSupport

/// The server's routes through a real socket on an ephemeral loopback port, with the tile loops
/// owning it and with Hummingbird owning it: the same answers either way.
@Suite struct TileRoutesTests {
    let fixture = ServerFixture()

    func app(_ path: ServingPath, _ configure: (inout ServerConfiguration) -> Void = { _ in }) -> LiveApp {
        var config = ServerConfiguration(tilesDirectory: fixture.dir.path)
        config.port = 0
        config.reloadInterval = .milliseconds(100)
        config.tileLoops = path.tileLoops
        configure(&config)
        let made = config
        return LiveApp { TileServer.makeApplication(config: made, onRunning: $0) }
    }

    static func json(_ buffer: ByteBuffer) -> [String: Any]? {
        try? JSONSerialization.jsonObject(with: Data(Array(buffer: buffer))) as? [String: Any]
    }

    @Test(arguments: ServingPath.allCases) func servesTilesWithCachingHeaders(path: ServingPath) async throws {
        try fixture.bundle("co")
        let tile = WebMercator.tile(lon: -105, lat: 39, zoom: 4)
        let expected = try ServerFixture.png(tile)
        try await app(path).test { client in
            let uri = "/tiles/co/\(tile.z)/\(tile.x)/\(tile.y).png"
            let r = try await client.execute(uri: uri, method: .get)
            #expect(r.status == .ok)
            #expect(Array(buffer: r.body) == expected)
            #expect(r.headers[.contentType] == "image/png")
            #expect(r.headers[.accessControlAllowOrigin] == "*")
            #expect(r.headers[.cacheControl]?.contains("max-age=") == true)
            let etag = try #require(r.headers[.eTag])
            #expect(etag == "\"\(TileHash.id(expected))\"", "strong ETag from the content")

            let cached = try await client.execute(uri: uri, method: .get, headers: [.ifNoneMatch: etag])
            #expect(cached.status == .notModified && cached.body.readableBytes == 0)
            #expect(cached.headers[.eTag] == etag)
            let weakList = try await client.execute(uri: uri, method: .get, headers: [.ifNoneMatch: "\"other\", W/\(etag)"])
            #expect(weakList.status == .notModified)
            let stale = try await client.execute(uri: uri, method: .get, headers: [.ifNoneMatch: "\"stale\""])
            #expect(stale.status == .ok)

            let head = try await client.execute(uri: uri, method: .head)
            #expect(head.status == .ok && head.body.readableBytes == 0)
            #expect(head.headers[.contentLength] == String(expected.count) && head.headers[.eTag] == etag)

            // Another tile has another ETag.
            let other = try await client.execute(uri: "/tiles/co/\(tile.z)/\(tile.x + 1)/\(tile.y).png", method: .get)
            #expect(other.headers[.eTag] != etag)
        }
    }

    @Test(arguments: ServingPath.allCases) func servesTileJSONAndTheList(path: ServingPath) async throws {
        try fixture.bundle("co")
        _ = try fixture.plainBundle("plain")
        try await app(path).test { client in
            let r = try await client.execute(uri: "/tiles/co.json", method: .get)
            #expect(r.status == .ok)
            let doc = try #require(Self.json(r.body))
            #expect(doc["tilejson"] as? String == "3.0.0")
            #expect(doc["minzoom"] as? Int == 2 && doc["maxzoom"] as? Int == 4)
            #expect(doc["name"] as? String == "Bundle co" && doc["attribution"] as? String == "test data")
            #expect((doc["bounds"] as? [Double]) == [-110, 36, -101, 42])
            #expect((doc["center"] as? [Double])?.count == 3)
            let template = try #require((doc["tiles"] as? [String])?.first)
            #expect(template == "/tiles/co/{z}/{x}/{y}.png", "relative to the server without a public URL")

            let gz = try await client.execute(uri: "/tiles/co.json", method: .get, headers: [.acceptEncoding: "br, gzip"])
            #expect(gz.headers[.contentEncoding] == "gzip")
            let unzipped = try #require(gunzip(Array(buffer: gz.body)))
            #expect(unzipped == Array(buffer: r.body))
            let refused = try await client.execute(uri: "/tiles/co.json", method: .get, headers: [.acceptEncoding: "gzip;q=0"])
            #expect(refused.headers[.contentEncoding] == nil)

            let list = try #require(Self.json(try await client.execute(uri: "/tiles", method: .get).body))
            let ids = (list["tilesets"] as? [[String: Any]])?.compactMap { $0["id"] as? String }
            #expect(ids == ["co", "plain"])

            // A bundle from another tool: plain tiles table, zoom range read from the tiles.
            let plainTile = try await client.execute(uri: "/tiles/plain/1/0/0.png", method: .get)
            #expect(plainTile.status == .ok)
            #expect(plainTile.headers[.eTag] == "\"\(TileValidator.etag(Array(buffer: plainTile.body)))\"")
            let plainDoc = try #require(Self.json(try await client.execute(uri: "/tiles/plain.json", method: .get).body))
            #expect(plainDoc["minzoom"] as? Int == 1 && plainDoc["maxzoom"] as? Int == 1)
        }
    }

    @Test(arguments: ServingPath.allCases) func answersBadRequestsWithJSONErrors(path: ServingPath) async throws {
        let missing = WebMercator.tile(lon: -105, lat: 39, zoom: 3)
        try fixture.bundle("co", missing: missing)
        let cases: [(String, HTTPRequest.Method, HTTPResponse.Status)] = [
            ("/tiles/co/a/b/c.png", .get, .badRequest),
            ("/tiles/co/-1/0/0.png", .get, .badRequest),
            ("/tiles/co/3/8/0.png", .get, .badRequest),
            ("/tiles/co/3/0/8.png", .get, .badRequest),
            ("/tiles/co/23/0/0.png", .get, .badRequest),
            ("/tiles/co/99999999999999999999999/0/0.png", .get, .badRequest),
            ("/tiles/co/3/1.5/0.png", .get, .badRequest),
            ("/tiles/co/1/0/0.png", .get, .badRequest),
            ("/tiles/co/3/\(missing.x)/\(missing.y).png", .get, .notFound),
            ("/tiles/co/3/1/1.jpg", .get, .notFound),
            ("/tiles/nope/3/1/1.png", .get, .notFound),
            ("/tiles/nope.json", .get, .notFound),
            ("/tiles/%2e%2e/3/1/1.png", .get, .badRequest),
            ("/tiles/..%2F..%2Fetc/3/1/1.png", .get, .badRequest),
            ("/tiles/.hidden/3/1/1.png", .get, .badRequest),
            ("/tiles/%2Fetc%2Fpasswd.json", .get, .badRequest),
            ("/tiles/%ZZ/3/1/1.png", .get, .badRequest),
            ("/tiles/co/3/1/1/extra.png", .get, .notFound),
            ("/nothing/here", .get, .notFound),
            ("/tiles/co/3/1/1.png", .post, .methodNotAllowed),
            ("/tiles/co/3/1/1.png", .delete, .methodNotAllowed),
            ("/" + String(repeating: "a", count: 3000), .get, .badRequest)
        ]
        try await app(path).test { client in
            for (uri, method, status) in cases {
                let r = try await client.execute(uri: uri, method: method)
                #expect(r.status == status, "\(method) \(uri.prefix(60))")
                let body = Self.json(r.body)?["error"] as? [String: Any]
                #expect(body?["code"] is String && (body?["message"] as? String)?.isEmpty == false, "\(uri.prefix(60))")
                #expect(r.headers[.contentType]?.hasPrefix("application/json") == true)
            }
            let options = try await client.execute(uri: "/tiles/co/3/1/1.png", method: .options)
            #expect(options.headers[.accessControlAllowMethods]?.contains("GET") == true)

            // A tile the bundle lacks is looked up once per request (not again by a second path).
            func misses() async throws -> Double? {
                let text = String(buffer: try await client.execute(uri: "/metrics", method: .get).body)
                return text.split(separator: "\n").first { $0.hasPrefix("trailmap_cache_misses_total ") }
                    .flatMap { Double($0.split(separator: " ").last ?? "") }
            }
            let before = try #require(try await misses())
            let r = try await client.execute(uri: "/tiles/co/3/\(missing.x)/\(missing.y).png", method: .get)
            #expect(
                r.status == .notFound && Self.json(r.body).map { ($0["error"] as? [String: Any])?["code"] as? String } == "tile_not_found")
            #expect(try await misses() == before + 1)
        }
    }

    @Test(arguments: ServingPath.allCases) func answersTransparentTilesWhenAsked(path: ServingPath) async throws {
        let missing = WebMercator.tile(lon: -105, lat: 39, zoom: 3)
        try fixture.bundle("co", missing: missing)
        try await app(path) { $0.emptyTiles = .transparent }.test { client in
            let r = try await client.execute(uri: "/tiles/co/3/\(missing.x)/\(missing.y).png", method: .get)
            #expect(r.status == .ok && r.headers[.contentType] == "image/png")
            let image = try PNGDecoder.decode(Array(buffer: r.body))
            #expect(image.width == 256 && image.isFullyTransparent)
        }
    }

    @Test(arguments: ServingPath.allCases) func servesTheViewerHealthAndMetrics(path: ServingPath) async throws {
        try fixture.bundle("co")
        try await app(path).test { client in
            let page = try await client.execute(uri: "/", method: .get)
            #expect(page.status == .ok && String(buffer: page.body).contains("/viewer/leaflet.js"))
            #expect(!String(buffer: page.body).contains("://unpkg") && !String(buffer: page.body).contains("cdn"))
            if FileManager.default.fileExists(atPath: "/usr/share/javascript/leaflet/leaflet.js") {
                let js = try await client.execute(uri: "/viewer/leaflet.js", method: .get)
                #expect(js.status == .ok && js.body.readableBytes > 10_000)
            }
            let health = try #require(Self.json(try await client.execute(uri: "/healthz", method: .get).body))
            #expect(health["status"] as? String == "ok" && health["tilesets"] as? Int == 1)
            _ = try await client.execute(uri: "/tiles/co/2/0/0.png", method: .get)
            let metrics = String(buffer: try await client.execute(uri: "/metrics", method: .get).body)
            #expect(metrics.contains("trailmap_http_requests_total{route=\"tile\""))
            #expect(metrics.contains("trailmap_http_request_duration_seconds_bucket"))
            #expect(metrics.contains("trailmap_http_response_bytes_total"))
            #expect(metrics.contains("trailmap_tiles_served_total"))
        }
    }
}
