import Foundation
import Raster
import Testing
import TileGeometry
import TileStore
@testable import BundleBuilder
import TrailMapTestSupport

/// `--update`: only the tiles that changed sources touch are made again, and the result equals a
/// full rebuild tile by tile (with rounding to nearest; with compact rounding, a tile above a
/// kept one is within two levels of it).
@Suite(.computeThreads) struct IncrementalUpdateTests {
    let dir = TemporaryDirectory()
    static let sheets = [
        "a": GeoBounds(west: -110, south: 36, east: -106, north: 39),
        "b": GeoBounds(west: -106, south: 36, east: -102, north: 39),
        "c": GeoBounds(west: -110, south: 39, east: -106, north: 42),
        "d": GeoBounds(west: -106, south: 39.5, east: -103, north: 41.5)
    ]

    /// A sheet; `patch` paints a red square into it (a corrected sheet).
    @discardableResult
    func sheet(_ name: String, patch: Bool = false) throws -> String {
        try TestSources.write(in: dir, name: name, width: 240, height: 180, bounds: Self.sheets[name]!) { c, r in
            if patch && (60..<100).contains(c) && (40..<70).contains(r) { return (255, 0, 0, 255) }
            return (UInt8((c * 3 + name.count * 40) & 255), UInt8((r * 5) & 255), UInt8(((c + r) * 2) & 255), 255)
        }
    }

    func options(_ names: [String], out: String, update: String? = nil, max: Int = 9) -> BuildOptions {
        var o = BuildOptions(sources: names.map { dir.file("\($0).png") }, name: "Update", minZoom: 3, maxZoom: max, output: dir.file(out))
        o.threads = 2
        o.update = update.map { dir.file($0) }
        o.rounding = .nearest // stored = computed, so an update can equal a full rebuild byte for byte
        return o
    }

    /// Tiles of the build's ranges whose footprint meets `bounds`.
    func touching(_ bounds: [MercatorBounds], _ o: BuildOptions) throws -> Int {
        let plan = try BundleBuilder(options: o).plan()
        return plan.bands[0].ranges.reduce(0) { sum, r in sum + r.filter { t in bounds.contains { $0.intersects(t.mercatorBounds) } }.count
        }
    }

    func expectEqualToFullRebuild(_ updated: String, _ names: [String]) throws {
        _ = try BundleBuilder(options: options(names, out: "full.mbtiles")).build()
        let full = try TestBundle.tiles(dir.file("full.mbtiles")), got = try TestBundle.tiles(dir.file(updated))
        #expect(got.count == full.count)
        let differing = full.filter { got[$0.key] != $0.value }.map(\.key)
        #expect(differing.isEmpty, "\(differing.count) tiles differ from a full rebuild, e.g. \(differing.prefix(3))")
        var a = try BundleReader(path: dir.file(updated)).metadataPairs(),
            b = try BundleReader(path: dir.file("full.mbtiles")).metadataPairs()
        a["trailmap:region"] = nil
        b["trailmap:region"] = nil
        #expect(a == b)
    }

    @Test func aChangedSheetReRendersOnlyTheTilesItTouches() throws {
        for name in ["a", "b", "c"] { try sheet(name) }
        _ = try BundleBuilder(options: options(["a", "b", "c"], out: "v1.mbtiles")).build()
        let before = try TestBundle.tiles(dir.file("v1.mbtiles"))
        try sheet("b", patch: true)
        let o = options(["a", "b", "c"], out: "v2.mbtiles", update: "v1.mbtiles")
        let report = try BundleBuilder(options: o).build()
        let u = try #require(report.update)
        #expect(u.sourcesChanged.map { URL(fileURLWithPath: $0).lastPathComponent } == ["b.png"])
        #expect(u.sourcesAdded.isEmpty && u.sourcesRemoved.isEmpty)
        let plan = try BundleBuilder(options: o).plan()
        let expected = try touching([plan.sources[1].info.mercatorBounds], o)
        #expect(u.tilesRendered == expected, "re-rendered \(u.tilesRendered), tiles touching b.png \(expected)")
        #expect(u.tilesRendered < before.count / 2)
        #expect(u.tilesKept == before.count - expected)
        #expect(u.tilesChanged > 0 && u.tilesChanged < u.tilesRendered && u.tilesAdded == 0 && u.tilesRemoved == 0)
        try expectEqualToFullRebuild("v2.mbtiles", ["a", "b", "c"])
        #expect(try TestBundle.tiles(dir.file("v1.mbtiles")) == before, "the old bundle is left as it was")
    }

    @Test func addedAndRemovedSheetsAndAnUpdateInPlace() throws {
        for name in ["a", "b", "c", "d"] { try sheet(name) }
        _ = try BundleBuilder(options: options(["a", "b", "c"], out: "region.mbtiles")).build()
        let before = try TestBundle.tiles(dir.file("region.mbtiles"))
        // c is gone, d is new; the bundle is updated in place.
        let o = options(["a", "b", "d"], out: "region.mbtiles", update: "region.mbtiles")
        let u = try #require(try BundleBuilder(options: o).build().update)
        #expect(u.sourcesAdded.map { URL(fileURLWithPath: $0).lastPathComponent } == ["d.png"])
        #expect(u.sourcesRemoved.map { URL(fileURLWithPath: $0).lastPathComponent } == ["c.png"])
        #expect(u.tilesAdded > 0 && u.tilesRemoved > 0)
        let after = try TestBundle.tiles(dir.file("region.mbtiles"))
        #expect(after.count == before.count + u.tilesAdded - u.tilesRemoved)
        try expectEqualToFullRebuild("region.mbtiles", ["a", "b", "d"])
        #expect(!dir.contents.contains { $0.contains(".building") })
    }

    /// With compact rounding (the default) a kept tile holds its values as stored, up to one level
    /// from those computed, so a tile made again above it is within two levels of a full rebuild's;
    /// every other tile is the full rebuild's.
    @Test func withCompactRoundingTilesAboveKeptOnesAreWithinTwoLevels() throws {
        for name in ["a", "b", "c"] { try sheet(name) }
        func compact(_ o: BuildOptions) -> BuildOptions {
            var o = o
            o.rounding = .compact
            return o
        }
        _ = try BundleBuilder(options: compact(options(["a", "b", "c"], out: "v1.mbtiles"))).build()
        try sheet("b", patch: true)
        _ = try BundleBuilder(options: compact(options(["a", "b", "c"], out: "v2.mbtiles", update: "v1.mbtiles"))).build()
        _ = try BundleBuilder(options: compact(options(["a", "b", "c"], out: "full.mbtiles"))).build()
        let full = try TestBundle.tiles(dir.file("full.mbtiles")), got = try TestBundle.tiles(dir.file("v2.mbtiles"))
        #expect(got.count == full.count)
        let patched = Self.sheets["b"]!
        var within = 0, largest = 0
        for (t, data) in full {
            let other = try #require(got[t])
            if other == data { continue }
            #expect(
                t.mercatorBounds.intersects(patched.mercator) && t.z < 9, "\(t) differs but is outside the patched sheet or at the top zoom"
            )
            let a = try TileDecoder.decode(Array(data)), b = try TileDecoder.decode(Array(other))
            for i in 0..<a.pixels.count {
                let d = abs(Int(a.pixels[i]) - Int(b.pixels[i]))
                largest = max(largest, d)
                if i % 4 == 3 { #expect(d == 0, "\(t): alpha differs") }
            }
            within += 1
        }
        #expect(largest <= 2, "a tile above a kept one is \(largest) levels from the full rebuild's")
        #expect(within > 0, "no tile above a kept one differs: the case is not exercised")
    }

    @Test func touchedButUnchangedSourcesReRenderNothing() throws {
        for name in ["a", "b"] { try sheet(name) }
        _ = try BundleBuilder(options: options(["a", "b"], out: "v1.mbtiles")).build()
        // Same bytes, new modification time: the content hash says unchanged.
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(60)], ofItemAtPath: dir.file("a.png"))
        // New texts are allowed: they change the metadata, not the tiles.
        var o = options(["a", "b"], out: "v2.mbtiles", update: "v1.mbtiles")
        o.version = "2.0.0"
        o.description = "second edition"
        let u = try #require(try BundleBuilder(options: o).build().update)
        #expect(u.tilesRendered == 0 && u.tilesChanged == 0 && u.sourcesChanged.isEmpty)
        #expect(try TestBundle.tiles(dir.file("v2.mbtiles")) == TestBundle.tiles(dir.file("v1.mbtiles")))
        let meta = try BundleReader(path: dir.file("v2.mbtiles")).metadataPairs()
        #expect(meta["version"] == "2.0.0" && meta["description"] == "second edition")
    }

    /// An update records, for a source it did not read again, the hash of the content its kept
    /// tiles were made from, so a later update still sees that content change.
    @Test func anUnreadSourceKeepsTheHashItsTilesWereMadeFrom() throws {
        // Uncompressed GeoTIFFs: a patched sheet has the same size as the original.
        func tif(_ name: String, patch: Bool) throws {
            let png = try sheet(name, patch: patch)
            try GDALTools.translate(png, dir.file("\(name).tif"), ["-a_srs", "EPSG:4326", "-co", "COMPRESS=NONE"])
        }
        func opts(_ out: String, update: String? = nil) -> BuildOptions {
            var o = options([], out: out, update: update, max: 7)
            o.sources = ["a", "b"].map { dir.file("\($0).tif") }
            return o
        }
        try tif("a", patch: false)
        try tif("b", patch: false)
        _ = try BundleBuilder(options: opts("v1.mbtiles")).build()
        // The sheet is corrected but keeps its size and modification time: an update trusts the
        // stamp, keeps the old tiles, and must record the old content's hash.
        try GDALTools.run("cp", ["-p", dir.file("a.tif"), dir.file("a.stamp")])
        try tif("a", patch: true)
        try GDALTools.run("touch", ["-r", dir.file("a.stamp"), dir.file("a.tif")])
        let u2 = try #require(try BundleBuilder(options: opts("v2.mbtiles", update: "v1.mbtiles")).build().update)
        #expect(u2.sourcesChanged.isEmpty && u2.tilesRendered == 0)
        func recorded(_ bundle: String) throws -> BuildRecord.Source? {
            let record = try BundleReader(path: dir.file(bundle)).buildRecord()
            return BuildRecord.decode([BuildRecord.Source].self, record[BuildRecord.sourcesKey])?.first { $0.path.hasSuffix("a.tif") }
        }
        let old = try #require(try recorded("v1.mbtiles")), kept = try #require(try recorded("v2.mbtiles"))
        #expect(kept.sha256 == old.sha256, "the record names the content the kept tiles were made from")
        // Once its stamp changes, the next update reads it, sees the new content and re-renders.
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(60)], ofItemAtPath: dir.file("a.tif"))
        let u3 = try #require(try BundleBuilder(options: opts("v3.mbtiles", update: "v2.mbtiles")).build().update)
        #expect(u3.sourcesChanged.map { URL(fileURLWithPath: $0).lastPathComponent } == ["a.tif"])
        _ = try BundleBuilder(options: opts("full.mbtiles")).build()
        #expect(try TestBundle.tiles(dir.file("v3.mbtiles")) == TestBundle.tiles(dir.file("full.mbtiles")))
    }

    /// A sheet moved by its world file alone (the image, its size and time unchanged) is a
    /// changed source: its tiles are made again where it was and where it now is.
    @Test func aMovedWorldFileIsAChange() throws {
        for name in ["a", "b"] { try sheet(name) }
        _ = try BundleBuilder(options: options(["a", "b"], out: "v1.mbtiles")).build()
        let pgw = dir.file("a.pgw")
        let lines = try String(contentsOfFile: pgw, encoding: .utf8).split(separator: "\n").map(String.init)
        var moved = lines
        moved[5] = String(Double(lines[5])! - 1) // the upper-left y, one degree south
        try (moved.joined(separator: "\n") + "\n").write(toFile: pgw, atomically: true, encoding: .utf8)
        let u = try #require(try BundleBuilder(options: options(["a", "b"], out: "v2.mbtiles", update: "v1.mbtiles")).build().update)
        #expect(u.sourcesChanged.map { URL(fileURLWithPath: $0).lastPathComponent } == ["a.png"])
        try expectEqualToFullRebuild("v2.mbtiles", ["a", "b"])
    }

    /// A VRT whose member raster is rewritten (the VRT file itself untouched) has changed: GDAL's
    /// list of the files it reads is stamped and hashed with it. Built again untouched, nothing is.
    @Test func aChangedMemberOfAVRTIsAChange() throws {
        for name in ["a", "b"] { try sheet(name) }
        for name in ["a", "b"] { try GDALTools.translate(dir.file("\(name).png"), dir.file("\(name).tif"), ["-a_srs", "EPSG:4326"]) }
        let vrt = dir.file("ab.vrt")
        try GDALTools.run("gdalbuildvrt", ["-q", vrt, dir.file("a.tif"), dir.file("b.tif")])
        func vrtOptions(_ out: String, update: String? = nil) -> BuildOptions {
            var o = BuildOptions(sources: [vrt], name: "Update", minZoom: 3, maxZoom: 7, output: dir.file(out))
            o.threads = 2
            o.update = update.map { dir.file($0) }
            o.rounding = .nearest
            return o
        }
        _ = try BundleBuilder(options: vrtOptions("v1.mbtiles")).build()
        let same = try #require(try BundleBuilder(options: vrtOptions("v2.mbtiles", update: "v1.mbtiles")).build().update)
        #expect(same.sourcesChanged.isEmpty && same.tilesRendered == 0, "\(same.sourcesChanged), \(same.tilesRendered) rendered")

        let vrtBefore = try String(contentsOfFile: vrt, encoding: .utf8)
        try sheet("b", patch: true)
        try FileManager.default.removeItem(atPath: dir.file("b.tif"))
        try GDALTools.translate(dir.file("b.png"), dir.file("b.tif"), ["-a_srs", "EPSG:4326"])
        #expect(try String(contentsOfFile: vrt, encoding: .utf8) == vrtBefore, "the VRT file is untouched")
        let u = try #require(try BundleBuilder(options: vrtOptions("v3.mbtiles", update: "v2.mbtiles")).build().update)
        #expect(u.sourcesChanged == [vrt] && u.tilesRendered > 0)
        _ = try BundleBuilder(options: vrtOptions("full.mbtiles")).build()
        let full = try TestBundle.tiles(dir.file("full.mbtiles")), got = try TestBundle.tiles(dir.file("v3.mbtiles"))
        #expect(!full.isEmpty && got == full, "the update equals a full rebuild")
    }

    /// A source whose size or time changed while the build read it is recorded with no hash, so
    /// that the next update makes its tiles again; one unchanged keeps its recorded hash.
    @Test func aSourceEditedDuringTheBuildIsRecordedAsChanged() throws {
        let path = try sheet("a")
        let plan = try BundleBuilder(options: options(["a"], out: "x.mbtiles")).plan()
        let now = SourceFileStamp(path: path)
        var before = now
        before.modifiedNanoseconds -= 1_000_000_000
        let fresh = try BuildRecord.sources(plan.sources, stamps: [now])[0]
        #expect(fresh.sha256.count == 64 && fresh.modified == now.modifiedNanoseconds)
        let edited = try BuildRecord.sources(plan.sources, stamps: [before])[0]
        #expect(edited.sha256 == BuildRecord.changedDuringBuild && edited.modified == before.modifiedNanoseconds)
        let kept = try BuildRecord.sources(plan.sources, known: [fresh], stamps: [now])[0]
        #expect(kept == fresh)
    }

    @Test func bundlesThatCannotBeUpdatedAreRefusedWithTheReason() throws {
        for name in ["a", "b"] { try sheet(name) }
        _ = try BundleBuilder(options: options(["a", "b"], out: "v1.mbtiles")).build()
        func refusal(_ o: BuildOptions) -> String {
            do {
                _ = try BundleBuilder(options: o).build()
                return "built"
            } catch { return "\(error)" }
        }
        // Not built by TrailMap (no source records).
        try TestBundle.write(
            [(TileID(z: 3, x: 1, y: 3)!, [1, 2, 3])], to: dir.file("foreign.mbtiles"),
            metadata: BundleMetadata(name: "F", bounds: .world, minZoom: 3, maxZoom: 3))
        #expect(refusal(options(["a", "b"], out: "x.mbtiles", update: "foreign.mbtiles")).contains("records no sources"))
        let zooms = refusal(options(["a", "b"], out: "x.mbtiles", update: "v1.mbtiles", max: 8))
        #expect(zooms.contains("other settings (these differ: zooms)"), "names what differs: \(zooms)")
        var resampled = options(["a", "b"], out: "x.mbtiles", update: "v1.mbtiles")
        resampled.resampling = .nearest
        let resampling = refusal(resampled)
        #expect(resampling.contains("these differ: resampling"), "\(resampling)")
        // A bundle of an earlier builder version: its tile settings differ, and the message says why.
        try FileManager.default.copyItem(atPath: dir.file("v1.mbtiles"), toPath: dir.file("old.mbtiles"))
        try GDALTools.run(
            "sqlite3",
            [
                dir.file("old.mbtiles"),
                "UPDATE metadata SET value = 'trailmap-builder 0.2.0' WHERE name = 'trailmap:builder'; "
                    + "UPDATE trailmap_build SET value = 'older' WHERE name = 'tile-settings';"
            ])
        let old = refusal(options(["a", "b"], out: "x.mbtiles", update: "old.mbtiles"))
        #expect(old.contains("other settings") && old.contains("built by trailmap-builder 0.2.0"), "\(old)")
        let missing = refusal(options(["a", "b"], out: "x.mbtiles", update: "missing.mbtiles"))
        #expect(
            missing.contains("no such file") && missing.components(separatedBy: "missing.mbtiles").count == 2,
            "names the file once: \(missing)")
        var both = options(["a", "b"], out: "x.mbtiles", update: "v1.mbtiles")
        both.shard = try ShardSpec(index: 1, count: 2)
        #expect(refusal(both).contains("exclude each other"))
        #expect(!FileManager.default.fileExists(atPath: dir.file("x.mbtiles")))
    }
}
