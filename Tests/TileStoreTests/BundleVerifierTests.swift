import Foundation
import GRDB
import Testing
import TileGeometry
import TileStore
import TrailMapTestSupport

@Suite(.computeThreads) struct BundleVerifierTests {
    let dir = TemporaryDirectory()

    func makeBundle(
        _ name: String, tiles: [(TileID, [UInt8])], minZoom: Int = 0, maxZoom: Int = 3,
        extra: [String: String] = [:]
    ) throws -> String {
        let path = dir.file(name)
        let writer = try BundleWriter(path: path)
        try writer.add(tiles.map { (tile: $0.0, data: $0.1) })
        var meta = BundleMetadata(
            name: "v", bounds: GeoBounds(west: -20, south: -20, east: 20, north: 20), minZoom: minZoom, maxZoom: maxZoom)
        meta.extra = extra
        _ = try writer.finish(metadata: meta)
        return path
    }

    static let layers = [
        BundleLayer(name: "quads-30", title: "30-minute maps", kind: .series, minzoom: 0, maxzoom: 1, sources: ["a.tif"]),
        BundleLayer(name: "trails", title: "Trails", kind: .overlay, minzoom: 0, maxzoom: 3, sources: ["trails.tif"])
    ]

    @Test func acceptsRecordedLevelsOfDetail() throws {
        let path = try makeBundle(
            "layers.mbtiles", tiles: [(TileID(z: 1, x: 0, y: 0)!, [7])],
            extra: [BundleLayer.metadataKey: BundleLayer.encode(Self.layers)])
        #expect(BundleVerifier.verify(path: path) { _, _ in nil } == [])
    }

    /// An invalid `trailmap:layers` value is a problem, with what is wrong in it.
    @Test(arguments: [
        ("levels", "not a JSON array of layers"),
        (#"{"name": "quads-30"}"#, "not a JSON array of layers"),
        (#"[{"name": "q", "kind": "series", "minzoom": 0, "maxzoom": 1, "sources": []}]"#, #""title" is missing at layer 1"#),
        (
            #"[{"name": "q", "title": "Q", "kind": "photo", "minzoom": 0, "maxzoom": 1, "sources": []}]"#,
            "kind must be series or overlay at layer 1"
        ),
        (
            #"[{"name": "q", "title": "Q", "kind": "series", "minzoom": "8", "maxzoom": 1, "sources": []}]"#,
            #"wrong type at layer 1, "minzoom""#
        ),
        (
            #"[{"name": "q", "title": "Q", "kind": "series", "minzoom": 0, "maxzoom": 1, "sources": []},"#
                + #" {"name": "t", "title": "T", "kind": "overlay", "minzoom": 3, "maxzoom": 2, "sources": []}]"#,
            #"layer 2 ("t") has minzoom 3 and maxzoom 2"#
        )
    ])
    func invalidLevelsOfDetailAreAProblem(value: String, reason: String) throws {
        let path = try makeBundle("bad-layers.mbtiles", tiles: [(TileID(z: 1, x: 0, y: 0)!, [7])], extra: [BundleLayer.metadataKey: value])
        let problems = BundleVerifier.verify(path: path) { _, _ in nil }
        #expect(problems == ["metadata \"trailmap:layers\" is not a valid layer list: \(reason)"])
    }

    @Test func levelsOutsideTheBundlesZoomsAreAProblem() throws {
        var layers = Self.layers
        layers[1].maxzoom = 5
        let path = try makeBundle(
            "wide.mbtiles", tiles: [(TileID(z: 1, x: 0, y: 0)!, [7])],
            extra: [BundleLayer.metadataKey: BundleLayer.encode(layers)])
        #expect(
            BundleVerifier.verify(path: path) { _, _ in nil } == ["layer \"trails\" serves zooms 0–5, outside the bundle's zooms 0–3"])
    }

    @Test func acceptsASoundBundle() throws {
        let path = try makeBundle("ok.mbtiles", tiles: [(TileID(z: 1, x: 0, y: 0)!, [7])])
        #expect(BundleVerifier.verify(path: path) { _, _ in nil }.isEmpty)
    }

    @Test func listsEveryProblem() throws {
        let path = try makeBundle(
            "bad.mbtiles", tiles: [(TileID(z: 1, x: 0, y: 0)!, [7]), (TileID(z: 2, x: 1, y: 1)!, [8])],
            minZoom: 0, maxZoom: 1)
        let db = try DatabaseQueue(path: path)
        try db.write { db in
            try db.execute(sql: "DELETE FROM metadata WHERE name = 'attribution'")
            try db.execute(sql: "UPDATE metadata SET value = 'gif' WHERE name = 'format'")
            try db.execute(sql: "INSERT INTO map VALUES (1, 5, 0, (SELECT tile_id FROM images LIMIT 1))")
        }
        let problems = BundleVerifier.verify(path: path) { _, data in data == Data([8]) ? "bad pixels" : nil }
        #expect(problems.contains { $0.contains("attribution") })
        #expect(problems.contains { $0.contains("\"gif\"") })
        #expect(problems.contains { $0.contains("2/1/1") && $0.contains("zoom range") })
        #expect(problems.contains { $0.contains("2/1/1: bad pixels") })
        #expect(problems.contains { $0.contains("impossible address") && $0.contains("column=5") })
    }

    @Test func reportsFilesThatAreNotBundles() throws {
        let path = dir.file("junk.mbtiles")
        try Data(repeating: 1, count: 100).write(to: URL(fileURLWithPath: path))
        #expect(BundleVerifier.verify(path: path) { _, _ in nil }.count == 1)
    }

    @Test func extractsABoundingBox() throws {
        var tiles = [(TileID, [UInt8])]()
        for z in 0...3 {
            for t in TileRange(bounds: GeoBounds(west: -20, south: -20, east: 20, north: 20), zoom: z) {
                tiles.append((t, [UInt8(z), UInt8(t.x), UInt8(t.y)]))
            }
        }
        let path = try makeBundle("big.mbtiles", tiles: tiles)
        let box = GeoBounds(west: 1, south: 1, east: 10, north: 10)
        let out = dir.file("small.mbtiles")
        let stats = try BundleExtractor.extract(from: path, bbox: box, to: out, name: "small")
        let reader = try BundleReader(path: out)
        var seen = [TileID]()
        try reader.forEachTile { t, d in
            #expect(d == Data([UInt8(t.z), UInt8(t.x), UInt8(t.y)]))
            seen.append(t)
            return true
        }
        let expected = (0...3).flatMap { Array(TileRange(bounds: box, zoom: $0)) }
        #expect(Set(seen) == Set(expected))
        #expect(stats.tiles == expected.count)
        var problems = [String]()
        let meta = try reader.metadata(problems: &problems)
        #expect(meta.name == "small" && meta.bounds == box && problems.isEmpty)
    }

    @Test func refusesABoxOutsideTheBundle() throws {
        let path = try makeBundle("e.mbtiles", tiles: [(TileID(z: 0, x: 0, y: 0)!, [1])])
        #expect(throws: TileStoreError.self) {
            try BundleExtractor.extract(from: path, bbox: GeoBounds(west: 100, south: 50, east: 110, north: 60), to: dir.file("x.mbtiles"))
        }
        #expect(!dir.contents.contains { $0.contains("x.mbtiles") })
    }
}
