import Foundation
import Testing
import TileGeometry
import TileStore
import TrailMapTestSupport

/// `trailmap bundle inspect` and `bundle verify` on PMTiles archives: the same summary as the
/// bundle they were exported from, the archive's own figures, and every problem of damaged ones.
@Suite(.blockingThreads) struct PMTilesInspectVerifyTests {
    let dir = TemporaryDirectory()

    /// A built bundle and its archive.
    func archive() throws -> (bundle: String, archive: String) {
        let src = try TestSources.write(
            in: dir, name: "s", width: 240, height: 160,
            bounds: GeoBounds(west: -110, south: 36, east: -101, north: 42), color: TestSources.terrain)
        let bundle = dir.file("s.mbtiles")
        #expect(
            try CLIRunner.run(["build", "--source", src, "--name", "S", "--minzoom", "2", "--maxzoom", "7", "--out", bundle, "--quiet"])
                .status == 0)
        let archive = dir.file("s.pmtiles")
        #expect(try CLIRunner.run(["bundle", "export", bundle, "--pmtiles", archive]).status == 0)
        return (bundle, archive)
    }

    static func json(_ text: String) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]) ?? [:]
    }

    @Test func inspectSummarizesAnArchiveAsItsBundle() throws {
        let (bundle, archive) = try archive()
        let m = Self.json(try CLIRunner.run(["bundle", "inspect", "--json", bundle]).stdout)
        let r = try CLIRunner.run(["bundle", "inspect", "--json", archive])
        #expect(r.status == 0, "\(r.stderr)")
        let p = Self.json(r.stdout)
        #expect(p["layout"] as? String == "pmtiles" && p["format"] as? String == "png" && p["tileSize"] as? Int == 256)
        for key in ["tiles", "tileBytes", "storedImages", "storedBytes"] {
            #expect(p[key] as? Int == m[key] as? Int && p[key] != nil, "\(key): \(p[key] ?? "nil") vs \(m[key] ?? "nil")")
        }
        #expect(p["zoomLevels"] as? [[String: Int]] == m["zoomLevels"] as? [[String: Int]], "per zoom: tiles, bytes, columns, rows")
        let meta = p["metadata"] as? [String: String] ?? [:]
        #expect(meta["name"] == "S" && meta["minzoom"] == "2" && meta["maxzoom"] == "7")
        let pm = p["pmtiles"] as? [String: Any] ?? [:]
        #expect(pm["addressedTiles"] as? Int == m["tiles"] as? Int && pm["headerAddressedTiles"] as? Int == m["tiles"] as? Int)
        #expect(pm["tileContents"] as? Int == m["storedImages"] as? Int && pm["clustered"] as? Bool == true)
        #expect(
            pm["leafDirectories"] as? Int == 0 && pm["internalCompression"] as? String == "gzip"
                && pm["tileCompression"] as? String == "none")
        #expect((pm["tileEntries"] as? Int ?? 0) <= (pm["addressedTiles"] as? Int ?? 0) && (pm["problems"] as? [String]) == [])

        let text = try CLIRunner.run(["bundle", "inspect", archive])
        #expect(text.status == 0)
        for part in [
            "PMTiles v3 archive", "tiles: png, 256 px", "name: S", "zoom levels:", "distinct contents", "addressed tiles", "clustered",
            "0 leaf directories", "directories gzip, tiles none", "sections: root directory"
        ] {
            #expect(text.stdout.contains(part), "\(part) in:\n\(text.stdout)")
        }
        // The zoom table is the bundle's.
        let rows = { (s: String) in s.split(separator: "\n").drop { !$0.hasPrefix("zoom levels:") }.prefix { !$0.hasPrefix("total:") } }
        #expect(Array(rows(text.stdout)) == Array(rows(try CLIRunner.run(["bundle", "inspect", bundle]).stdout)))
    }

    @Test func verifyPassesASoundArchiveAndListsTheProblemsOfDamagedOnes() throws {
        let (_, archive) = try archive()
        let ok = try CLIRunner.run(["bundle", "verify", archive])
        #expect(ok.status == 0 && ok.stdout.contains("OK ("), "\(ok.stdout)\(ok.stderr)")
        let original = try PMTilesSurgery.bytes(archive)
        let reader = try PMTilesReader(path: archive)
        let h = reader.header
        let entries = reader.rootEntries

        func damaged(_ name: String, _ edit: (String) throws -> Void) throws -> CLIRunner.Result {
            let path = dir.file("\(name).pmtiles")
            try PMTilesSurgery.write(original, path)
            try edit(path)
            return try CLIRunner.run(["bundle", "verify", path])
        }
        let cases: [(String, (String) throws -> Void, String)] = [
            ("truncated", { try PMTilesSurgery.truncate($0, to: original.count - 7) }, "reaches past the end of the file"),
            ("magic", { try PMTilesSurgery.setByte($0, at: 1, 0) }, "does not start with \"PMTiles\""),
            ("version", { try PMTilesSurgery.setByte($0, at: 7, 2) }, "spec version 2"),
            // Byte 99 is the tile type: vector tiles are not served.
            ("vector", { try PMTilesSurgery.setByte($0, at: 99, 1) }, "tile type MVT vector tiles: TrailMap serves PNG, JPEG and WebP"),
            ("past", { try PMTilesSurgery.editRoot($0) { $0[$0.count - 1].offset = h.tileDataLength } }, "points to byte"),
            // A tile's bytes changed: it no longer decodes.
            ("tile", { try PMTilesSurgery.setByte($0, at: Int(h.tileDataOffset + entries[3].offset) + 20, 0xEE) }, "does not decode"),
            // The header's count no longer matches the directories.
            (
                "count",
                { path in
                    var b = try PMTilesSurgery.bytes(path)
                    PMTilesSurgery.setU64(&b, 72, h.addressedTiles + 1)
                    try PMTilesSurgery.write(b, path)
                }, "the header records \(h.addressedTiles + 1) addressed tiles"
            ),
            // The first leaf replaced by a pointer to the second: reached twice, out of its range.
            (
                "cycle",
                { path in
                    try PMTilesSurgery.splitIntoLeaves(path, parts: 2)
                    let second = try PMTilesSurgery.rootEntries(path)[1]
                    try PMTilesSurgery.editLeaf(path, rootIndex: 0) { leaf in
                        leaf = [PMTilesFormat.Entry(tileID: leaf[0].tileID, offset: second.offset, length: second.length, runLength: 0)]
                    }
                }, "is referenced twice"
            )
        ]
        // An archive of type unknown is served, its tiles' formats read from their bytes: it verifies.
        let unknown = try damaged("unknown") { try PMTilesSurgery.setByte($0, at: 99, 0) }
        #expect(unknown.status == 0, "\(unknown.stdout)\(unknown.stderr)")
        for (name, edit, message) in cases {
            let r = try damaged(name, edit)
            #expect(r.status != 0 && r.stderr.contains("problem(s):") && r.stderr.contains(message), "\(name): \(r.stdout)\(r.stderr)")
        }
        // Inspect still summarizes a sound archive split into leaves.
        let split = dir.file("split.pmtiles")
        try PMTilesSurgery.write(original, split)
        try PMTilesSurgery.splitIntoLeaves(split, parts: 3)
        let inspect = try CLIRunner.run(["bundle", "inspect", "--json", split])
        #expect((Self.json(inspect.stdout)["pmtiles"] as? [String: Any])?["leafDirectories"] as? Int == 3)
        #expect(try CLIRunner.run(["bundle", "verify", split]).status == 0)
    }
}
