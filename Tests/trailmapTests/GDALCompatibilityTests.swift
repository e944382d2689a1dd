import Foundation
import Raster
import Testing
import TileGeometry
import TrailMapTestSupport

/// GDAL must open TrailMap bundles (CI installs gdal-bin; the test is required when CI is set).
@Suite(.blockingThreads) struct GDALCompatibilityTests {
    static let gdalinfo = ["/usr/bin/gdalinfo", "/usr/local/bin/gdalinfo"].first { FileManager.default.isExecutableFile(atPath: $0) }
    static let required = ProcessInfo.processInfo.environment["CI"] != nil

    @Test(.enabled(if: gdalinfo != nil || required, "gdalinfo is not installed"))
    func gdalReadsABuiltBundle() throws {
        let gdalinfo = try #require(Self.gdalinfo, "CI must install gdal-bin")
        let dir = TemporaryDirectory()
        let box = GeoBounds(west: -110, south: 36, east: -101, north: 42)
        let src = try TestSources.write(in: dir, name: "s", width: 180, height: 120, bounds: box, color: TestSources.terrain)
        let out = dir.file("g.mbtiles")
        let build = try CLIRunner.run([
            "build", "--source", src, "--name", "G", "--minzoom", "3", "--maxzoom", "7",
            "--out", out, "--quiet"
        ])
        #expect(build.status == 0, "\(build.stderr)")
        let info = try CLIRunner.run([out], executable: gdalinfo)
        #expect(info.status == 0, "\(info.stderr)")
        #expect(info.stdout.contains("Driver: MBTiles/MBTiles"))
        // Size at maxzoom 7 from the bounds: 9 degrees of 360 over 2^7 * 256 pixels.
        let world = Double(256 << 7)
        let expectedWidth = 9.0 / 360 * world
        let m = box.mercator
        let expectedHeight = (m.maxY - m.minY) / (2 * WebMercator.originShift) * world
        let size = try #require(info.stdout.split(separator: "\n").first { $0.hasPrefix("Size is") })
        let numbers = size.dropFirst("Size is ".count).split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
        #expect(numbers.count == 2)
        #expect(abs(numbers[0] - expectedWidth) <= 2 && abs(numbers[1] - expectedHeight) <= 2, "\(size)")
        let upperLeft = try #require(info.stdout.split(separator: "\n").first { $0.hasPrefix("Upper Left") })
        let pixel = 2 * WebMercator.originShift / world
        let coords = upperLeft.split(separator: "(")[1].split(separator: ")")[0].split(separator: ",")
            .compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
        #expect(abs(coords[0] - m.minX) < 2 * pixel && abs(coords[1] - m.maxY) < 2 * pixel, "\(upperLeft)")
        #expect(info.stdout.contains("Band 4"), "RGBA bands")
    }

    /// GDAL reads every tile variant: png, WebP lossless and lossy, jpg (JPEG with PNG edge tiles,
    /// mixed in one bundle) and 512-px WebP. `gdalinfo -checksum` decodes every full-resolution
    /// tile; `gdallocationinfo` gives the pixels TrailMap's decoder gives, transparent ones included.
    ///
    /// Known issue: GDAL 3.6 (Debian 12's) reads a 512-px WebP bundle as 256-px blocks ("Inconsistent
    /// tiles characteristics"), while it reads 512-px PNG and JPEG bundles and 256-px WebP ones, and
    /// opens each 512-px WebP tile alone as 512 x 512: its MBTiles driver apparently sizes the blocks
    /// from a probe tile it opens as PNG or JPEG only. The check is kept, as a known issue, so that a
    /// GDAL that reads them makes this test fail (and this note goes).
    @Test(.enabled(if: gdalinfo != nil || required, "gdalinfo is not installed"), arguments: TileVariant.all)
    func gdalReadsEachTileVariant(variant: TileVariant) throws {
        _ = try #require(Self.gdalinfo, "CI must install gdal-bin")
        if variant.format == .webp && variant.tileSize == 512 {
            withKnownIssue("GDAL 3.6 reads 512-px WebP MBTiles as 256-px blocks") {
                try Self.checkGDALReads(variant)
            }
        } else {
            try Self.checkGDALReads(variant)
        }
    }

    /// Writes `variant`'s bundle and checks what GDAL reads of it (see `gdalReadsEachTileVariant`).
    static func checkGDALReads(_ variant: TileVariant) throws {
        let dir = TemporaryDirectory()
        let path = dir.file("\(variant).mbtiles")
        let tiles = try TestBundle.variant(variant, to: path)
        let info = try GDALTools.run("gdalinfo", ["-checksum", path])
        #expect(info.contains("Driver: MBTiles/MBTiles") && info.contains("Band 4"), "\(variant): \(info.prefix(600))")
        #expect(!info.contains("ERROR") && !info.contains("Warning"), "\(variant): every tile decodes: \(info.prefix(600))")
        // The full-resolution size follows the tile size: 9 degrees of 360 over 2^6 tiles of S px.
        let size = try #require(info.split(separator: "\n").first { $0.hasPrefix("Size is") })
        let width = Double(size.dropFirst("Size is ".count).split(separator: ",")[0].trimmingCharacters(in: .whitespaces)) ?? 0
        let expected = 9.0 / 360 * Double(variant.tileSize << VariantTiles.zooms.upperBound)
        #expect(abs(width - expected) <= 2, "\(variant): \(size), expected width \(expected)")

        // Pixels at block centres: an opaque tile, and an edge tile's transparent and opaque parts.
        // The transparent quarter lies west of the bundle's bounds, as a region's collar does, and
        // GDAL clips the raster to the bounds: USE_BOUNDS=NO gives it the whole tiles.
        let s = variant.tileSize
        for (t, px, py) in [
            (VariantTiles.opaqueTile, s / 2 + s / 32, s / 2 + s / 32), (VariantTiles.edgeTile, s / 8 + s / 32, s / 2 + s / 32),
            (VariantTiles.edgeTile, 3 * s / 4 + s / 32, s / 4 + s / 32)
        ] {
            let ours = try TileDecoder.decode(tiles[t]!, declared: variant.format)
            let p = (py * s + px) * 4
            let want = Array(ours.pixels[p..<(p + 4)])
            let (lon, lat) = lonLat(t, px: px, py: py, size: s)
            let out = try GDALTools.run("gdallocationinfo", ["-valonly", "-wgs84", "-oo", "USE_BOUNDS=NO", path, String(lon), String(lat)])
            let got = out.split(separator: "\n").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
            #expect(got.count == 4, "\(variant) \(t) at \(lon), \(lat): \(out)")
            if want[3] == 0 {
                #expect(got.last == 0, "\(variant) \(t) (\(px), \(py)) is transparent: \(got)")
            } else {
                let tolerance = variant.lossless || variant.format == .png ? 0 : 3
                #expect(
                    got.count == 4 && zip(got, want).allSatisfy { abs($0 - Int($1)) <= tolerance },
                    "\(variant) \(t) (\(px), \(py)): GDAL \(got), TrailMap \(want)")
            }
        }
    }

    /// The longitude and latitude of pixel (`px`, `py`)'s centre in tile `t` of `size` px.
    static func lonLat(_ t: TileID, px: Int, py: Int, size: Int) -> (Double, Double) {
        let world = Double(size << t.z)
        let x = (Double(t.x * size + px) + 0.5) / world, y = (Double(t.y * size + py) + 0.5) / world
        return (x * 360 - 180, atan(sinh(Double.pi * (1 - 2 * y))) * 180 / Double.pi)
    }
}
