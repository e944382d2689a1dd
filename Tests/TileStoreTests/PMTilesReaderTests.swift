import Foundation
import Synchronization
import Testing
import TileGeometry
@testable import TileStore
import TrailMapTestSupport

/// TrailMap's PMTiles reader reads back what the exporter and an independent writer (PyPI's
/// `pmtiles`) wrote: every tile, through run-length entries, shared contents and leaf directories.
@Suite(.computeThreads) struct PMTilesReaderTests {
    let dir = TemporaryDirectory()

    @Test func tileIDsInvertBackToTheirTiles() {
        for z in 0...TileID.maxZoom {
            let n = 1 << z
            for (x, y) in [(0, 0), (n - 1, 0), (0, n - 1), (n - 1, n - 1), (n / 3, (2 * n) / 3), (n / 2, n / 5)] {
                let t = TileID(z: z, x: x, y: y)!
                #expect(PMTilesFormat.tile(id: PMTilesFormat.tileID(t)) == t, "\(t)")
            }
        }
        #expect(PMTilesFormat.tile(id: 19_078_479) == TileID(z: 12, x: 3423, y: 1763), "the specification's example")
        for t in TileRange(z: 5, minX: 0, maxX: 31, minY: 0, maxY: 31) { #expect(PMTilesFormat.tile(id: PMTilesFormat.tileID(t)) == t) }
        // The first id beyond zoom 22.
        let beyond = (0...TileID.maxZoom).reduce(UInt64(0)) { $0 + (UInt64(1) << (2 * UInt64($1))) }
        #expect(PMTilesFormat.tile(id: beyond - 1) != nil && PMTilesFormat.tile(id: beyond) == nil)
    }

    /// Long runs are summarized by blocks of nested Hilbert cells: the same figures as tile by tile.
    @Test func longRunsSummarizeLikeTileByTile() {
        var rng = SystemRandomNumberGenerator()
        let limit = (0...9).reduce(UInt64(0)) { $0 + (UInt64(1) << (2 * UInt64($1))) }
        for _ in 0..<300 {
            let start = UInt64.random(in: 0..<limit, using: &rng)
            let run = UInt32.random(in: 1...UInt32(min(70_000, limit - start)), using: &rng)
            let e = PMTilesFormat.Entry(tileID: start, offset: 0, length: 3, runLength: run)
            var fast = [Int: ZoomLevelSummary]()
            #expect(PMTilesSummary.add(e, to: &fast) == 0)
            var slow = [Int: ZoomLevelSummary]()
            for id in start..<(start + UInt64(run)) {
                let t = PMTilesFormat.tile(id: id)!
                slow[t.z, default: ZoomLevelSummary(zoom: t.z, tiles: 0, bytes: 0, minX: .max, maxX: .min, minY: .max, maxY: .min)].add(
                    count: 1, bytes: 3)
                slow[t.z]?.cover(minX: t.x, maxX: t.x, minY: t.y, maxY: t.y)
            }
            #expect(fast == slow, "run of \(run) from \(start)")
        }
        // Beyond zoom 22: counted, not summarized.
        let past = (0...TileID.maxZoom).reduce(UInt64(0)) { $0 + (UInt64(1) << (2 * UInt64($1))) }
        var levels = [Int: ZoomLevelSummary]()
        #expect(PMTilesSummary.add(PMTilesFormat.Entry(tileID: past - 2, offset: 0, length: 1, runLength: 5), to: &levels) == 3)
        #expect(levels[22]?.tiles == 2)
    }

    @Test(arguments: [false, true]) func readsEveryExportedTileBack(large: Bool) throws {
        // large: ~115,000 tiles over the conterminous US to zoom 11: leaf directories.
        let (bundle, tiles) = try PMTilesFixture.bundle(
            at: dir.file("b.mbtiles"), zooms: 0...(large ? 11 : 7),
            box: large ? PMTilesFixture.large : PMTilesFixture.small)
        let stats = try PMTilesExporter.export(from: bundle, to: dir.file("b.pmtiles"))
        #expect((stats.leafDirectories > 0) == large)
        // A small leaf cache: lookups keep working while leaves are evicted.
        let reader = try PMTilesReader(path: dir.file("b.pmtiles"), leafCacheEntries: 10_000)
        var mismatches = 0
        for (t, bytes) in tiles where try reader.tile(t) != bytes { mismatches += 1 }
        #expect(mismatches == 0, "\(mismatches) of \(tiles.count) tiles differ")
        if large {
            let cached = reader.cachedLeaves
            #expect(cached.leaves > 0 && cached.entries <= 10_000, "\(cached)")
        }
        // Tiles the bundle lacks: outside the box, beyond its zooms.
        let r = TileRange(bounds: large ? PMTilesFixture.large : PMTilesFixture.small, zoom: 6)
        #expect(try reader.tile(TileID(z: 6, x: r.maxX + 1, y: r.minY)!) == nil)
        #expect(try reader.tile(TileID(z: 6, x: r.minX, y: r.maxY + 1)!) == nil)
        #expect(try reader.tile(TileID(z: 12, x: 0, y: 0)!) == nil)
        #expect(try reader.tile(TileID(z: 22, x: (1 << 22) - 1, y: (1 << 22) - 1)!) == nil)

        // The walk (inspect, verify) sees what the exporter wrote, and the header says the same.
        let summary = PMTilesSummary(reader)
        #expect(summary.problems.isEmpty, "\(summary.problems)")
        #expect(summary.addressedTiles == tiles.count && summary.tileEntries == stats.entries && summary.contents.count == stats.contents)
        #expect(summary.leafDirectories == stats.leafDirectories && summary.clusteredOrder)
        #expect(summary.contentBytes == Int(reader.header.tileDataLength))
        #expect(reader.header.addressedTiles == UInt64(tiles.count) && reader.header.tileEntries == UInt64(stats.entries))
        let levels = try BundleReader(path: bundle).zoomLevels()
        #expect(summary.levels == levels, "per zoom: tiles, bytes, columns and rows as the bundle's")
    }

    @Test func runsAndSharedContentsResolveToTheirBytes() throws {
        let (bundle, tiles) = try PMTilesFixture.bundle(at: dir.file("b.mbtiles"), zooms: 0...7, box: PMTilesFixture.small)
        _ = try PMTilesExporter.export(from: bundle, to: dir.file("b.pmtiles"))
        let reader = try PMTilesReader(path: dir.file("b.pmtiles"))
        let runs = reader.rootEntries.filter { $0.runLength > 1 }
        #expect(!runs.isEmpty, "the fixture has runs of identical tiles")
        for e in runs {
            for id in e.tileID..<(e.tileID + UInt64(e.runLength)) {
                let t = try #require(PMTilesFormat.tile(id: id))
                #expect(try reader.tile(t) == tiles[t] && tiles[t] != nil, "\(t) in a run of \(e.runLength)")
            }
        }
        let offsets = Dictionary(grouping: reader.rootEntries, by: \.offset)
        #expect(offsets.values.contains { $0.count > 1 }, "entries share contents (deduplicated)")
        let pairs = try reader.metadataPairs()
        #expect(pairs["name"] == "PM" && pairs["format"] == "png" && pairs["minzoom"] == "0" && pairs["maxzoom"] == "7")
        #expect(GeoBounds(parsing: pairs["bounds"] ?? "") == PMTilesFixture.small)
    }

    /// An archive written by PyPI's `pmtiles` writer (leaf directories, runs, duplicates) reads back.
    @Test func readsAnArchiveOfAnIndependentWriter() throws {
        let count = 100_000
        let script = """
            import sys
            from pmtiles.writer import Writer
            from pmtiles.tile import Compression, TileType
            n = int(sys.argv[2])
            with open(sys.argv[1], "wb") as f:
                w = Writer(f)
                tile_id = 0
                for i in range(n):
                    # Runs of identical tiles; elsewhere gaps of 1-4 ids and varied lengths (too big for the root: leaves).
                    tile_id += 1 if i == 0 or (i // 7) % 3 == 0 else 1 + ((i * 2654435761) >> 7) % 4
                    w.write_tile(tile_id, b"same" if (i // 7) % 3 == 0 else b"t%d-" % i + b"x" * (((i * 2654435761) >> 11) % 23))
                w.finalize({"tile_type": TileType.PNG, "tile_compression": Compression.NONE, "min_lon_e7": -1800000000,
                            "min_lat_e7": -850000000, "max_lon_e7": 1800000000, "max_lat_e7": 850000000, "center_zoom": 0,
                            "center_lon_e7": 0, "center_lat_e7": 0}, {"name": "independent", "attribution": "PyPI pmtiles"})
            """
        let path = dir.file("independent.pmtiles")
        let p = ChildProcess()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        p.arguments = ["-c", script, path, String(count)]
        let err = Pipe()
        p.standardError = err
        try p.run()
        let errors = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        try #require(p.terminationStatus == 0, "\(errors)")
        let reader = try PMTilesReader(path: path)
        #expect(reader.header.leafLength > 0, "the writer made leaf directories")
        var wrong = 0, absent = 0
        var id: UInt64 = 0
        for i in 0..<count {
            let step: UInt64 = i == 0 || (i / 7) % 3 == 0 ? 1 : 1 + ((UInt64(i) * 2_654_435_761) >> 7) % 4
            // The ids skipped hold no tile.
            for gap in (id + 1)..<(id + step) where try reader.tile(try #require(PMTilesFormat.tile(id: gap))) != nil { absent += 1 }
            id += step
            let expected =
                (i / 7) % 3 == 0
                ? Array("same".utf8)
                : Array("t\(i)-".utf8) + [UInt8](repeating: UInt8(ascii: "x"), count: Int(((UInt64(i) * 2_654_435_761) >> 11) % 23))
            if try reader.tile(try #require(PMTilesFormat.tile(id: id))) != expected { wrong += 1 }
        }
        #expect(wrong == 0 && absent == 0)
        #expect(try reader.tile(try #require(PMTilesFormat.tile(id: id + 1))) == nil)
        #expect(try reader.metadataPairs()["name"] == "independent")
        let summary = PMTilesSummary(reader)
        #expect(summary.problems.isEmpty && summary.addressedTiles == count && summary.leafDirectories > 0)
    }

    @Test func concurrentReadsAgree() throws {
        let (bundle, tiles) = try PMTilesFixture.bundle(at: dir.file("b.mbtiles"), zooms: 0...10, box: PMTilesFixture.large)
        let stats = try PMTilesExporter.export(from: bundle, to: dir.file("b.pmtiles"))
        #expect(stats.leafDirectories > 1)
        // A cache of about one leaf: threads evict each other's leaves all the time.
        let reader = try PMTilesReader(path: dir.file("b.pmtiles"), leafCacheEntries: 5_000)
        let all = Array(tiles)
        let threads = 4
        let failures = Mutex(0)
        DispatchQueue.concurrentPerform(iterations: threads) { k in
            var bad = 0
            for i in stride(from: k, to: all.count, by: 3) where (try? reader.tile(all[i].key)) != all[i].value { bad += 1 }
            failures.withLock { $0 += bad }
        }
        #expect(failures.withLock { $0 } == 0)
    }
}
