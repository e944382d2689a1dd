import Foundation
import GRDB
import Testing
import TileGeometry
@testable import TileStore
import TrailMapTestSupport

@Suite(.computeThreads) struct BundleExporterTests {
    let dir = TemporaryDirectory()

    /// A deduplicated bundle with tiles at zoom 0-5, some of them identical.
    func makeBundle(_ name: String = "a.mbtiles") throws -> String {
        let path = dir.file(name)
        let writer = try BundleWriter(path: path)
        var batch = [(tile: TileID, data: [UInt8])]()
        for z in 0...5 {
            let n = 1 << z
            for x in 0..<min(n, 5) {
                for y in 0..<min(n, 4) {
                    // Every third tile shares its bytes with others (deduplicated in the bundle).
                    let bytes: [UInt8] =
                        (x + y) % 3 == 0
                        ? [0x89, 0x50, 0x4E, 0x47, 7]
                        : [0x89, UInt8(z), UInt8(x), UInt8(y)] + Array(repeating: UInt8(x &* 31 &+ y), count: 100 + z * 10)
                    batch.append((TileID(z: z, x: x, y: y)!, bytes))
                }
            }
        }
        try writer.add(batch)
        var meta = BundleMetadata(
            name: "Export test", bounds: GeoBounds(west: -110, south: 36, east: -101, north: 42),
            minZoom: 0, maxZoom: 5)
        meta.attribution = "<a href=\"https://example.com/\">x</a>"
        meta.extra["trailmap:region"] = "test"
        _ = try writer.finish(metadata: meta)
        return path
    }

    /// Every file under `root`, relative path → contents.
    func walk(_ root: String) throws -> [String: Data] {
        var out = [String: Data]()
        let fm = FileManager.default
        guard let e = fm.enumerator(atPath: root) else { return out }
        while let rel = e.nextObject() as? String {
            let full = (root as NSString).appendingPathComponent(rel)
            var isDir: ObjCBool = false
            if fm.fileExists(atPath: full, isDirectory: &isDir), !isDir.boolValue {
                out[rel] = try Data(contentsOf: URL(fileURLWithPath: full))
            }
        }
        return out
    }

    /// The tree holds exactly the bundle's tiles, byte for byte, plus metadata.json.
    func expectTreeMatches(_ out: String, bundle: String) throws {
        let reader = try BundleReader(path: bundle)
        var expected = [String: Data]()
        try reader.forEachTile { t, data in
            expected["\(t.z)/\(t.x)/\(t.y).png"] = data; return true
        }
        var files = try walk(out)
        let removed = files.removeValue(forKey: "metadata.json")
        let json = try #require(removed)
        #expect(files.keys.sorted() == expected.keys.sorted())
        let differing = expected.keys.filter { files[$0] != nil && files[$0] != expected[$0] }.sorted()
        #expect(differing.isEmpty, "tiles whose bytes differ: \(differing)")
        let pairs = try JSONSerialization.jsonObject(with: json) as? [String: String]
        #expect(pairs == (try reader.metadataPairs()))
    }

    @Test func exportsEveryTileByteForByte() throws {
        let bundle = try makeBundle()
        let out = dir.file("out/nested/static")
        var calls = [ExportProgress]()
        let stats = try BundleExporter.export(from: bundle, to: out) { calls.append($0) }
        let reader = try BundleReader(path: bundle)
        let total = try reader.zoomLevels().reduce(0) { $0 + $1.tiles }
        let stored = try reader.storedImages().count
        #expect(reader.layout == .deduplicated && stored < total, "fixture has duplicates")
        #expect(stats.tiles == total && stats.invalidRows == 0 && stats.fileExtension == "png")
        #expect(stats.tilesPerZoom[0] == 1 && stats.tilesPerZoom[5] == 20)
        #expect(calls.count == total && calls.last == ExportProgress(done: total, total: total, bytes: stats.bytes))
        try expectTreeMatches(out, bundle: bundle)
        let hidden = try walk(out).keys.filter { $0.split(separator: "/").contains { $0.hasPrefix(".") } }
        #expect(hidden.isEmpty, "no temporaries left: \(hidden)")
    }

    @Test func rowsAreXYZCountedFromTheNorth() throws {
        let path = dir.file("one.mbtiles")
        let writer = try BundleWriter(path: path)
        try writer.add([(TileID(z: 3, x: 1, y: 2)!, [1, 2, 3])])
        _ = try writer.finish(metadata: BundleMetadata(name: "one", bounds: .world, minZoom: 3, maxZoom: 3))
        let out = dir.file("xyz")
        _ = try BundleExporter.export(from: path, to: out)
        // Stored as TMS row 5; exported under its XYZ row 2.
        #expect(try Data(contentsOf: URL(fileURLWithPath: out + "/3/1/2.png")) == Data([1, 2, 3]))
        #expect(!FileManager.default.fileExists(atPath: out + "/3/1/5.png"))
        #expect(Set(try walk(out).keys) == ["3/1/2.png", "metadata.json"])
    }

    @Test func exportsThePlainLayoutAndSkipsImpossibleRows() throws {
        let path = dir.file("plain.mbtiles")
        let db = try DatabaseQueue(path: path)
        try db.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE metadata (name TEXT, value TEXT);
                    CREATE TABLE tiles (zoom_level INTEGER, tile_column INTEGER, tile_row INTEGER, tile_data BLOB);
                    INSERT INTO metadata VALUES ('name', 'plain'), ('format', 'png'), ('bounds', '-180,-85,180,85'),
                        ('minzoom', '0'), ('maxzoom', '1');
                    INSERT INTO tiles VALUES (0, 0, 0, x'0102'), (1, 1, 0, x'03'), (1, 0, 1, x'04'), (1, 7, 0, x'05');
                    """)
        }
        try db.close()
        let out = dir.file("plain")
        let stats = try BundleExporter.export(from: path, to: out)
        #expect(stats.tiles == 3 && stats.invalidRows == 1)
        var files = try walk(out)
        #expect(files.removeValue(forKey: "metadata.json") != nil)
        #expect(files == ["0/0/0.png": Data([1, 2]), "1/1/1.png": Data([3]), "1/0/0.png": Data([4])])
        try expectTreeMatches(out, bundle: path)
    }

    @Test func refusesAFolderThatIsNotEmptyUnlessForced() throws {
        let bundle = try makeBundle()
        let out = dir.file("busy")
        try FileManager.default.createDirectory(atPath: out + "/3/1", withIntermediateDirectories: true)
        try Data("old".utf8).write(to: URL(fileURLWithPath: out + "/3/1/2.png"))
        try Data("mine".utf8).write(to: URL(fileURLWithPath: out + "/notes.txt"))
        #expect { try BundleExporter.export(from: bundle, to: out) } throws: { e in
            guard case let .folderNotEmpty(path, entries) = e as? TileStoreError else { return false }
            return path == out && entries == 2 && !"\(e)".contains("--")
        }
        #expect(Set(try walk(out).keys) == ["3/1/2.png", "notes.txt"], "nothing written when refused")

        // A temporary of a dead export is cleaned up; --force replaces tiles and keeps other files.
        let stale = out + "/" + BundleExporter.temporaryName(pid: 99_999_999)
        try Data("half".utf8).write(to: URL(fileURLWithPath: stale))
        _ = try BundleExporter.export(from: bundle, to: out, force: true)
        var files = try walk(out)
        #expect(files.removeValue(forKey: "notes.txt") == Data("mine".utf8))
        try FileManager.default.removeItem(atPath: out + "/notes.txt")
        try expectTreeMatches(out, bundle: bundle)
        #expect(!FileManager.default.fileExists(atPath: stale))
    }

    @Test func anEmptyExistingFolderIsFine() throws {
        let bundle = try makeBundle()
        let out = dir.file("empty/")
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        _ = try BundleExporter.export(from: bundle, to: out)
        try expectTreeMatches(out, bundle: bundle)
    }

    @Test func missingOrBadBundlesAreReportedBeforeAnythingIsWritten() throws {
        let out = dir.file("never")
        let missing = dir.file("missing.mbtiles")
        #expect(throws: TileStoreError.notFound(path: missing)) { try BundleExporter.export(from: missing, to: out) }
        let text = dir.file("text.mbtiles")
        try Data(repeating: 65, count: 4096).write(to: URL(fileURLWithPath: text))
        #expect { try BundleExporter.export(from: text, to: out) } throws: { e in
            if case let .notMBTiles(path, _) = e as? TileStoreError { return path == text } else { return false }
        }
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    @Test func outputThatCannotBeAFolderIsReportedByPath() throws {
        let bundle = try makeBundle()
        let file = dir.file("file")
        try Data("x".utf8).write(to: URL(fileURLWithPath: file))
        #expect { try BundleExporter.export(from: bundle, to: file) } throws: { e in
            guard case let .invalidArgument(message) = e as? TileStoreError else { return false }
            return message.contains(file) && message.contains("not a folder")
        }
        #expect { try BundleExporter.export(from: bundle, to: file + "/sub") } throws: { e in
            guard case let .invalidArgument(message) = e as? TileStoreError else { return false }
            return message.contains(file)
        }
        // A file where a zoom folder must go.
        let out = dir.file("blocked")
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        try Data("x".utf8).write(to: URL(fileURLWithPath: out + "/3"))
        try Data("{}".utf8).write(to: URL(fileURLWithPath: out + "/metadata.json"))
        #expect { try BundleExporter.export(from: bundle, to: out, force: true) } throws: { e in
            guard case let .invalidArgument(message) = e as? TileStoreError else { return false }
            return message.contains(out + "/3") && message.contains("a file of that name exists")
        }
        #expect(!(try walk(out).keys.contains("metadata.json")), "an incomplete export has no metadata.json, not even an old one")
        #expect(try walk(out).keys.allSatisfy { !$0.hasPrefix(".") }, "no temporary left after a failure")
    }
}
