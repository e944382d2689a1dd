// Profile benchmark (scripts/bench/profile.sh): makes a terrain bundle from a DEM the way the
// tests do (gdalwarp bilinear onto the tiles' grid, encoded, PNG), times 1000-sample profiles on
// the device path (TerrainSampler over the bundle), and compares their ascent with the same
// profile sampled from the source DEM through GDAL.
//
//   profile-bench make DEM WEST SOUTH EAST NORTH ZOOM OUT.mbtiles
//   profile-bench run DEM BUNDLE WEST SOUTH EAST NORTH RUNS
import Foundation
import Raster
import Terrain
import TerrainDEM
import TileGeometry
import TileStore

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("profile-bench: \(message)\n".utf8))
    exit(1)
}

func shell(_ args: [String]) {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    p.arguments = args
    do { try p.run() } catch { fail("\(args[0]): \(error)") }
    p.waitUntilExit()
    if p.terminationStatus != 0 { fail("\(args.joined(separator: " ")) failed") }
}

func make(dem: String, bounds: GeoBounds, zoom: Int, out: String) {
    let size = 256, nodata = -99999.0
    let range = TileRange(bounds: bounds, zoom: zoom)
    let nw = WebMercator.tileBounds(TileID(z: zoom, x: range.minX, y: range.minY)!)
    let se = WebMercator.tileBounds(TileID(z: zoom, x: range.maxX, y: range.maxY)!)
    let columns = (range.maxX - range.minX + 1) * size, rows = (range.maxY - range.minY + 1) * size
    let raw = out + ".warped"
    shell([
        "gdalwarp", "-q", "-overwrite", "-of", "ENVI", "-t_srs", "EPSG:3857", "-r", "bilinear", "-et", "0", "-ot", "Float32",
        "-te", "\(nw.minX)", "\(se.minY)", "\(se.maxX)", "\(nw.maxY)", "-ts", "\(columns)", "\(rows)", "-dstnodata", "\(nodata)", dem, raw
    ])
    guard let data = FileManager.default.contents(atPath: raw) else { fail("no warped raster") }
    let values: [Float] = data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    var tiles = [(tile: TileID, data: [UInt8])]()
    for t in range {
        let ox = (t.x - range.minX) * size, oy = (t.y - range.minY) * size
        var pixels = [UInt8](repeating: 0, count: size * size * 4)
        var any = false
        for r in 0..<size {
            for c in 0..<size {
                let v = Double(values[(oy + r) * columns + ox + c])
                guard v.isFinite, v != nodata else { continue }
                let p = TerrainEncoding.terrarium.encode(v), i = (r * size + c) * 4
                pixels[i] = p.red; pixels[i + 1] = p.green; pixels[i + 2] = p.blue; pixels[i + 3] = 255
                any = true
            }
        }
        if any, let png = try? PNGEncoder.encode(RGBAImage(width: size, height: size, pixels: pixels)) { tiles.append((t, png)) }
    }
    for ext in ["", ".hdr", ".aux.xml"] { try? FileManager.default.removeItem(atPath: raw + ext) }
    var meta = BundleMetadata(name: "terrain", bounds: bounds, minZoom: zoom, maxZoom: zoom)
    meta.extra[TerrainEncoding.metadataKey] = TerrainEncoding.terrarium.metadataValue
    do {
        let writer = try BundleWriter(path: out)
        try writer.add(tiles)
        _ = try writer.finish(metadata: meta)
    } catch { fail("\(out): \(error)") }
    print("wrote \(tiles.count) tiles to \(out)")
}

/// A zig-zag line across `bounds` long enough for 1000 samples at `spacing`.
func line(_ b: GeoBounds, seed: Int) -> [GeoPoint] {
    var points = [GeoPoint]()
    for i in 0..<12 {
        let f = Double(i) / 11
        let lat = b.south + (b.north - b.south) * (0.15 + 0.7 * f)
        let lon = b.west + (b.east - b.west) * (i % 2 == 0 ? 0.2 + 0.01 * Double(seed % 7) : 0.8 - 0.01 * Double(seed % 5))
        points.append(GeoPoint(lat: lat, lon: lon))
    }
    return points
}

func run(dem: String, bundle: String, bounds: GeoBounds, runs: Int) {
    do {
        let tiles = try TerrainSampler(paths: [bundle], memo: TerrainTileMemo(capacity: 256))
        let source = try DEMSampler(path: dem)
        let probe = line(bounds, seed: 0)
        let spacing = LineResampler.length(probe) / 999
        var times = [Double]()
        var worst = 0.0
        for i in 0..<runs {
            let l = line(bounds, seed: i)
            let start = ContinuousClock.now
            let p = try ProfileBuilder.profile(l, options: ProfileOptions(spacing: spacing), source: tiles)
            let d = ContinuousClock.now - start
            times.append(Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15)
            if i < 5 {
                let reference = try ProfileBuilder.profile(l, options: ProfileOptions(spacing: spacing), source: source)
                worst = max(worst, abs(p.ascent - reference.ascent) / reference.ascent)
                print(
                    String(
                        format: "ascent %.1f m (tiles) vs %.1f m (GDAL on the DEM), %d samples", p.ascent, reference.ascent, p.samples.count
                    ))
            }
        }
        times.sort()
        let p95 = times[min(times.count - 1, Int(Double(times.count) * 0.95))]
        print(
            String(
                format: "device profile (1000 samples): p50 %.2f ms, p95 %.2f ms over %d runs (first run, cold tiles: %.2f ms)",
                times[times.count / 2], p95, runs, times.max() ?? 0))
        print(String(format: "ascent difference, worst of 5 lines: %.2f %%", worst * 100))
    } catch { fail("\(error)") }
}

let a = CommandLine.arguments
func number(_ i: Int) -> Double {
    guard let v = Double(a[i]) else { fail("\(a[i]) is not a number") }
    return v
}
if a.count == 9, a[1] == "make" {
    make(
        dem: a[2], bounds: GeoBounds(west: number(3), south: number(4), east: number(5), north: number(6)), zoom: Int(number(7)), out: a[8])
} else if a.count == 9, a[1] == "run" {
    run(
        dem: a[2], bundle: a[3], bounds: GeoBounds(west: number(4), south: number(5), east: number(6), north: number(7)),
        runs: Int(number(8)))
} else {
    fail("usage: profile-bench make DEM W S E N ZOOM OUT | run DEM BUNDLE W S E N RUNS")
}
