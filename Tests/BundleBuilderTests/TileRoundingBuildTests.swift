import Foundation
import Raster
import Testing
import TileGeometry
import TileStore
@testable import BundleBuilder
import TrailMapTestSupport

/// `--rounding`: a build stores each resampled value rounded up or down (compact, the default)
/// or to nearest; the levels below the top are made from the values as computed, not as stored.
@Suite(.computeThreads) struct TileRoundingBuildTests {
    let fixture = RealSourceFixture()
    /// The top tile: the source covers it exactly at twice its resolution, so each tile pixel is
    /// the plain mean of a 2×2 block of source pixels.
    static let top = TileID(z: 8, x: 50, y: 90)!
    static let size = 512

    /// A textured colour field (no palette: more than 256 colours).
    static func color(_ c: Int, _ r: Int) -> (UInt8, UInt8, UInt8, UInt8) {
        let noise = (c &* 7919 ^ r &* 104_729) % 9
        return (UInt8((40 + c / 4 + noise) & 255), UInt8((90 + r / 5 + noise / 2) & 255), UInt8((150 + (c + r) / 9 + noise) & 255), 255)
    }

    /// A GeoTIFF in EPSG:3857 covering `top` exactly.
    func source() throws -> String {
        let png = try TestSources.write(
            in: fixture.dir, name: "grid", width: Self.size, height: Self.size,
            bounds: GeoBounds(west: 0, south: 0, east: 1, north: 1), color: Self.color)
        let b = Self.top.mercatorBounds
        let tif = fixture.dir.file("grid.tif")
        try GDALTools.translate(png, tif, ["-a_srs", "EPSG:3857", "-a_ullr", "\(b.minX)", "\(b.maxY)", "\(b.maxX)", "\(b.minY)"])
        return tif
    }

    func build(_ src: String, _ rounding: TileRounding, out: String) throws -> (reader: BundleReader, bytes: Int) {
        var o = fixture.options([src], min: 7, max: 8, out: out)
        o.rounding = rounding
        let reader = try fixture.build(o)
        var bytes = 0
        try reader.forEachTile { _, data in
            bytes += data.count; return true
        }
        return (reader, bytes)
    }

    @Test func compactValuesAreTheFloorOrCeilingOfTheExactMean() throws {
        let src = try source()
        let compact = try build(src, .compact, out: "compact.mbtiles")
        let nearest = try build(src, .nearest, out: "nearest.mbtiles")
        let c = try #require(try fixture.tile(compact.reader, Self.top))
        let n = try #require(try fixture.tile(nearest.reader, Self.top))
        var moved = 0
        for j in 0..<256 {
            for i in 0..<256 {
                let p = (j * 256 + i) * 4
                #expect(c.pixels[p + 3] == 255 && n.pixels[p + 3] == 255)
                for ch in 0..<3 {
                    var sum = 0
                    for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                        let v = Self.color(2 * i + dx, 2 * j + dy)
                        sum += Int([v.0, v.1, v.2][ch])
                    }
                    let (lo, hi) = (sum / 4, (sum + 3) / 4)
                    let got = Int(c.pixels[p + ch]), near = Int(n.pixels[p + ch])
                    #expect((lo...hi).contains(got), "(\(i), \(j)) channel \(ch): \(got), exact \(Double(sum) / 4)")
                    #expect(
                        (lo...hi).contains(near) && abs(4 * near - sum) <= 2,
                        "nearest (\(i), \(j)) channel \(ch): \(near), exact \(Double(sum) / 4)")
                    if got != near { moved += 1 }
                }
            }
        }
        #expect(moved > 256 * 256 * 3 / 10, "only \(moved) values were stored as the other neighbour")
        #expect(Double(compact.bytes) < 0.95 * Double(nearest.bytes), "compact \(compact.bytes) B, nearest \(nearest.bytes) B")
    }

    /// The level below is made from the values as computed (what rounding to nearest stores), so
    /// a parent pixel is the floor or ceiling of the mean of the nearest-rounded children.
    @Test func theLevelBelowIsMadeFromTheComputedValues() throws {
        let src = try source()
        let compact = try build(src, .compact, out: "compact.mbtiles")
        let nearest = try build(src, .nearest, out: "nearest.mbtiles")
        let child = try #require(try fixture.tile(nearest.reader, Self.top))
        let parentID = Self.top.parent!
        let parent = try #require(try fixture.tile(compact.reader, parentID))
        let ox = (Self.top.x % 2) * 128, oy = (Self.top.y % 2) * 128
        var outside = 0
        for j in 0..<128 {
            for i in 0..<128 {
                for ch in 0..<3 {
                    var sum = 0
                    for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                        sum += Int(child.pixels[((2 * j + dy) * 256 + 2 * i + dx) * 4 + ch])
                    }
                    let got = Int(parent.pixels[((oy + j) * 256 + ox + i) * 4 + ch])
                    if !((sum / 4)...((sum + 3) / 4)).contains(got) { outside += 1 }
                }
            }
        }
        #expect(outside == 0, "\(outside) parent values are not a neighbour of the mean of the computed children")
    }

    @Test func theCommandLineAndTheManifestChooseTheRounding() throws {
        let manifest = fixture.dir.file("m.json")
        let text = #"{"name": "R", "output": {"rounding": "nearest"}, "layers": [{"name": "grid", "sources": ["grid.tif"]}]}"#
        try text.write(toFile: manifest, atomically: true, encoding: .utf8)
        let options = try BuildManifest.load(path: manifest).options(output: fixture.dir.file("m.mbtiles"))
        #expect(options.rounding == .nearest && options.tileEncoding.png.rounding == .nearest)
        try #"{"name": "R", "output": {"rounding": "up"}, "layers": [{"name": "grid", "sources": ["grid.tif"]}]}"#.write(
            toFile: manifest, atomically: true, encoding: .utf8)
        #expect { try BuildManifest.load(path: manifest) } throws: {
            "\($0)".contains("output.rounding") && "\($0)".contains("nearest, compact")
        }
        #expect(BuildOptions(sources: [], name: "x", minZoom: 0, maxZoom: 1, output: "x.mbtiles").tileEncoding.png.rounding == .compact)
    }
}
