import Foundation
import Testing
import TileGeometry
import TrailMapTestSupport

/// The libraries (SourceReaders, BundleBuilder) throw structured errors whose messages name no
/// flag; the CLI words them (`BuildWording`). These run the real binary on GDAL-made sources and
/// check that what a user reads still names the flag to change.
@Suite(.serialized, .blockingThreads) struct BuildWordingCLITests {
    let dir = TemporaryDirectory()
    static let box = GeoBounds(west: -110, south: 36, east: -101, north: 42)

    func source(_ name: String = "terrain") throws -> String {
        try TestSources.write(in: dir, name: name, width: 120, height: 80, bounds: Self.box, color: TestSources.terrain)
    }

    func build(_ args: [String], out: String = "x.mbtiles") throws -> CLIRunner.Result {
        try CLIRunner.run(["build", "--name", "X", "--out", dir.file(out), "--threads", "2"] + args)
    }

    /// A raster read as the library refuses it: five bands, bands it does not have, no CRS.
    @Test func sourceReaderErrorsNameTheFlags() throws {
        let png = try source()
        let five = dir.file("five.tif")
        try GDALTools.translate(png, five, ["-b", "1", "-b", "2", "-b", "3", "-b", "1", "-b", "2"])
        let many = try build(["--source", five, "--minzoom", "2", "--maxzoom", "3"])
        #expect(
            many.status == 1 && many.stderr.contains("\(five): unsupported band layout (5 bands: ")
                && many.stderr.contains("choose them with --bands, e.g. --bands 1,2,3"), "\(many.stderr)")

        let three = dir.file("three.tif")
        try GDALTools.translate(png, three, ["-b", "1", "-b", "2", "-b", "3", "-a_srs", "EPSG:4326"])
        let outside = try build(["--source", three, "--bands", "1,2,9", "--minzoom", "2", "--maxzoom", "3"])
        #expect(outside.status == 1 && outside.stderr.contains("--bands 9: the raster has bands 1-3"), "\(outside.stderr)")
        let nodata = try build(["--source", three, "--src-nodata", "1,2", "--minzoom", "2", "--maxzoom", "3"])
        #expect(
            nodata.status == 1 && nodata.stderr.contains("--src-nodata has 2 values; the raster has 3 colour band(s)"),
            "\(nodata.stderr)")

        // A GeoTIFF with a geotransform but no CRS (the world file's EPSG:4326 is an assumption, not copied).
        let bare = dir.file("bare.tif")
        try GDALTools.translate(png, bare, ["-b", "1", "-b", "2", "-b", "3"])
        let noCRS = try build(["--source", bare, "--minzoom", "2", "--maxzoom", "3"])
        #expect(
            noCRS.status == 1 && noCRS.stderr.contains("declares no coordinate reference system; give one with --source-crs"),
            "\(noCRS.stderr)")
        #expect(!dir.contents.contains("x.mbtiles"))
    }

    /// An update refused for other settings names the differing setting by its flag, and the
    /// advice names `--update`; a shard out of range and a merge of a plain bundle name `--shard`;
    /// typed options (`--shard`, `--source-crs`) refuse a bad value as the command line is read.
    @Test func buildErrorsNameTheFlags() throws {
        let png = try source()
        let base = try build(["--source", png, "--minzoom", "2", "--maxzoom", "3"], out: "base.mbtiles")
        #expect(base.status == 0, "\(base.stderr)")
        let clipped = try build(
            [
                "--source", png, "--minzoom", "2", "--maxzoom", "3", "--bounds", "-108,37,-103,41",
                "--update", dir.file("base.mbtiles")
            ], out: "clipped.mbtiles")
        #expect(
            clipped.status == 1 && clipped.stderr.contains("other settings (these differ: --bounds): run a full build without --update."),
            "\(clipped.stderr)")

        let shard = try build(["--source", png, "--minzoom", "2", "--maxzoom", "3", "--shard", "0/3"])
        #expect(
            shard.status == 64 && shard.stderr.contains("'0/3' is invalid for '--shard <K/N>': shard K/N: K must be 1 to N (3), not 0"),
            "\(shard.stderr)")
        let crs = try build(["--source", png, "--minzoom", "2", "--maxzoom", "3", "--source-crs", "EPSG:999999"])
        #expect(
            crs.status == 64
                && crs.stderr.contains("'EPSG:999999' is invalid for '--source-crs <crs>': unknown coordinate reference system"),
            "\(crs.stderr)")

        let merge = try CLIRunner.run(["bundle", "merge", dir.file("base.mbtiles"), "--out", dir.file("merged.mbtiles")])
        #expect(
            merge.status == 1
                && merge.stderr.contains("not a part of a sharded build (it records no shard): build the parts with --shard K/N"),
            "\(merge.stderr)")
    }

    /// A build's notices are logged in the CLI's words too: the memory limit as `--memory-limit`
    /// would not be reached on these small sources, so the joint range's `--scale` is checked.
    @Test func noticesNameTheFlags() throws {
        let png = try source()
        let wide = [dir.file("a16.tif"), dir.file("b16.tif")]
        try GDALTools.translate(png, wide[0], ["-b", "1", "-ot", "UInt16", "-scale", "0", "255", "0", "1000", "-a_srs", "EPSG:4326"])
        try GDALTools.translate(png, wide[1], ["-b", "1", "-ot", "UInt16", "-scale", "0", "255", "0", "3000", "-a_srs", "EPSG:4326"])
        let r = try build(["--source", wide[0], "--source", wide[1], "--minzoom", "2", "--maxzoom", "3", "--log-level", "info"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("the sources' joint range (--scale chooses it)"), "\(r.stderr)")
    }
}
