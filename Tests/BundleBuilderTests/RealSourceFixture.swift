import Foundation
import Raster
import SourceReaders
import TileGeometry
import TileStore
@testable import BundleBuilder
import TrailMapTestSupport

/// Real rasters made by GDAL's tools in a temporary folder, builds of them, and gdalwarp's
/// rendering of the same tiles as the reference.
struct RealSourceFixture {
    let dir = TemporaryDirectory()

    /// An RGB GeoTIFF in EPSG:4326 over `box`, `size` pixels a side, coloured by `color`.
    func geographic(
        _ name: String, box: GeoBounds, size: Int = 400,
        color: @escaping (Int, Int) -> (UInt8, UInt8, UInt8, UInt8) = TestPatterns.checkerboard(cell: 16)
    ) throws -> String {
        let png = try TestSources.write(in: dir, name: name + "-src", width: size, height: size, bounds: box, color: color)
        let tif = dir.file(name + ".tif")
        // Palette PNGs (few colours) are expanded to RGB; truecolour ones are taken as they are.
        do { try GDALTools.translate(png, tif, ["-expand", "rgb", "-a_srs", "EPSG:4326"]) } catch {
            try GDALTools.translate(png, tif, ["-a_srs", "EPSG:4326"])
        }
        return tif
    }

    /// `src` warped to `crs` (nearest neighbour), with `collar` making the pixels outside the
    /// source transparent, and `creation` options (-co ...).
    func projected(
        _ src: String, name: String, crs: String, pixel: Double, collar: Collar = .nodata,
        creation: [String] = []
    ) throws -> String {
        let out = dir.file(name + ".tif")
        var args = ["-t_srs", crs, "-tr", "\(pixel)", "\(pixel)", "-r", "near"]
        switch collar {
        case .nodata: args += ["-dstnodata", "0"]
        case .alpha: args += ["-dstalpha"]
        case .mask:
            // Warp with alpha, then turn the alpha band into an internal mask (JPEG-friendly).
            let tmp = dir.file(name + "-alpha.tif")
            try GDALTools.warp(src, tmp, args + ["-dstalpha"])
            try GDALTools.translate(
                tmp, out,
                [
                    "-b", "1", "-b", "2", "-b", "3", "-mask", "4",
                    "--config", "GDAL_TIFF_INTERNAL_MASK", "YES"
                ] + creation)
            return out
        }
        try GDALTools.warp(src, out, args + creation)
        return out
    }

    enum Collar { case nodata, alpha, mask }

    func options(
        _ sources: [String], min: Int, max: Int, out: String = "out.mbtiles",
        resampling: Resampling = .average
    ) -> BuildOptions {
        var o = BuildOptions(sources: sources, name: "Real", minZoom: min, maxZoom: max, output: dir.file(out))
        o.threads = 2
        o.resampling = resampling
        return o
    }

    func build(_ o: BuildOptions) throws -> BundleReader {
        _ = try BundleBuilder(options: o).build()
        return try BundleReader(path: o.output)
    }

    func tile(_ reader: BundleReader, _ t: TileID) throws -> RGBAImage? {
        try reader.tile(t).map { try PNGDecoder.decode($0) }
    }

    /// gdalwarp's rendering of one tile of `src` (EPSG:3857, 256 px, with alpha), with `extra`
    /// arguments (e.g. `-tps`).
    func reference(_ t: TileID, _ src: String, resampling: String, extra: [String] = []) throws -> RGBAImage {
        let b = t.mercatorBounds
        let out = dir.file("ref-\(t.z)-\(t.x)-\(t.y)-\(resampling)\(extra.joined()).tif")
        try GDALTools.warp(
            src, out,
            [
                "-t_srs", "EPSG:3857", "-te", "\(b.minX)", "\(b.minY)", "\(b.maxX)", "\(b.maxY)",
                "-ts", "256", "256", "-r", resampling, "-dstalpha"
            ] + extra)
        let dataset = try RasterDataset(path: out)
        let d = try dataset.describe(options: ReadOptions())
        var pixels = [UInt8](repeating: 0, count: 256 * 256 * 4)
        try pixels.withUnsafeMutableBufferPointer {
            try dataset.readRGBA(d, level: 0, x0: 0, y0: 0, width: 256, height: 256, into: $0.baseAddress!)
        }
        return RGBAImage(width: 256, height: 256, pixels: pixels)
    }

    /// Share of pixels opaque in both images whose colours differ by more than `tolerance`.
    static func mismatch(_ a: RGBAImage, _ b: RGBAImage, tolerance: Int = 40) -> (fraction: Double, compared: Int) {
        var differ = 0, compared = 0
        for p in stride(from: 0, to: a.pixels.count, by: 4) where a.pixels[p + 3] == 255 && b.pixels[p + 3] == 255 {
            compared += 1
            let d = (0..<3).map { abs(Int(a.pixels[p + $0]) - Int(b.pixels[p + $0])) }.max()!
            if d > tolerance { differ += 1 }
        }
        return (compared > 0 ? Double(differ) / Double(compared) : 1, compared)
    }

    /// PSNR over the colour of pixels opaque in both.
    static func opaquePSNR(_ a: RGBAImage, _ b: RGBAImage) -> Double {
        var sum = 0.0, count = 0
        for p in stride(from: 0, to: a.pixels.count, by: 4) where a.pixels[p + 3] == 255 && b.pixels[p + 3] == 255 {
            for c in 0..<3 {
                let d = Double(a.pixels[p + c]) - Double(b.pixels[p + c])
                sum += d * d
            }
            count += 3
        }
        guard count > 0 else { return 0 }
        return sum == 0 ? .infinity : 10 * log10(255 * 255 / (sum / Double(count)))
    }

    /// Every tile of a bundle, decoded.
    func allTiles(_ reader: BundleReader, zooms: ClosedRange<Int>, bounds: GeoBounds) throws -> [(TileID, RGBAImage)] {
        var out = [(TileID, RGBAImage)]()
        for z in zooms {
            for t in TileRange(bounds: bounds, zoom: z) {
                if let image = try tile(reader, t) { out.append((t, image)) }
            }
        }
        return out
    }

    /// Pixels with some opacity whose colour is near black: nodata painted as colour.
    static func darkPixels(_ image: RGBAImage) -> Int {
        var count = 0
        for p in stride(from: 0, to: image.pixels.count, by: 4)
        where image.pixels[p + 3] > 0 && max(image.pixels[p], image.pixels[p + 1], image.pixels[p + 2]) < 30 {
            count += 1
        }
        return count
    }
}
