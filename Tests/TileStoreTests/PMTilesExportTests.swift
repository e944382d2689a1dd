import Foundation
import Testing
import TileGeometry
@testable import TileStore
import TrailMapTestSupport

/// `bundle export --pmtiles`: a PMTiles v3 archive that an independent reader (PyPI's `pmtiles`)
/// reads back tile for tile, with identical tiles stored once and runs encoded once.
@Suite(.computeThreads) struct PMTilesExportTests {
    let dir = TemporaryDirectory()

    @Test func tileIDsFollowTheHilbertCurvesOfTheSpecification() {
        // Values from the specification's reference implementation.
        #expect(PMTilesFormat.tileID(TileID(z: 0, x: 0, y: 0)!) == 0)
        #expect(PMTilesFormat.tileID(TileID(z: 1, x: 0, y: 0)!) == 1)
        #expect(PMTilesFormat.tileID(TileID(z: 1, x: 0, y: 1)!) == 2)
        #expect(PMTilesFormat.tileID(TileID(z: 1, x: 1, y: 1)!) == 3)
        #expect(PMTilesFormat.tileID(TileID(z: 1, x: 1, y: 0)!) == 4)
        #expect(PMTilesFormat.tileID(TileID(z: 2, x: 0, y: 0)!) == 5)
        // Every tile of zoom 4 gets a distinct id in its zoom's block.
        let ids = Set(TileRange(z: 4, minX: 0, maxX: 15, minY: 0, maxY: 15).map(PMTilesFormat.tileID))
        #expect(ids.count == 256 && ids.min() == 85 && ids.max() == 85 + 255)
    }

    func bundle(zooms: ClosedRange<Int>, box: GeoBounds) throws -> (String, [TileID: [UInt8]]) {
        try PMTilesFixture.bundle(at: dir.file("b.mbtiles"), zooms: zooms, box: box)
    }

    /// Reads every tile of `archive` with PyPI's `pmtiles` reader: "z x y hex" lines, and the header.
    static func independentRead(_ archive: String) throws -> (tiles: [TileID: [UInt8]], header: [String: Any]) {
        let script = """
            import json, sys
            from pmtiles.reader import Reader, MmapSource, all_tiles
            with open(sys.argv[1], "r+b") as f:
                r = Reader(MmapSource(f))
                h = r.header()
                print(json.dumps({k: (v.value if hasattr(v, "value") else v) for k, v in h.items()}))
                for (z, x, y), data in all_tiles(r.get_bytes):
                    print(z, x, y, data.hex())
            """
        let p = ChildProcess()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        p.arguments = ["-c", script, archive]
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        let errors = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        guard p.terminationStatus == 0 else { throw TileStoreError.invalidArgument("the pmtiles reader failed: \(errors)") }
        var lines = String(decoding: data, as: UTF8.self).split(separator: "\n")
        let header = try JSONSerialization.jsonObject(with: Data(lines.removeFirst().utf8)) as? [String: Any] ?? [:]
        var tiles = [TileID: [UInt8]]()
        for line in lines {
            let f = line.split(separator: " ")
            guard f.count == 4, let z = Int(f[0]), let x = Int(f[1]), let y = Int(f[2]), let t = TileID(z: z, x: x, y: y) else { continue }
            var bytes = [UInt8]()
            var i = f[3].startIndex
            while i < f[3].endIndex {
                let j = f[3].index(i, offsetBy: 2)
                bytes.append(UInt8(f[3][i..<j], radix: 16)!)
                i = j
            }
            tiles[t] = bytes
        }
        return (tiles, header)
    }

    @Test(arguments: [false, true]) func anIndependentReaderReadsEveryTileBack(large: Bool) throws {
        // large: zooms to 11 over the conterminous US, ~115,000 tiles: leaf directories.
        let box = large ? GeoBounds(west: -125, south: 25, east: -66, north: 49) : GeoBounds(west: -110, south: 36, east: -101, north: 42)
        let (path, tiles) = try bundle(zooms: 0...(large ? 11 : 7), box: box)
        let out = dir.file("b.pmtiles")
        let stats = try PMTilesExporter.export(from: path, to: out)
        #expect(stats.addressedTiles == tiles.count)
        #expect(stats.contents == Set(tiles.values.map { $0 }).count, "identical tiles stored once")
        #expect(stats.entries < stats.addressedTiles, "runs of identical tiles are one entry")
        #expect((stats.leafDirectories > 0) == large)
        let (read, header) = try Self.independentRead(out)
        #expect(read == tiles, "\(read.count) of \(tiles.count) tiles read back")
        #expect(header["tile_type"] as? Int == 2 && header["clustered"] as? Bool == true)
        #expect(header["min_zoom"] as? Int == 0 && header["max_zoom"] as? Int == (large ? 11 : 7))
        #expect(header["addressed_tiles_count"] as? Int == tiles.count)
        #expect(header["min_lon_e7"] as? Int == Int((box.west * 1e7).rounded()))
        #expect(!FileManager.default.fileExists(atPath: out + ".tmp"))
    }
}
