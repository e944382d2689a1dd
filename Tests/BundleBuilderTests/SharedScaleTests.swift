import Foundation
import Logging
import Raster
import SourceReaders
import Testing
import TileGeometry
import TileStore
@testable import BundleBuilder
import TrailMapTestSupport

/// 16-bit sheets of one series, without --scale, are mapped to 8 bits from their joint range, so
/// that a ramp running across two sheets has no step at the seam.
@Suite(.computeThreads) struct SharedScaleTests {
    let fx = RealSourceFixture()

    /// A 16-bit gray ramp over `box`, from `low` at the west edge to `high` at the east edge.
    func ramp(_ name: String, box: GeoBounds, low: Int, high: Int) throws -> String {
        let size = 256
        let gray = try fx.geographic(name + "-8", box: box, size: size) { c, _ in
            let v = UInt8(c * 255 / (size - 1))
            return (v, v, v, 255)
        }
        let out = fx.dir.file(name + ".tif")
        try GDALTools.translate(gray, out, ["-b", "1", "-ot", "UInt16", "-scale", "0", "255", "\(low)", "\(high)"])
        return out
    }

    @Test func sheetsOfOneSeriesShareTheirScale() throws {
        let west = try ramp("west", box: GeoBounds(west: -106, south: 39, east: -105.5, north: 40), low: 1000, high: 2000)
        let east = try ramp("east", box: GeoBounds(west: -105.5, south: 39, east: -105, north: 40), low: 2000, high: 3000)
        let reader = try fx.build(fx.options([west, east], min: 9, max: 9, out: "ramp.mbtiles", resampling: .nearest))
        // Along a row through the middle of the seam's tile, gray rises steadily from one sheet into the other.
        let seam = WebMercator.tile(lon: -105.5, lat: 39.5, zoom: 9)
        let image = try #require(try fx.tile(reader, seam))
        let b = seam.mercatorBounds
        let seamX = Int(((WebMercator.project(lon: -105.5, lat: 39.5).x - b.minX) / (b.maxX - b.minX) * 256).rounded())
        let row = 128
        let gray = { (x: Int) -> Int? in
            let p = (row * 256 + x) * 4
            return image.pixels[p + 3] == 255 ? Int(image.pixels[p]) : nil
        }
        var steps = [Int]()
        for x in 1..<256 { if let a = gray(x - 1), let c = gray(x) { steps.append(c - a) } }
        #expect(steps.count > 100, "the row crosses both sheets")
        #expect(steps.allSatisfy { $0 >= 0 && $0 <= 2 }, "a step in the gray ramp: \(steps.filter { $0 < 0 || $0 > 2 })")
        // The seam sits at the middle of the joint range 1000...3000.
        let atSeam = try #require(gray(seamX))
        #expect(abs(atSeam - 128) <= 3, "gray at the seam \(atSeam)")
    }

    /// A sheet of the series holding only nodata (an empty DEM tile) draws nothing, says so, and
    /// leaves the joint range to the others: before, it failed the whole build.
    @Test func aSheetOfOnlyNodataDrawsNothing() throws {
        let west = try ramp("west", box: GeoBounds(west: -106, south: 39, east: -105.5, north: 40), low: 1000, high: 2000)
        let empty = fx.dir.file("empty.tif")
        try GDALTools.run(
            "gdal_create",
            [
                "-q", "-of", "GTiff", "-ot", "UInt16", "-outsize", "64", "64", "-burn", "65535",
                "-a_nodata", "65535", "-a_srs", "EPSG:4326", "-a_ullr", "-105.5", "40", "-105", "39", empty
            ])
        let log = CapturedLog()
        let o = fx.options([west, empty], min: 9, max: 9, out: "gap.mbtiles", resampling: .nearest)
        _ = try BundleBuilder(options: o, logger: Logger(label: "test") { _ in log }).build()
        #expect(
            log.lines.contains { $0.level == .warning && $0.message.contains("empty.tif: every pixel is nodata or NaN") },
            "\(log.lines.map(\.message))")
        let reader = try BundleReader(path: o.output)
        // The west sheet spans its own range: its west edge black, its east edge white.
        let tile = WebMercator.tile(lon: -105.75, lat: 39.5, zoom: 9)
        let image = try #require(try fx.tile(reader, tile))
        let row = 128 * 256 * 4
        let opaque = stride(from: row, to: row + 256 * 4, by: 4).filter { image.pixels[$0 + 3] == 255 }.map { Int(image.pixels[$0]) }
        #expect(
            opaque.count > 100 && opaque.max()! - opaque.min()! > 80, "the west sheet's ramp: \(opaque.min() ?? -1)...\(opaque.max() ?? -1)"
        )
        // Nothing of the empty sheet is drawn.
        for (t, image) in try fx.allTiles(reader, zooms: 9...9, bounds: GeoBounds(west: -105.45, south: 39.05, east: -105.05, north: 39.95))
        {
            #expect(
                !stride(from: 0, to: image.pixels.count, by: 4).contains {
                    image.pixels[$0 + 3] > 0 && t.mercatorBounds.minX > WebMercator.project(lon: -105.49, lat: 39.5).x
                },
                "tile \(t) draws the empty sheet")
        }
    }

    /// Scans of fewer than 8 bits a sample are widened by their own depth, not joined into the
    /// series' range: a 2-bit sheet beside a 4-bit one and a 16-bit one still reaches white.
    @Test func sheetsOfFewerBitsKeepTheirOwnRange() throws {
        func scan(_ name: String, bits: Int, box: GeoBounds) throws -> String {
            let gray = try fx.geographic(name + "-8", box: box, size: 64) { _, _ in (255, 255, 255, 255) }
            let out = fx.dir.file(name + ".tif")
            try GDALTools.translate(
                gray, out,
                [
                    "-b", "1", "-scale", "0", "255", "0", "\((1 << bits) - 1)",
                    "-co", "NBITS=\(bits)", "-co", "PHOTOMETRIC=MINISBLACK"
                ])
            return out
        }
        let two = try scan("two", bits: 2, box: GeoBounds(west: -106, south: 39, east: -105.5, north: 40))
        let four = try scan("four", bits: 4, box: GeoBounds(west: -105.5, south: 39, east: -105, north: 40))
        let wide = try ramp("wide", box: GeoBounds(west: -105, south: 39, east: -104.5, north: 40), low: 0, high: 4000)
        let reader = try fx.build(fx.options([two, four, wide], min: 9, max: 9, out: "bits.mbtiles", resampling: .nearest))
        for (lon, what) in [(-105.75, "2-bit"), (-105.25, "4-bit")] {
            let t = WebMercator.tile(lon: lon, lat: 39.5, zoom: 9)
            let image = try #require(try fx.tile(reader, t))
            let b = t.mercatorBounds, p = WebMercator.project(lon: lon, lat: 39.5)
            let x = Int((p.x - b.minX) / (b.maxX - b.minX) * 256), y = Int((b.maxY - p.y) / (b.maxY - b.minY) * 256)
            let i = (y * 256 + x) * 4
            #expect(image.pixels[i] == 255 && image.pixels[i + 3] == 255, "the \(what) sheet's white is \(image.pixels[i])")
        }
    }

    /// A new sheet that widens the joint range changes every tile of the series: `--update`
    /// refuses, naming why, rather than keep tiles mapped from the old range.
    @Test func anUpdateThatWidensTheRangeIsRefused() throws {
        let west = try ramp("west", box: GeoBounds(west: -106, south: 39, east: -105.5, north: 40), low: 1000, high: 2000)
        let east = try ramp("east", box: GeoBounds(west: -105.5, south: 39, east: -105, north: 40), low: 2000, high: 3000)
        var o = fx.options([west, east], min: 8, max: 9, out: "v1.mbtiles")
        _ = try fx.build(o)
        let north = try ramp("north", box: GeoBounds(west: -106, south: 40, east: -105, north: 40.5), low: 0, high: 4000)
        o.layers[0].sources.append(north)
        o.update = o.output
        o.output = fx.dir.file("v2.mbtiles")
        #expect { try BundleBuilder(options: o).build() } throws: { error in
            "\(error)".contains("joint range of 16-bit sources")
        }
        // A sheet within the range updates as any new source does.
        let inside = try ramp("inside", box: GeoBounds(west: -106, south: 40, east: -105, north: 40.5), low: 1500, high: 2500)
        o.layers[0].sources[2] = inside
        let report = try BundleBuilder(options: o).build()
        #expect(report.update?.sourcesAdded.count == 1)
    }
}
