import Foundation
import Raster
import SourceReaders
import Testing
import TileGeometry
import TileStore
@testable import BundleBuilder
import TrailMapTestSupport

/// A UTM zone 60 South sheet across the antimeridian (Fiji, 179E to 179W), made by gdalwarp:
/// tiles on both sides, where gdalwarp puts them, and a centre near 180 degrees.
@Suite struct AntimeridianBuildTests {
    let fx = RealSourceFixture()

    @Test func aSheetAcrossTheAntimeridianBuildsOnBothSides() throws {
        let box = GeoBounds(west: 179, south: -17, east: 181, north: -16)
        let src = try fx.geographic("fiji", box: box)
        let sheet = try fx.projected(src, name: "utm60s", crs: "EPSG:32760", pixel: 500)
        let info = try SourceLoader.inspect(sheet, options: ReadOptions())
        #expect(info.parts.count == 2, "\(info.parts)")
        #expect(info.parts.allSatisfy { $0.west >= -180 && $0.east <= 180 })

        let o = fx.options([sheet], min: 5, max: 9, out: "fiji.mbtiles", resampling: .nearest)
        let reader = try fx.build(o)
        var columns = Set<Int>()
        try reader.forEachTileKey { t, _, _ in if t.z == 9 { columns.insert(t.x) } }
        #expect(columns.contains(0) && columns.contains(511), "tiles either side of 180 degrees: \(columns.sorted())")
        #expect(columns.allSatisfy { $0 <= 2 || $0 >= 509 }, "no tile far from the sheet: \(columns.sorted())")

        for lon in [179.5, -179.5] {
            let t = WebMercator.tile(lon: lon, lat: -16.5, zoom: 9)
            let ours = try #require(try fx.tile(reader, t), "tile \(t)")
            let theirs = try fx.reference(t, sheet, resampling: "near")
            let (fraction, compared) = RealSourceFixture.mismatch(ours, theirs)
            #expect(compared > 5_000, "tile \(t) overlaps gdalwarp's")
            // A checker cell spans ~18 tile pixels at zoom 9 here.
            #expect(fraction * 18 < 0.5, "tile \(t): mean offset \(fraction * 18) px against gdalwarp")
        }
        let meta = try reader.metadataPairs()
        let center = try #require(meta["center"]?.split(separator: ",").compactMap { Double($0) })
        #expect(center.count == 3 && 180 - abs(center[0]) < 1, "centre \(meta["center"] ?? "")")
    }

    /// The tile limit counts the tiles either side of the antimeridian, not around the world
    /// (zoom 18 alone would be ~200 million tiles across every longitude), and a region far
    /// from the sheet is refused as for any source.
    @Test func theLimitAndTheRegionUseBothSides() throws {
        let src = try fx.geographic("fiji", box: GeoBounds(west: 179, south: -17, east: 181, north: -16), size: 64)
        let sheet = try fx.projected(src, name: "utm60s", crs: "EPSG:32760", pixel: 2000)
        let plan = try BundleBuilder(options: fx.options([sheet], min: 5, max: 18, out: "deep.mbtiles")).plan()
        #expect(plan.ranges[0].last?.count ?? 0 > BundleBuilder.maxTiles / 2, "the ranges span every longitude")
        #expect(BundleBuilder.partTiles(plan.sources, layerOf: plan.layerOf, bands: plan.bands, bounds: plan.bounds) < 3_000_000)

        var o = fx.options([sheet], min: 5, max: 8, out: "colorado.mbtiles")
        o.clipBounds = RealSourceTests.box
        #expect { try BundleBuilder(options: o).plan() } throws: { error in
            if case .sourceOutsideRegion = error as? BuildError { return true }
            return false
        }
    }

    /// Separate sources either side (Guam and Hawaii): the centre lies between them across the
    /// antimeridian, and the bounds span every longitude so that it lies inside them.
    @Test func sourcesFarApartAcrossTheAntimeridianCentreBetweenThem() throws {
        let guam = try fx.geographic("guam", box: GeoBounds(west: 144.6, south: 13.2, east: 145, north: 13.7), size: 32)
        let hawaii = try fx.geographic("hawaii", box: GeoBounds(west: -156, south: 19, east: -155, north: 20), size: 32)
        let reader = try fx.build(fx.options([guam, hawaii], min: 3, max: 4, out: "pacific.mbtiles"))
        let meta = try reader.metadataPairs()
        let center = try #require(meta["center"]?.split(separator: ",").compactMap { Double($0) })
        let bounds = try #require(meta["bounds"]?.split(separator: ",").compactMap { Double($0) })
        #expect(center.count == 3 && (center[0] > 170 || center[0] < -170), "centre \(meta["center"] ?? "")")
        #expect(bounds.count == 4 && bounds[0] == -180 && bounds[2] == 180, "bounds \(meta["bounds"] ?? "")")
    }
}
