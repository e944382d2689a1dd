import Foundation
import Raster
import SourceReaders
import Terrain
import TileGeometry
import TileStore
@testable import BundleBuilder
import TrailMapTestSupport

/// DEMs made by GDAL in the test run (an ASCII grid written here, turned into a GeoTIFF by
/// gdal_translate), terrain builds of them, and gdal's own answers for the same tiles.
struct TerrainFixture {
    let dir = TemporaryDirectory()

    /// A DEM of `size`² pixels of `cell` units from (x0, y0) (lower left) in `srs` (nil: none
    /// declared), each pixel's value `elevation(x, y)` at its centre (nil: a void, -9999).
    func dem(
        _ name: String, size: Int, cell: Double, x0: Double, y0: Double, srs: String?, type: String = "Float32",
        elevation: (Double, Double) -> Double?
    ) throws -> String {
        var text = "ncols \(size)\nnrows \(size)\nxllcorner \(x0)\nyllcorner \(y0)\ncellsize \(cell)\nNODATA_value -9999\n"
        for r in 0..<size {
            let y = y0 + (Double(size - r) - 0.5) * cell
            text +=
                (0..<size).map { c in
                    elevation(x0 + (Double(c) + 0.5) * cell, y).map { String(format: "%.4f", $0) } ?? "-9999"
                }.joined(separator: " ") + "\n"
        }
        let asc = dir.file("\(name).asc")
        try text.write(toFile: asc, atomically: true, encoding: .utf8)
        let tif = dir.file("\(name).tif")
        try GDALTools.translate(asc, tif, ["-ot", type] + (srs.map { ["-a_srs", $0] } ?? []))
        return tif
    }

    /// UTM 13N (EPSG:32613) origin of the test DEMs, near Boulder, Colorado.
    static let utm = (x0: 450_000.0, y0: 4_420_000.0)

    /// A cone 3000 m high on a 1000 m plain, 30 m pixels in UTM 13N, with a square void.
    func cone() throws -> String {
        let n = 400, cell = 30.0, cx = Self.utm.x0 + 6000, cy = Self.utm.y0 + 6000
        return try dem("cone", size: n, cell: cell, x0: Self.utm.x0, y0: Self.utm.y0, srs: "EPSG:32613") { x, y in
            let col = (x - Self.utm.x0) / cell, row = Double(n) - (y - Self.utm.y0) / cell
            if (40...60).contains(col), (40...60).contains(row) { return nil }
            return 1000 + max(0, 3000 - 0.5 * ((x - cx) * (x - cx) + (y - cy) * (y - cy)).squareRoot())
        }
    }

    /// The options of a terrain build of `layer` at zooms `zooms`.
    func options(_ layer: TerrainLayer, zooms: ClosedRange<Int>, out: String, tileSize: Int = 256) -> BuildOptions {
        var o = BuildOptions(sources: [], name: "terrain", minZoom: zooms.lowerBound, maxZoom: zooms.upperBound, output: dir.file(out))
        o.layers = []
        o.terrain = layer
        o.threads = 2
        o.tileSize = tileSize
        return o
    }

    @discardableResult
    func build(_ o: BuildOptions) throws -> BundleReader {
        _ = try BundleBuilder(options: o).build()
        return try BundleReader(path: o.output)
    }

    func tile(_ reader: BundleReader, _ t: TileID) throws -> RGBAImage? {
        guard let data = try reader.tile(t) else { return nil }
        return try TileDecoder.decode([UInt8](data))
    }

    /// The DEM warped straight to tile `t` by gdalwarp (`size`² pixels and `border` more on each
    /// side, EPSG:3857), as a Float32 GeoTIFF.
    func warped(_ dem: String, _ t: TileID, size: Int = 256, border: Int = 1, resampling: String) throws -> String {
        let b = t.mercatorBounds, px = (b.maxX - b.minX) / Double(size), pad = px * Double(border)
        let out = dir.file("warped-\(t.z)-\(t.x)-\(t.y)-\(resampling).tif")
        try GDALTools.warp(
            dem, out,
            [
                "-t_srs", "EPSG:3857", "-te", "\(b.minX - pad)", "\(b.minY - pad)", "\(b.maxX + pad)", "\(b.maxY + pad)",
                "-ts", "\(size + 2 * border)", "\(size + 2 * border)", "-r", resampling, "-dstnodata", "-9999", "-ot", "Float32"
            ])
        return out
    }

    /// `gdaldem hillshade` of tile `t`'s warped DEM (its border cut off) with `-s` the ground size
    /// of a Web Mercator metre at the tile's middle latitude (gdaldem multiplies the pixel size by
    /// it); 0 where gdaldem has no value.
    func gdaldemHillshade(_ dem: String, _ t: TileID, resampling: String, extra: [String] = []) throws -> [UInt8] {
        let warped = try warped(dem, t, resampling: resampling)
        let lat = WebMercator.unproject(x: 0, y: (t.mercatorBounds.minY + t.mercatorBounds.maxY) / 2).lat
        let shaded = dir.file("hs-\(t.z)-\(t.x)-\(t.y)-\(extra.joined()).tif")
        try GDALTools.run("gdaldem", ["hillshade", "-q", "-s", "\(cos(lat * .pi / 180))"] + extra + [warped, shaded])
        let png = dir.file("hs-\(t.z)-\(t.x)-\(t.y)-\(extra.joined()).png")
        try GDALTools.translate(shaded, png, ["-of", "PNG", "-srcwin", "1", "1", "256", "256", "-a_nodata", "none"])
        let image = try PNGDecoder.decode([UInt8](try Data(contentsOf: URL(fileURLWithPath: png))))
        return stride(from: 0, to: image.pixels.count, by: 4).map { image.pixels[$0] }
    }

    /// A one-band raster's values, rows north first, through gdal_translate's ASCII grid.
    func floats(_ raster: String) throws -> [Double] {
        let asc = dir.file("read-\(UUID().uuidString).asc")
        try GDALTools.translate(raster, asc, ["-of", "AAIGrid", "-co", "DECIMAL_PRECISION=4"])
        let text = try String(contentsOfFile: asc, encoding: .utf8)
        return text.split(separator: "\n").filter { $0.first.map { $0.isNumber || $0 == "-" || $0 == " " } ?? false }
            .flatMap { $0.split(separator: " ").compactMap { Double($0) } }
    }

    /// PSNR in dB of `ours` (grey tile pixels, alpha 0 left out) against `theirs` where both have a value.
    static func psnr(_ ours: RGBAImage, _ theirs: [UInt8]) -> (psnr: Double, compared: Int) {
        var sum = 0.0, n = 0
        for i in theirs.indices where theirs[i] != 0 && ours.pixels[i * 4 + 3] != 0 {
            let d = Double(ours.pixels[i * 4]) - Double(theirs[i])
            sum += d * d
            n += 1
        }
        let mse = sum / Double(max(n, 1))
        return (mse == 0 ? 99 : 10 * log10(255 * 255 / mse), n)
    }
}
