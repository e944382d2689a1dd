import Foundation
import SourceReaders
import Testing
import TileGeometry
import TrailMapTestSupport

/// `DEMReader.elevations` with `.bilinear` at zooms finer than the DEM is computed from the
/// DEM's pixels without GDAL's warper: it must give what the warper gives on the same grid
/// (GDAL's masked bilinear kernel: a pixel on a void is void, voids around it left out), at the
/// void's edge and at the DEM's own edge, with the exact transformer and the approximating one.
@Suite(.computeThreads) struct DEMBilinearTests {
    let fx = TerrainFixture()

    /// Blocks of 3×3 z15 tiles of the cone (30 m pixels; z15's are about 3.7 m on the ground):
    /// around the square void, at the DEM's north-west corner, and one past its east edge.
    @Test(arguments: [0.0, 0.05])
    func finerThanTheDEMItMatchesGDALsWarper(_ errorThreshold: Double) throws {
        let dem = try fx.cone()
        let reader = try DEMReader(path: dem, crs: nil)
        // The void's corner (pixels 40-60 from the north-west corner), the DEM's corners.
        let u = TerrainFixture.utm
        let places = [
            (u.x0 + 40 * 30, u.y0 + 12000 - 40 * 30), (u.x0 + 60 * 30, u.y0 + 12000 - 60 * 30), (u.x0, u.y0 + 12000),
            (u.x0 + 12000, u.y0 + 6000)
        ]
        let toLonLat = try CoordinateTransformer(from: SpatialReference(userInput: "EPSG:32613"), to: .wgs84, path: dem)
        var compared = 0, voids = 0, mismatchedVoids = 0, worst: Float = 0
        for (x, y) in places {
            var xs = [x], ys = [y]
            toLonLat.transform(xs: &xs, ys: &ys)
            let centre = WebMercator.tile(lon: xs[0], lat: ys[0], zoom: 15)
            let first = TileID(unchecked: 15, centre.x - 1, centre.y - 1), last = TileID(unchecked: 15, centre.x + 1, centre.y + 1)
            let (nw, se) = (first.mercatorBounds, last.mercatorBounds)
            let ours = try reader.elevations(
                minX: nw.minX, minY: se.minY, maxX: se.maxX, maxY: nw.maxY, width: 768, height: 768, border: 1,
                sampling: .bilinear, errorThreshold: errorThreshold)
            let gdal = try reader.warpedElevations(
                minX: nw.minX, minY: se.minY, maxX: se.maxX, maxY: nw.maxY, width: 768, height: 768,
                border: 1, sampling: .bilinear, errorThreshold: errorThreshold)
            #expect(ours.count == gdal.count)
            for i in gdal.indices {
                if ours[i].isNaN || gdal[i].isNaN {
                    if ours[i].isNaN != gdal[i].isNaN { mismatchedVoids += 1 } else { voids += 1 }
                    continue
                }
                compared += 1
                worst = max(worst, abs(ours[i] - gdal[i]))
            }
        }
        #expect(compared > 1_000_000 && voids > 100_000, "\(compared) compared, \(voids) voids")
        // The same transformer, the same kernel: at most a pixel whose centre lies on a DEM
        // pixel's edge may fall either way. The approximating transformer interpolates along
        // rows that the warper cuts in chunks of its own: positions a little apart there.
        let exact = errorThreshold == 0
        #expect(mismatchedVoids <= (exact ? 8 : 64), "\(mismatchedVoids) pixels void in one only")
        #expect(worst < (exact ? 0.01 : 0.1), "largest difference \(worst) m")
    }

    /// Where the tile pixels are coarser than the DEM's, GDAL's kernel widens: the warper's
    /// answer is given as it is.
    @Test func coarserThanTheDEMItIsGDALsWarp() throws {
        let dem = try fx.cone()
        let reader = try DEMReader(path: dem, crs: nil)
        let t = WebMercator.tile(lon: -105.515, lat: 39.983, zoom: 11)
        let b = t.mercatorBounds
        let ours = try reader.elevations(minX: b.minX, minY: b.minY, maxX: b.maxX, maxY: b.maxY, size: 256, border: 1, sampling: .bilinear)
        let gdal = try reader.warpedElevations(
            minX: b.minX, minY: b.minY, maxX: b.maxX, maxY: b.maxY, width: 256, height: 256, border: 1,
            sampling: .bilinear)
        #expect(ours.indices.allSatisfy { ours[$0] == gdal[$0] || (ours[$0].isNaN && gdal[$0].isNaN) })
        #expect(ours.contains { !$0.isNaN })
    }
}
