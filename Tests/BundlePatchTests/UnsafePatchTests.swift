import BundlePatch
import Essentials
import Foundation
import Testing
import TileGeometry
import TileStore
import TrailMapTestSupport

/// Issue 36, finding 8 in the patch format itself: a patch file is read only when it is plain
/// tables whose rows and bytes fit its size, and applying patches never grows the bundle past
/// what they can add or the room the caller gives.
@Suite(.computeThreads) struct UnsafePatchTests {
    let dir = TemporaryDirectory()

    /// A real v1 → v2 patch (v2 changes every tile of v1) and what it starts from.
    func realPatch() throws -> (patch: String, base: String, from: String, to: String) {
        var tiles = [TileID: [UInt8]]()
        for z in 6...8 {
            for t in TileRange(bounds: GeoBounds(west: -110, south: 36, east: -101, north: 42), zoom: z) {
                tiles[t] = [UInt8](repeating: UInt8((t.x * 7 + t.y + z) & 255), count: 700)
            }
        }
        let meta = BundleMetadata(name: "R", bounds: GeoBounds(west: -110, south: 36, east: -101, north: 42), minZoom: 6, maxZoom: 8)
        try TestBundle.write(tiles, to: dir.file("v1.mbtiles"), metadata: meta)
        for (t, _) in tiles { tiles[t]?[0] = UInt8((t.x + 1) & 255) }
        try TestBundle.write(tiles, to: dir.file("v2.mbtiles"), metadata: meta)
        let store = PatchStore(root: dir.file("patches"))
        var contents = [String]()
        for v in 1...2 {
            let path = dir.file("v\(v).mbtiles")
            contents.append(
                try store.record(productId: "r", version: v, bundle: path, sha256: try FileSHA256.digest(path: path).hex).contentHash)
        }
        return (store.patchPath("r", from: 1, to: 2), dir.file("v1.mbtiles"), contents[0], contents[1])
    }

    /// A copy of `patch` changed by `sql` (the real sqlite3 shell).
    func tampered(_ patch: String, _ name: String, _ sql: String) throws -> String {
        let path = dir.file(name)
        try? FileManager.default.removeItem(atPath: path)
        try FileManager.default.copyItem(atPath: patch, toPath: path)
        let p = ChildProcess()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        p.arguments = ["-bail", path, sql]
        try p.run()
        p.waitUntilExit()
        #expect(p.terminationStatus == 0, "sqlite3 \(sql)")
        return path
    }

    @Test func viewsTriggersGeneratedColumnsAndStrangersAreRefusedBeforeAnyRowIsRead() throws {
        let (patch, base, _, to) = try realPatch()
        let cases: [(String, String, String)] = [
            (
                "view",
                """
                DROP TABLE put; CREATE VIEW put AS WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 999)
                SELECT 12 AS zoom_level, i AS tile_column, 0 AS tile_row, zeroblob(65536) AS tile_data FROM n;
                """, "view \"put\""
            ),
            ("trigger", "CREATE TRIGGER t AFTER INSERT ON meta_put BEGIN DELETE FROM del; END;", "trigger \"t\""),
            (
                "generated",
                """
                DROP TABLE put; CREATE TABLE put (zoom_level INTEGER, tile_column INTEGER, tile_row INTEGER, n INTEGER,
                tile_data BLOB GENERATED ALWAYS AS (zeroblob(n)) VIRTUAL); INSERT INTO put VALUES (12, 0, 0, 1000000000);
                """, "put.tile_data is generated"
            ),
            ("stranger", "CREATE TABLE extra (x);", "table \"extra\""),
            ("index", "CREATE INDEX i ON put (zoom_level + tile_row);", "index \"i\"")
        ]
        for (name, sql, reason) in cases {
            let bad = try tampered(patch, "\(name).patch", sql)
            let out = dir.file("out-\(name).mbtiles")
            do {
                try PatchApplier.apply([bad], to: base, output: out, expected: to)
                Issue.record("\(name): applied")
            } catch {
                guard case let .unsafe(path, why) = error else { Issue.record("\(name): \(error)"); continue }
                #expect(path == bad && why.contains(reason), "\(name): \(why)")
                #expect(error.description.contains("refused, not a plain patch"))
            }
            #expect(!FileManager.default.fileExists(atPath: out), "\(name)")
            #expect(throws: PatchError.self) { try PatchFile.header(bad) }
        }
        // The real patch passes, and applies.
        let extent = try PatchFile.check(patch)
        #expect(extent.rows > 0 && extent.dataBytes > 0 && extent.dataBytes <= extent.fileBytes)
        #expect(try PatchApplier.apply([patch], to: base, output: dir.file("good.mbtiles"), expected: to) == to)
    }

    /// Bytes are capped: a patch never makes the bundle larger than the room given (SQLite stops
    /// writing, nothing is kept), and a base already larger than the room is refused before copying.
    @Test func theResultNeverOutgrowsTheRoomGiven() throws {
        let (patch, base, _, to) = try realPatch()
        let baseBytes = try #require((try FileManager.default.attributesOfItem(atPath: base))[.size] as? NSNumber).int64Value
        let out = dir.file("out.mbtiles")
        #expect(throws: PatchError.tooLarge(limit: baseBytes - 1)) {
            try PatchApplier.apply([patch], to: base, output: out, expected: to, maxOutputBytes: baseBytes - 1)
        }
        #expect(!FileManager.default.fileExists(atPath: out))
        // Room for the base's pages but not for what the patch adds (every tile changes: the new
        // ones go in beside the old ones until those are dropped).
        #expect(throws: PatchError.tooLarge(limit: baseBytes)) {
            try PatchApplier.apply([patch], to: base, output: out, expected: to, maxOutputBytes: baseBytes)
        }
        #expect(!FileManager.default.fileExists(atPath: out))
        #expect(try PatchApplier.apply([patch], to: base, output: out, expected: to, maxOutputBytes: baseBytes * 3) == to)
        let extent = try PatchFile.check(patch)
        #expect(PatchApplier.outputLimit(baseBytes: baseBytes, [extent]) == baseBytes + (1 << 20) + extent.fileBytes + extent.rows * 256)
    }
}
