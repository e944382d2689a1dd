import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import Testing
import TileGeometry
import TileStore
@testable import TrailMapServer
import TrailMapTestSupport

/// `NAME.pmtiles` in the tiles folder is served exactly like `NAME.mbtiles`: the same tiles,
/// ETags and content types, 404s and 304s, TileJSON; damaged archives answer 503 while the rest
/// keep serving; replaced archives are reloaded; a name clash serves the `.mbtiles`.
@Suite struct PMTilesServingTests {
    let fixture = ServerFixture()
    /// A tile of the box the bundle lacks.
    static let missing = Array(TileRange(bounds: ServerFixture.box, zoom: 3))[1]

    /// The server of the fixture's folder on a real port, `path` owning it.
    func live(_ path: ServingPath) -> LiveApp {
        var config = ServerConfiguration(tilesDirectory: fixture.dir.path)
        config.port = 0
        config.tileLoops = path.tileLoops
        config.reloadInterval = .milliseconds(100)
        let made = config
        return LiveApp { TileServer.makeApplication(config: made, onRunning: $0) }
    }

    /// Exports `bundle` to `NAME.pmtiles` in the tiles folder (written aside, renamed into place).
    @discardableResult
    func archive(_ name: String, from bundle: String) throws -> String {
        let staging = fixture.dir.file(".staging-\(UUID().uuidString).pmtiles")
        _ = try PMTilesExporter.export(from: bundle, to: staging)
        let path = fixture.dir.file("\(name).pmtiles")
        guard rename(staging, path) == 0 else { throw CocoaError(.fileWriteUnknown) }
        return path
    }

    /// Polls until `check` holds (the folder is rescanned every 100 ms).
    func eventually(_ check: () async throws -> Bool) async throws -> Bool {
        for _ in 0..<100 {
            if try await check() { return true }
            try await Task.sleep(for: .milliseconds(50))
        }
        return false
    }

    @Test(arguments: ServingPath.allCases) func servesEveryTileAsTheBundleDoes(path: ServingPath) async throws {
        let bundle = try fixture.bundle("m", missing: Self.missing)
        try archive("p", from: bundle)
        try await live(path).test { client in
            var compared = 0, expected = 0
            for z in 2...4 {
                expected += Array(TileRange(bounds: ServerFixture.box, zoom: z)).count
                for t in TileRange(bounds: ServerFixture.box, zoom: z) {
                    let m = try await client.execute(uri: "/tiles/m/\(t.z)/\(t.x)/\(t.y).png", method: .get)
                    let p = try await client.execute(uri: "/tiles/p/\(t.z)/\(t.x)/\(t.y).png", method: .get)
                    // (404 bodies name their tileset.)
                    #expect(p.status == m.status && (p.body == m.body || t == Self.missing), "\(t)")
                    // The TrailMap bundle's ETag is its stored content hash; the archive's, computed from the content.
                    #expect(p.headers[.contentType] == m.headers[.contentType])
                    #expect(p.headers[.cacheControl] == m.headers[.cacheControl] && p.headers[.contentLength] == m.headers[.contentLength])
                    if t == Self.missing {
                        #expect(
                            p.status == .notFound
                                && TileRoutesTests.json(p.body).map { ($0["error"] as? [String: Any])?["code"] as? String }
                                    == "tile_not_found"
                        )
                    } else {
                        #expect(p.status == .ok && p.headers[.contentType] == "image/png")
                        let etag = try #require(p.headers[.eTag])
                        #expect(etag == "\"\(TileValidator.etag(Array(buffer: p.body)))\"", "a strong ETag from the content")
                        #expect(m.headers[.eTag] == "\"\(TileHash.id(Array(buffer: m.body)))\"", "the bundle's stored content hash")
                        let again = try await client.execute(
                            uri: "/tiles/p/\(t.z)/\(t.x)/\(t.y).png", method: .get, headers: [.ifNoneMatch: etag])
                        #expect(again.status == .notModified && again.body.readableBytes == 0 && again.headers[.eTag] == etag)
                        compared += 1
                    }
                }
            }
            #expect(compared == expected - 1 && expected > 3, "\(compared) of \(expected)")
            let head = try await client.execute(uri: "/tiles/p/2/0/1.png", method: .head)
            #expect(head.status == .ok && head.body.readableBytes == 0)
            // Outside the zooms, a wrong extension: the same answers as the bundle's.
            for path in ["/tiles/X/7/0/0.png", "/tiles/X/3/0/0.webp", "/tiles/X/3/0/9.png"] {
                let m = try await client.execute(uri: path.replacingOccurrences(of: "X", with: "m"), method: .get)
                let p = try await client.execute(uri: path.replacingOccurrences(of: "X", with: "p"), method: .get)
                #expect(m.status == p.status && m.status != .ok, "\(path): \(m.status) \(p.status)")
            }

            let mj = try #require(TileRoutesTests.json(try await client.execute(uri: "/tiles/m.json", method: .get).body))
            let pj = try #require(TileRoutesTests.json(try await client.execute(uri: "/tiles/p.json", method: .get).body))
            for key in ["minzoom", "maxzoom", "format", "name", "tileSize", "attribution", "scheme"] {
                #expect("\(mj[key] ?? "nil")" == "\(pj[key] ?? "nil")", "\(key)")
            }
            let mb = try #require(mj["bounds"] as? [Double]), pb = try #require(pj["bounds"] as? [Double])
            #expect(zip(mb, pb).allSatisfy { abs($0 - $1) < 1e-7 } && mb.count == 4 && pb.count == 4, "\(mb) \(pb)")
            #expect((pj["tiles"] as? [String])?.first?.hasSuffix("/tiles/p/{z}/{x}/{y}.png") == true)

            // The WMTS layer and the list.
            let caps = String(buffer: try await client.execute(uri: "/wmts/1.0.0/WMTSCapabilities.xml", method: .get).body)
            #expect(caps.contains("<ows:Identifier>p</ows:Identifier>") && caps.contains("<ows:Identifier>m</ows:Identifier>"))
            let tile = try await client.execute(uri: "/wmts/1.0.0/p/default/GoogleMapsCompatible/2/1/0.png", method: .get)
            let direct = try await client.execute(uri: "/tiles/p/2/0/1.png", method: .get)
            #expect(tile.status == .ok && tile.body == direct.body)
            let list =
                TileRoutesTests.json(try await client.execute(uri: "/tiles", method: .get).body)?["tilesets"] as? [[String: Any]] ?? []
            #expect(list.map { $0["status"] as? String } == ["ok", "ok"])

            // Served through the cache: the metrics count its hits.
            let metrics = String(buffer: try await client.execute(uri: "/metrics", method: .get).body)
            let hits = metrics.split(separator: "\n").first { $0.hasPrefix("trailmap_cache_hits_total") }?.split(separator: " ").last
                .flatMap { Double($0) }
            #expect((hits ?? 0) > 0, "\(metrics.prefix(600))")
        }
    }

    /// Truncated, bad magic, version 2, a root entry past the end of the tile data, a damaged leaf:
    /// 503 with a JSON error for that tileset (or the tiles under the leaf), 200 for the rest.
    @Test(arguments: ServingPath.allCases) func damagedArchivesAnswer503AndTheRestKeepServing(path: ServingPath) async throws {
        let bundle = try fixture.bundle("good")
        let truncated = try archive("truncated", from: bundle)
        try PMTilesSurgery.truncate(truncated, to: Int(try PMTilesReader(path: truncated).fileSize) - 10)
        try PMTilesSurgery.setByte(try archive("magic", from: bundle), at: 0, UInt8(ascii: "X"))
        try PMTilesSurgery.setByte(try archive("v2", from: bundle), at: 7, 2)
        let past = try archive("past", from: bundle)
        let dataLength = try PMTilesReader(path: past).header.tileDataLength
        try PMTilesSurgery.editRoot(past) { $0[$0.count - 1].offset = dataLength + 10 }
        let leaves = try archive("leaves", from: bundle)
        try PMTilesSurgery.splitIntoLeaves(leaves, parts: 2)
        let secondLeaf = try PMTilesSurgery.rootEntries(leaves)[1]
        try PMTilesSurgery.editLeaf(leaves, rootIndex: 1) { $0[0].offset = dataLength + 10 }
        try await live(path).test { client in
            for name in ["truncated", "magic", "v2", "past"] {
                for uri in ["/tiles/\(name)/2/0/1.png", "/tiles/\(name).json"] {
                    let r = try await client.execute(uri: uri, method: .get)
                    let error = TileRoutesTests.json(r.body)?["error"] as? [String: Any]
                    #expect(
                        r.status == .serviceUnavailable && r.headers[.contentType]?.hasPrefix("application/json") == true,
                        "\(uri): \(r.status)")
                    #expect(error?["code"] as? String == "tileset_unavailable", "\(uri)")
                }
            }
            let list =
                TileRoutesTests.json(try await client.execute(uri: "/tiles", method: .get).body)?["tilesets"] as? [[String: Any]] ?? []
            let errors = Dictionary(list.map { ($0["id"] as? String ?? "", $0["error"] as? String ?? "") }, uniquingKeysWith: { a, _ in a })
            #expect(errors["truncated"]?.contains("reaches past the end of the file") == true, "\(errors)")
            #expect(errors["magic"]?.contains("does not start with \"PMTiles\"") == true)
            #expect(errors["v2"]?.contains("spec version 2") == true)
            #expect(errors["past"]?.contains("points to byte") == true)
            #expect(errors["good"] == "" && errors["leaves"] == "")

            // The archive with a damaged leaf: tiles under the first leaf serve, those under the second do not.
            let under = try #require(PMTilesFormat.tile(id: secondLeaf.tileID))
            let bad = try await client.execute(uri: "/tiles/leaves/\(under.z)/\(under.x)/\(under.y).png", method: .get)
            #expect(
                bad.status == .serviceUnavailable
                    && (TileRoutesTests.json(bad.body)?["error"] as? [String: Any])?["code"] as? String == "tileset_unavailable")
            let first = try #require(PMTilesFormat.tile(id: try PMTilesReader(path: leaves).rootEntries[0].tileID))
            #expect(try await client.execute(uri: "/tiles/leaves/\(first.z)/\(first.x)/\(first.y).png", method: .get).status == .ok)
            #expect(try await client.execute(uri: "/tiles/good/2/0/1.png", method: .get).status == .ok)
            // The damaged layers are left out of the WMTS capabilities.
            let caps = String(buffer: try await client.execute(uri: "/wmts/1.0.0/WMTSCapabilities.xml", method: .get).body)
            #expect(caps.contains("<ows:Identifier>good</ows:Identifier>") && !caps.contains("<ows:Identifier>magic</ows:Identifier>"))
        }
    }

    @Test(arguments: ServingPath.allCases) func replacedRemovedAndClashingArchives(path: ServingPath) async throws {
        let first = try fixture.bundle("one", shade: 1)
        try archive("x", from: first)
        let uri = "/tiles/x/2/0/1.png"
        try await live(path).test { client in
            let before = try await client.execute(uri: uri, method: .get)
            #expect(before.status == .ok)
            // Replaced on disk: the new archive's tiles.
            let second = try fixture.bundle("two", shade: 77)
            try archive("x", from: second)
            let expected = try #require(try BundleReader(path: second).tile(TileID(z: 2, x: 0, y: 1)!))
            #expect(
                try await eventually {
                    let r = try await client.execute(uri: uri, method: .get)
                    return r.status == .ok && Data(Array(buffer: r.body)) == expected
                }, "replaced")
            #expect(try await client.execute(uri: uri, method: .get).headers[.eTag] != before.headers[.eTag])

            // x.mbtiles beside x.pmtiles: the .mbtiles is served.
            let third = try fixture.bundle("x", shade: 150)
            let fromBundle = try #require(try BundleReader(path: third).tile(TileID(z: 2, x: 0, y: 1)!))
            #expect(
                try await eventually { Data(Array(buffer: try await client.execute(uri: uri, method: .get).body)) == fromBundle }, "clash")
            // Without it, the archive again.
            try FileManager.default.removeItem(atPath: third)
            #expect(
                try await eventually { Data(Array(buffer: try await client.execute(uri: uri, method: .get).body)) == expected },
                "back to the archive")

            try FileManager.default.removeItem(atPath: fixture.dir.file("x.pmtiles"))
            #expect(try await eventually { try await client.execute(uri: uri, method: .get).status == .serviceUnavailable }, "removed")
            #expect(try await client.execute(uri: "/tiles/one/2/0/1.png", method: .get).status == .ok)
        }
    }

    @Test func aNameClashIsResolvedTheSameWayEveryScan() throws {
        let bundle = try fixture.bundle("same", shade: 3)
        try archive("same", from: try fixture.bundle("other", shade: 9))
        let log = CapturedLog()
        let registry = TilesetRegistry(directory: fixture.dir.path, logger: Logger(label: "test") { _ in log })
        registry.refresh()
        guard case let .found(t) = registry.lookup("same") else { Issue.record("not found"); return }
        #expect(t.path == bundle)
        #expect(registry.refresh() == 0, "nothing changes between scans")
        guard case let .found(again) = registry.lookup("same") else { Issue.record("not found"); return }
        #expect(again === t)
        let warnings = log.lines.filter { $0.level == .warning }.map(\.message)
        #expect(warnings.count == 1 && warnings.first?.contains("both same.mbtiles and same.pmtiles") == true, "warned once: \(warnings)")
    }
}
