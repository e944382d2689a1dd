import Foundation
import Raster
import Terrain
import TileGeometry
import TileStore

/// Elevation rasters with known shapes, written as ESRI ASCII grids and turned into GeoTIFFs by
/// `gdal_translate`, and terrain bundles made from them independently of TrailMap's builder:
/// `gdalwarp -r bilinear` onto the tiles' Web Mercator grid as Float32, each pixel encoded with
/// `TerrainEncoding`, written as PNG by `PNGEncoder`, stored by `BundleWriter`.
public enum TerrainFixtures {
    /// A north-up grid: its CRS, the corner of its north-west pixel, pixel size, size in pixels.
    public struct Grid: Sendable {
        public var crs: String
        public var west: Double
        public var north: Double
        public var pixel: Double
        public var columns: Int
        public var rows: Int
        public init(crs: String, west: Double, north: Double, pixel: Double, columns: Int, rows: Int) {
            self.crs = crs; self.west = west; self.north = north; self.pixel = pixel; self.columns = columns; self.rows = rows
        }

        /// The CRS coordinates of pixel (`column`, `row`)'s centre.
        public func centre(column: Int, row: Int) -> (x: Double, y: Double) {
            (west + (Double(column) + 0.5) * pixel, north - (Double(row) + 0.5) * pixel)
        }
    }

    /// The nodata value of the fixtures' rasters.
    public static let nodata = -9999.0

    /// Writes a GeoTIFF (Float32) whose pixel centres hold `height(x, y)` (nil: nodata).
    @discardableResult
    public static func dem(_ grid: Grid, at path: String, height: (Double, Double) -> Double?) throws -> String {
        var text = "ncols \(grid.columns)\nnrows \(grid.rows)\nxllcorner \(grid.west)\n"
        text += "yllcorner \(grid.north - Double(grid.rows) * grid.pixel)\ncellsize \(grid.pixel)\nNODATA_value \(nodata)\n"
        for r in 0..<grid.rows {
            var line = [String]()
            line.reserveCapacity(grid.columns)
            for c in 0..<grid.columns {
                let (x, y) = grid.centre(column: c, row: r)
                line.append(height(x, y).map { String(format: "%.4f", $0) } ?? String(nodata))
            }
            text += line.joined(separator: " ") + "\n"
        }
        let asc = path + ".asc"
        try text.write(toFile: asc, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: asc) }
        try GDALTools.translate(asc, path, ["-a_srs", grid.crs, "-ot", "Float32", "-a_nodata", String(nodata)])
        return path
    }

    /// Writes a terrain bundle of `dem` at `zoom` over the tiles holding `bounds` (degrees):
    /// tiles with no elevation at all are left out. Returns the tiles written.
    @discardableResult
    public static func terrainBundle(
        from dem: String, bounds: GeoBounds, zoom: Int, encoding: TerrainEncoding,
        tileSize: Int = 256, to path: String
    ) throws -> [TileID] {
        let range = TileRange(bounds: bounds, zoom: zoom)
        let nw = WebMercator.tileBounds(TileID(z: zoom, x: range.minX, y: range.minY)!)
        let se = WebMercator.tileBounds(TileID(z: zoom, x: range.maxX, y: range.maxY)!)
        let columns = (range.maxX - range.minX + 1) * tileSize, rows = (range.maxY - range.minY + 1) * tileSize
        let raw = path + ".warped"
        defer { for ext in ["", ".hdr", ".aux.xml"] { try? FileManager.default.removeItem(atPath: raw + ext) } }
        try GDALTools.warp(
            dem, raw,
            [
                "-of", "ENVI", "-t_srs", "EPSG:3857", "-r", "bilinear", "-et", "0", "-ot", "Float32",
                "-te", "\(nw.minX)", "\(se.minY)", "\(se.maxX)", "\(nw.maxY)",
                "-ts", "\(columns)", "\(rows)", "-dstnodata", String(nodata)
            ])
        let data = try Data(contentsOf: URL(fileURLWithPath: raw))
        let values: [Float] = data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        guard values.count == columns * rows else {
            throw GDALTools.Failure(command: "gdalwarp", output: "unexpected size \(values.count)")
        }
        var tiles = [(tile: TileID, data: [UInt8])]()
        for t in range {
            let ox = (t.x - range.minX) * tileSize, oy = (t.y - range.minY) * tileSize
            var pixels = [UInt8](repeating: 0, count: tileSize * tileSize * 4)
            var any = false
            for r in 0..<tileSize {
                for c in 0..<tileSize {
                    let v = Double(values[(oy + r) * columns + ox + c])
                    guard v.isFinite, v != nodata else { continue }
                    let p = encoding.encode(v), i = (r * tileSize + c) * 4
                    pixels[i] = p.red; pixels[i + 1] = p.green; pixels[i + 2] = p.blue; pixels[i + 3] = 255
                    any = true
                }
            }
            guard any else { continue }
            tiles.append((t, try PNGEncoder.encode(RGBAImage(width: tileSize, height: tileSize, pixels: pixels))))
        }
        var meta = BundleMetadata(name: "terrain", bounds: bounds, minZoom: zoom, maxZoom: zoom)
        meta.extra[TerrainEncoding.metadataKey] = encoding.metadataValue
        meta.extra["trailmap:tilesize"] = String(tileSize)
        try TestBundle.write(tiles, to: path, metadata: meta)
        return tiles.map(\.tile)
    }
}

/// Shapes whose slopes and heights are known exactly.
public enum TerrainShapes {
    /// A cone of `height` metres above `base` metres, its sides at `slope` (rise over run), centred on
    /// (`cx`, `cy`) in metres; `base` beyond its foot.
    public static func cone(cx: Double, cy: Double, base: Double, height: Double, slope: Double) -> (Double, Double) -> Double? {
        { x, y in
            let r = ((x - cx) * (x - cx) + (y - cy) * (y - cy)).squareRoot()
            return base + max(0, height - r * slope)
        }
    }

    /// A plane rising northward at `slope` (rise over run) from `base` metres at `y0`.
    public static func ramp(y0: Double, base: Double, slope: Double) -> (Double, Double) -> Double? {
        { _, y in base + (y - y0) * slope }
    }
}
