import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
import Raster
import Testing
import TileGeometry
import TileStore
@testable import TrailMapServer
import TrailMapTestSupport

/// Every tile variant (png; WebP lossless, lossy, 512 px; jpg with PNG edge tiles) over a real
/// socket: each tile's own Content-Type, ETag and 304, the wrong extension's 404 with a hint,
/// TileJSON and the tileset list.
@Suite struct TileVariantRoutesTests {
    let fixture = ServerFixture()

    /// `v.mbtiles` in the fixture's folder; returns its tiles.
    func bundle(_ variant: TileVariant, name: String = "v") throws -> [TileID: [UInt8]] {
        try TestBundle.variant(variant, to: fixture.dir.file("\(name).mbtiles"))
    }

    func app(emptyTiles: ServerConfiguration.EmptyTiles = .notFound) -> Application<TileResponder> {
        var config = ServerConfiguration(tilesDirectory: fixture.dir.path)
        config.port = 0
        config.emptyTiles = emptyTiles
        return TileServer.makeApplication(config: config)
    }

    /// `app()` on a real port with `path` owning it.
    func live(_ path: ServingPath, emptyTiles: ServerConfiguration.EmptyTiles = .notFound) -> LiveApp {
        var config = ServerConfiguration(tilesDirectory: fixture.dir.path)
        config.port = 0
        config.tileLoops = path.tileLoops
        config.emptyTiles = emptyTiles
        let made = config
        return LiveApp { TileServer.makeApplication(config: made, onRunning: $0) }
    }

    static func path(_ t: TileID, _ ext: String) -> String { "/tiles/v/\(t.z)/\(t.x)/\(t.y).\(ext)" }

    /// Another extension than the variant's, for the 404.
    static func wrongExtension(_ variant: TileVariant) -> String { variant.format == .png ? "webp" : "png" }

    @Test(arguments: TileVariant.all, ServingPath.allCases)
    func eachTileIsAnsweredWithItsOwnType(variant: TileVariant, path: ServingPath) async throws {
        let tiles = try await computed { try bundle(variant) }
        let (opaque, edge) = (VariantTiles.opaqueTile, VariantTiles.edgeTile)
        let ext = variant.format.fileExtension
        let expected = [
            opaque: variant.format == .jpg ? "image/jpeg" : variant.format.contentType,
            edge: variant.format == .jpg ? "image/png" : variant.format.contentType
        ]
        try await live(path).test { client in
            let port = try #require(client.port)
            // The fast path answers these, pipelined on one connection.
            let first = try await RawHTTP.exchange(
                port: port,
                [opaque, edge].map { "GET \(Self.path($0, ext)) HTTP/1.1\r\nHost: x\r\n\r\n" }.joined()
                    + "HEAD \(Self.path(edge, ext)) HTTP/1.1\r\nHost: x\r\n\r\n", heads: [false, false, true])
            #expect(first.map(\.status) == [200, 200, 200])
            for (t, r) in zip([opaque, edge, edge], first) {
                #expect(r.headers["content-type"] == expected[t], "\(variant) \(t)")
                #expect(r.headers["content-length"] == String(tiles[t]!.count))
            }
            #expect(first[0].body == tiles[opaque] && first[1].body == tiles[edge])
            let etags = try first.prefix(2).map { try #require($0.headers["etag"]) }
            #expect(etags == [opaque, edge].map { "\"\(TileHash.id(tiles[$0]!))\"" } && first[2].headers["etag"] == etags[1])
            let decoded = try TileDecoder.decode(first[1].body, declared: variant.format)
            #expect(
                decoded.width == variant.tileSize && decoded.pixels[3] == 0 && decoded.pixels.last == 255,
                "an edge tile is partly transparent")

            // 304 for every format, with the ETag and no body.
            let again = try await RawHTTP.exchange(
                port: port,
                zip([opaque, edge], etags).map { t, etag in
                    "GET \(Self.path(t, ext)) HTTP/1.1\r\nHost: x\r\nIf-None-Match: \(etag)\r\n\r\n"
                }.joined(), heads: [false, false])
            #expect(again.map(\.status) == [304, 304] && again.map { $0.headers["etag"] } == etags && again.allSatisfy(\.body.isEmpty))

            // Another extension: 404 JSON naming the right URL.
            let wrong = try await RawHTTP.exchange(
                port: port, "GET \(Self.path(opaque, Self.wrongExtension(variant))) HTTP/1.1\r\nHost: x\r\n\r\n", heads: [false])[0]
            #expect(wrong.status == 404 && wrong.headers["content-type"]?.hasPrefix("application/json") == true)
            let error = (try JSONSerialization.jsonObject(with: Data(wrong.body)) as? [String: Any])?["error"] as? [String: String]
            #expect(error?["code"] == "wrong_extension")
            #expect(error?["message"]?.contains(Self.path(opaque, ext)) == true, "\(String(describing: error))")
            let bare = try await RawHTTP.exchange(
                port: port, "GET /tiles/v/\(opaque.z)/\(opaque.x)/\(opaque.y) HTTP/1.1\r\nHost: x\r\n\r\n", heads: [false])[0]
            #expect(
                bare.status == 404 && String(decoding: bare.body, as: UTF8.self).contains("{y}.\(ext)"),
                "\(String(decoding: bare.body, as: UTF8.self))")

            // TileJSON and the list.
            let tj = TileRoutesTests.json(try await client.execute(uri: "/tiles/v.json", method: .get).body)
            #expect(tj?["format"] as? String == variant.format.rawValue)
            #expect(
                (tj?["tiles"] as? [String])?.first?.hasSuffix("/tiles/v/{z}/{x}/{y}.\(ext)") == true, "\(String(describing: tj?["tiles"]))")
            #expect(tj?["tileSize"] as? Int == variant.tileSize)
            let list = TileRoutesTests.json(try await client.execute(uri: "/tiles", method: .get).body)
            let entry = (list?["tilesets"] as? [[String: Any]])?.first
            #expect(entry?["format"] as? String == variant.format.rawValue && entry?["tileSize"] as? Int == variant.tileSize)
        }
    }

    /// A jpg bundle answers `.jpeg` too; its edge tiles are `image/png` there as well.
    @Test(arguments: ServingPath.allCases) func jpgBundlesAnswerTheJpegExtension(path: ServingPath) async throws {
        let tiles = try await computed { try bundle(.jpg) }
        try await live(path).test { client in
            let port = try #require(client.port)
            let r = try await RawHTTP.exchange(
                port: port,
                [VariantTiles.opaqueTile, VariantTiles.edgeTile].map {
                    "GET \(Self.path($0, "jpeg")) HTTP/1.1\r\nHost: x\r\n\r\n"
                }.joined(), heads: [false, false])
            #expect(r.map(\.status) == [200, 200])
            #expect(r.map { $0.headers["content-type"] } == ["image/jpeg", "image/png"])
            #expect(r[0].body == tiles[VariantTiles.opaqueTile] && r[1].body == tiles[VariantTiles.edgeTile])
        }
    }

    /// Hummingbird's path (no fast path: the router is called directly) sends the same headers.
    @Test(arguments: [TileVariant.jpg, .webpLossy])
    func theRouterPathSendsTheSameType(variant: TileVariant) async throws {
        let tiles = try await computed { try bundle(variant) }
        try await app().test(.router) { client in
            for t in [VariantTiles.opaqueTile, VariantTiles.edgeTile] {
                let r = try await client.execute(uri: Self.path(t, variant.format.fileExtension), method: .get)
                #expect(r.status == .ok && r.headers[.contentType] == TileFormat.sniff(tiles[t]!)?.contentType)
                #expect(Array(buffer: r.body) == tiles[t])
                let etag = try #require(r.headers[.eTag])
                let again = try await client.execute(
                    uri: Self.path(t, variant.format.fileExtension), method: .get, headers: [.ifNoneMatch: etag])
                #expect(again.status == .notModified && again.headers[.contentType] == nil)
            }
        }
    }

    /// `--empty-tiles transparent` in a WebP bundle of 512-px tiles: a PNG of 512 px, labelled PNG.
    @Test(arguments: ServingPath.allCases) func emptyTilesAreTransparentPNGsOfTheTileSize(path: ServingPath) async throws {
        _ = try await computed { try bundle(.webp512) }
        let outside = WebMercator.tile(lon: -80, lat: 20, zoom: 5)
        try await live(path, emptyTiles: .transparent).test { client in
            let port = try #require(client.port)
            let r = try await RawHTTP.exchange(port: port, "GET \(Self.path(outside, "webp")) HTTP/1.1\r\nHost: x\r\n\r\n", heads: [false])[
                0]
            #expect(r.status == 200 && r.headers["content-type"] == "image/png")
            let image = try TileDecoder.decode(r.body)
            #expect(image.width == 512 && image.isFullyTransparent)
        }
    }
}
