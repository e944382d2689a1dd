import Foundation
import GRDB
import Testing
import TileGeometry
@testable import TileStore
import TrailMapTestSupport

@Suite(.computeThreads) struct BundleWriterTests {
    let dir = TemporaryDirectory()

    func metadata() -> BundleMetadata {
        BundleMetadata(name: "Test", bounds: GeoBounds(west: -110, south: 36, east: -101, north: 42), minZoom: 3, maxZoom: 4)
    }

    @Test func storesIdenticalTilesOnceInTMSOrder() throws {
        let path = dir.file("a.mbtiles")
        let writer = try BundleWriter(path: path)
        let t1 = TileID(z: 3, x: 1, y: 2)!, t2 = TileID(z: 3, x: 2, y: 2)!, t3 = TileID(z: 4, x: 3, y: 5)!
        try writer.add([(t1, [1, 2, 3]), (t2, [1, 2, 3]), (t3, [9, 9])])
        #expect(!FileManager.default.fileExists(atPath: path), "nothing at the final path before finish")
        let stats = try writer.finish(metadata: metadata())
        #expect(stats.tiles == 3 && stats.uniqueImages == 2 && stats.tileBytes == 8 && stats.storedBytes == 5)
        #expect(!FileManager.default.fileExists(atPath: writer.temporaryPath))

        let reader = try BundleReader(path: path)
        #expect(reader.layout == .deduplicated)
        #expect(try reader.tile(t1) == Data([1, 2, 3]))
        #expect(try reader.tile(t3) == Data([9, 9]))
        #expect(try reader.tile(TileID(z: 3, x: 0, y: 0)!) == nil)
        #expect(try reader.storedImages().count == 2)
        // Rows are stored TMS: y = 2 at zoom 3 is row 5.
        let db = try DatabaseQueue(path: path)
        let rows = try db.read { try Int.fetchAll($0, sql: "SELECT tile_row FROM map WHERE zoom_level = 3 ORDER BY tile_column") }
        #expect(rows == [5, 5])
        let pairs = try reader.metadataPairs()
        for key in BundleMetadata.requiredKeys { #expect(pairs[key] != nil, "\(key)") }
        #expect(pairs["bounds"] == "-110.000000,36.000000,-101.000000,42.000000")
        let levels = try reader.zoomLevels()
        #expect(levels.map(\.zoom) == [3, 4])
        #expect(levels[0].tiles == 2 && levels[0].minY == 2 && levels[0].maxY == 2)
    }

    @Test func unfinishedWriteLeavesNoBundle() throws {
        let path = dir.file("b.mbtiles")
        let writer = try BundleWriter(path: path)
        try writer.add([(TileID(z: 0, x: 0, y: 0)!, [1])])
        #expect(FileManager.default.fileExists(atPath: writer.temporaryPath))
        writer.abandon()
        #expect(dir.contents.isEmpty)
    }

    @Test func removesTemporariesOfDeadBuilds() throws {
        let path = dir.file("c.mbtiles")
        // A pid far above pid_max belongs to no process.
        let stale = BundleWriter.temporaryPath(for: path, pid: 99_999_999)
        #expect(FileManager.default.createFile(atPath: stale, contents: Data("half a build".utf8)))
        let writer = try BundleWriter(path: path)
        #expect(!FileManager.default.fileExists(atPath: stale))
        _ = try writer.finish(metadata: metadata())
        #expect(dir.contents == ["c.mbtiles"])
    }

    @Test func replacesAnExistingBundleAtomically() throws {
        let path = dir.file("d.mbtiles")
        let first = try BundleWriter(path: path)
        try first.add([(TileID(z: 0, x: 0, y: 0)!, [1])])
        _ = try first.finish(metadata: metadata())
        let second = try BundleWriter(path: path)
        try second.add([(TileID(z: 0, x: 0, y: 0)!, [2])])
        #expect(try BundleReader(path: path).tile(TileID(z: 0, x: 0, y: 0)!) == Data([1]), "old bundle intact while writing")
        _ = try second.finish(metadata: metadata())
        #expect(try BundleReader(path: path).tile(TileID(z: 0, x: 0, y: 0)!) == Data([2]))
    }

    @Test func refusesFoldersThatDoNotExist() {
        #expect(throws: TileStoreError.self) { try BundleWriter(path: dir.file("missing/x.mbtiles")) }
        #expect(FileManager.default.createFile(atPath: dir.file("plainfile"), contents: Data()))
        #expect(throws: TileStoreError.self) { try BundleWriter(path: dir.file("plainfile/x.mbtiles")) }
    }
}
