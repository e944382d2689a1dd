import Foundation
import Raster
import SourceReaders
import Testing
import TileGeometry
import TileStore
@testable import BundleBuilder
import TrailMapTestSupport

/// Map sheets read out of the zip archive they came in, through GDAL's /vsizip/, without unpacking.
@Suite(.computeThreads) struct ArchiveSourceTests {
    let fx = RealSourceFixture()

    /// Two UTM sheets, and a zip holding them in a folder beside a text file.
    func sheets() throws -> (west: String, east: String, zip: String) {
        let w = try fx.geographic("w", box: GeoBounds(west: -106, south: 39, east: -105.5, north: 40), size: 200)
        let e = try fx.geographic(
            "e", box: GeoBounds(west: -105.5, south: 39, east: -105, north: 40), size: 200,
            color: TestPatterns.checkerboard(cell: 8))
        let west = try fx.projected(w, name: "west", crs: "EPSG:32613", pixel: 250)
        let east = try fx.projected(e, name: "east", crs: "EPSG:32613", pixel: 250)
        let folder = fx.dir.file("quads")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for f in [west, east] {
            try FileManager.default.copyItem(atPath: f, toPath: folder + "/" + URL(fileURLWithPath: f).lastPathComponent)
        }
        try "read me".write(toFile: folder + "/README.txt", atomically: true, encoding: .utf8)
        // What a zip made on macOS also holds: resource copies GDAL cannot open, and a hidden file.
        let mac = fx.dir.file("__MACOSX/quads")
        try FileManager.default.createDirectory(atPath: mac, withIntermediateDirectories: true)
        try Data("Mac OS X resource fork".utf8).write(to: URL(fileURLWithPath: mac + "/._west.tif"))
        try Data("not a raster".utf8).write(to: URL(fileURLWithPath: folder + "/.hidden.tif"))
        let zip = fx.dir.file("quads.zip")
        try GDALTools.run("sh", ["-c", "cd '\(fx.dir.path)' && zip -q -r quads.zip quads __MACOSX"])
        return (west, east, zip)
    }

    func tiles(_ reader: BundleReader) throws -> [TileID: Data] {
        var out = [TileID: Data]()
        try reader.forEachTile { t, data in
            out[t] = data
            return true
        }
        return out
    }

    @Test func aZipOfSheetsBuildsAsTheSheetsDo() throws {
        let (west, east, zip) = try sheets()
        let plain = try tiles(fx.build(fx.options([east, west], min: 6, max: 10, out: "plain.mbtiles")))
        let zipped = try fx.build(fx.options([zip], min: 6, max: 10, out: "zipped.mbtiles"))
        #expect(!plain.isEmpty)
        #expect(try tiles(zipped) == plain, "the archive's members, in name order, give the same tiles")
        #expect(try zipped.metadataPairs()["trailmap:sources"] == "east.tif,west.tif")

        // A folder of downloads holding the archive.
        let downloads = fx.dir.file("downloads")
        try FileManager.default.createDirectory(atPath: downloads, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: zip, toPath: downloads + "/quads.zip")
        #expect(try tiles(fx.build(fx.options([downloads], min: 6, max: 10, out: "folder.mbtiles"))) == plain)

        // A member named by its /vsizip/ path.
        let member = "/vsizip/" + zip + "/quads/west.tif"
        let one = try tiles(fx.build(fx.options([member], min: 6, max: 10, out: "member.mbtiles")))
        let alone = try tiles(fx.build(fx.options([west], min: 6, max: 10, out: "alone.mbtiles")))
        #expect(one == alone)
        // A relative /vsizip/ path in a list file is relative to the list's folder.
        let list = fx.dir.file("list.txt")
        try "/vsizip/quads.zip/quads/west.tif\n".write(toFile: list, atomically: true, encoding: .utf8)
        #expect(try SourceList.read(listFile: list) == [member])
    }

    @Test func anUpdateSeesAChangedMember() throws {
        let (_, east, zip) = try sheets()
        var o = fx.options([zip], min: 8, max: 11, out: "v1.mbtiles")
        _ = try fx.build(o)
        // The east sheet again, brighter, replaces the archive's copy.
        try GDALTools.translate(east, fx.dir.file("quads/east.tif"), ["-scale", "0", "255", "40", "255"])
        try GDALTools.run("sh", ["-c", "cd '\(fx.dir.path)' && zip -q quads.zip quads/east.tif"])
        o.update = o.output
        o.output = fx.dir.file("v2.mbtiles")
        let report = try BundleBuilder(options: o).build()
        let summary = try #require(report.update)
        #expect(summary.sourcesChanged.count == 1 && summary.sourcesChanged[0].hasSuffix("/quads/east.tif"), "\(summary)")
        #expect(summary.sourcesAdded.isEmpty && summary.sourcesRemoved.isEmpty)
        #expect(summary.tilesChanged > 0 && summary.tilesKept > 0, "only tiles under the east sheet are made again: \(summary)")
    }

    @Test func badArchivesAndMembersAreNamed() throws {
        let (_, _, zip) = try sheets()
        let text = fx.dir.file("notes.zip")
        try GDALTools.run("sh", ["-c", "cd '\(fx.dir.path)' && zip -q notes.zip quads/README.txt"])
        let broken = fx.dir.file("broken.zip")
        try Data("PK not really a zip".utf8).write(to: URL(fileURLWithPath: broken))
        let cases: [(String, [String])] = [
            ("/vsizip/" + zip + "/quads/nope.tif", ["nope.tif", "no such file"]),
            (text, [text, "holds no raster files"]),
            (broken, [broken, "cannot read it as a zip archive"])
        ]
        for (source, expected) in cases {
            var message = ""
            #expect { try BundleBuilder(options: fx.options([source], min: 6, max: 8, out: "bad.mbtiles")).build() } throws: { error in
                message = "\(error)"
                return true
            }
            for part in expected { #expect(message.contains(part), "\(source): \(message)") }
        }
        #expect(!fx.dir.contents.contains { $0 == "bad.mbtiles" })
    }

    /// SRTM elevation tiles, as they are downloaded (N39W106.hgt.zip) and unpacked in a folder.
    @Test func srtmTilesZippedOrInAFolderAreSources() throws {
        // 1201 pixels of 3 arc-seconds centred on the whole degrees, as SRTM tiles are.
        let half = 0.5 / 1200
        let rgb = try fx.geographic(
            "dem", box: GeoBounds(west: -106 - half, south: 39 - half, east: -105 + half, north: 40 + half),
            size: 1201, color: TestPatterns.checkerboard(cell: 64))
        let dem = fx.dir.file("dem16.tif")
        try GDALTools.translate(rgb, dem, ["-b", "1", "-ot", "Int16", "-scale", "0", "255", "0", "3000"])
        let folder = fx.dir.file("srtm")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try GDALTools.translate(dem, folder + "/N39W106.hgt", ["-of", "SRTMHGT"])
        try GDALTools.run("sh", ["-c", "cd '\(folder)' && zip -q ../N39W106.hgt.zip N39W106.hgt"])
        let loose = try tiles(fx.build(fx.options([folder], min: 7, max: 9, out: "srtm-folder.mbtiles")))
        let zipped = try tiles(fx.build(fx.options([fx.dir.file("N39W106.hgt.zip")], min: 7, max: 9, out: "srtm-zip.mbtiles")))
        #expect(!loose.isEmpty)
        #expect(zipped == loose, "the zipped tile builds as the unpacked one")
    }
}
