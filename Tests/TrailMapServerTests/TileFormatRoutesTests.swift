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

/// WebP and JPEG bundles, and 512-px tiles, through a real socket.
@Suite struct TileFormatRoutesTests {
    let fixture = ServerFixture()

    /// `NAME.mbtiles` with every tile of the box at zooms 2...4 in `format`; in a jpg bundle the
    /// zoom-2 tiles are partly transparent (so they are PNG).
    @discardableResult
    func bundle(_ name: String, format: TileFormat, size: Int = 256) throws -> [TileID: [UInt8]] {
        var encoding = TileEncoding(png: .default)
        encoding.format = format
        encoding.quality = 80
        var tiles = [TileID: [UInt8]]()
        for z in 2...4 {
            for t in TileRange(bounds: ServerFixture.box, zoom: z) {
                var image = RGBAImage(width: size, height: size, fill: (UInt8(t.z * 40), UInt8(t.x % 256), UInt8(t.y % 256), 255))
                if z == 2 { for p in stride(from: 3, to: size * 16, by: 4) { image.pixels[p] = 0 } }
                tiles[t] = try encoding.encode(image)
            }
        }
        var meta = BundleMetadata(name: name, bounds: ServerFixture.box, minZoom: 2, maxZoom: 4)
        meta.format = format.rawValue
        meta.extra["trailmap:builder"] = "test"
        meta.extra["trailmap:tilesize"] = String(size)
        try TestBundle.write(tiles, to: fixture.dir.file("\(name).mbtiles"), metadata: meta)
        return tiles
    }

    /// The server of the fixture's folder on a real port, `path` owning it.
    func live(_ path: ServingPath) -> LiveApp {
        var config = ServerConfiguration(tilesDirectory: fixture.dir.path)
        config.port = 0
        config.tileLoops = path.tileLoops
        let made = config
        return LiveApp { TileServer.makeApplication(config: made, onRunning: $0) }
    }

    @Test(arguments: ServingPath.allCases) func webpTilesAtTheirExtensionWithTheirType(path: ServingPath) async throws {
        let tiles = try bundle("w", format: .webp)
        let t = WebMercator.tile(lon: -105, lat: 39, zoom: 4)
        try await live(path).test { client in
            let uri = "/tiles/w/\(t.z)/\(t.x)/\(t.y).webp"
            let r = try await client.execute(uri: uri, method: .get)
            #expect(r.status == .ok && r.headers[.contentType] == "image/webp")
            #expect(Array(buffer: r.body) == tiles[t])
            let etag = try #require(r.headers[.eTag])
            let again = try await client.execute(uri: uri, method: .get, headers: [.ifNoneMatch: etag])
            #expect(again.status == .notModified)
            let wrong = try await client.execute(uri: "/tiles/w/\(t.z)/\(t.x)/\(t.y).png", method: .get)
            #expect(wrong.status == .notFound && wrong.headers[.contentType]?.hasPrefix("application/json") == true)
            let body = TileRoutesTests.json(wrong.body)?["error"] as? [String: Any] ?? TileRoutesTests.json(wrong.body) ?? [:]
            #expect("\(body)".contains("{y}.webp"), "the 404 names the right extension: \(body)")
            let tj = TileRoutesTests.json(try await client.execute(uri: "/tiles/w.json", method: .get).body)
            #expect(tj?["format"] as? String == "webp")
            #expect((tj?["tiles"] as? [String])?.first?.hasSuffix("/tiles/w/{z}/{x}/{y}.webp") == true)
            #expect(tj?["tileSize"] as? Int == 256)
        }
    }

    @Test(arguments: ServingPath.allCases) func jpegBundlesAnswerEachTilesOwnType(path: ServingPath) async throws {
        let tiles = try bundle("j", format: .jpg)
        let opaque = WebMercator.tile(lon: -105, lat: 39, zoom: 4), edge = WebMercator.tile(lon: -105, lat: 39, zoom: 2)
        #expect(TileFormat.sniff(tiles[opaque]!) == .jpg && TileFormat.sniff(tiles[edge]!) == .png)
        try await live(path).test { client in
            let a = try await client.execute(uri: "/tiles/j/\(opaque.z)/\(opaque.x)/\(opaque.y).jpg", method: .get)
            #expect(a.status == .ok && a.headers[.contentType] == "image/jpeg" && Array(buffer: a.body) == tiles[opaque])
            let b = try await client.execute(uri: "/tiles/j/\(edge.z)/\(edge.x)/\(edge.y).jpg", method: .get)
            #expect(b.status == .ok && b.headers[.contentType] == "image/png", "a transparent tile is PNG even at .jpg")
            let c = try await client.execute(uri: "/tiles/j/\(opaque.z)/\(opaque.x)/\(opaque.y).jpeg", method: .get)
            #expect(c.status == .ok)
            let d = try await client.execute(uri: "/tiles/j/\(opaque.z)/\(opaque.x)/\(opaque.y).webp", method: .get)
            #expect(d.status == .notFound)
            let tj = TileRoutesTests.json(try await client.execute(uri: "/tiles/j.json", method: .get).body)
            #expect(tj?["format"] as? String == "jpg" && (tj?["tiles"] as? [String])?.first?.hasSuffix(".jpg") == true)
        }
    }

    @Test(arguments: ServingPath.allCases) func tileJSONGives512PixelTiles(path: ServingPath) async throws {
        try bundle("big", format: .webp, size: 512)
        try await live(path).test { client in
            let tj = TileRoutesTests.json(try await client.execute(uri: "/tiles/big.json", method: .get).body)
            #expect(tj?["tileSize"] as? Int == 512)
            let t = WebMercator.tile(lon: -105, lat: 39, zoom: 3)
            let r = try await client.execute(uri: "/tiles/big/\(t.z)/\(t.x)/\(t.y).webp", method: .get)
            let image = try TileDecoder.decode(Array(buffer: r.body))
            #expect(image.width == 512 && image.height == 512)
        }
    }
}
