import Foundation
import Terrain
import TerrainDEM
import TileGeometry
import Testing
import TrailMapTestSupport

/// Profiles of DEMs whose shapes are known exactly, sampled from terrain bundles made by GDAL.
@Suite(.computeThreads) struct ProfileTests {
    /// UTM 32N metres to degrees, through GDAL (`gdaltransform`).
    static func degrees(_ points: [(Double, Double)], from crs: String) throws -> [GeoPoint] {
        let input = points.map { "\($0.0) \($0.1)" }.joined(separator: "\n")
        let dir = TemporaryDirectory()
        let file = dir.file("in.txt")
        try input.write(toFile: file, atomically: true, encoding: .utf8)
        let out = try GDALTools.run("sh", ["-c", "gdaltransform -s_srs \(crs) -t_srs EPSG:4326 -output_xy < \(file)"])
        return out.split(separator: "\n").map { line in
            let v = line.split(separator: " ").compactMap { Double($0) }
            return GeoPoint(lat: v[1], lon: v[0])
        }
    }

    /// From beyond the foot to the apex: the ascent is the cone's height (within 1 %, the
    /// rounding of the apex by bilinear sampling, twice), nothing is descended, and the steepest
    /// grade is the sides' slope (within 1.5 points). Through the apex and down again: as much
    /// descent, the same grade downhill.
    @Test(arguments: ["utm", "geographic"])
    func coneAscentAndGrades(kind: String) throws {
        let scene = kind == "utm" ? TerrainScene.utmCone : TerrainScene.geoCone
        let foot: GeoPoint, apex: GeoPoint, far: GeoPoint
        if kind == "utm" {
            let c = TerrainScene.utmConeCentre
            let p = try Self.degrees([(c.x - 4_500, c.y), (c.x, c.y), (c.x + 4_500, c.y)], from: "EPSG:32632")
            (foot, apex, far) = (p[0], p[1], p[2])
        } else {
            let c = TerrainScene.geoConeCentre
            foot = GeoPoint(lat: c.lat - 4_500 / TerrainScene.metresPerDegree, lon: c.lon)
            apex = c
            far = GeoPoint(lat: c.lat + 4_500 / TerrainScene.metresPerDegree, lon: c.lon)
        }
        let sampler = try TerrainSampler(paths: [scene.bundle])
        let up = try ProfileBuilder.profile([foot, apex], options: ProfileOptions(spacing: 10), source: sampler)
        let h = TerrainScene.coneHeight
        #expect(abs(up.ascent - h) <= 0.01 * h, "ascent \(up.ascent)")
        #expect(up.descent < 1, "descent \(up.descent)")
        #expect(abs((up.maxGrade ?? 0) - TerrainScene.coneSlope * 100) <= 1.5, "max grade \(String(describing: up.maxGrade))")
        #expect(abs(up.length - 4_500) < 30)
        #expect(abs(up.highest.elevation - (TerrainScene.coneBase + h)) <= 0.01 * h)
        #expect(abs(up.lowest.elevation - TerrainScene.coneBase) < 0.5)
        #expect(up.highest.distance > up.length - 25)

        let across = try ProfileBuilder.profile([foot, apex, far], options: ProfileOptions(spacing: 10), source: sampler)
        #expect(abs(across.ascent - h) <= 0.01 * h)
        #expect(abs(across.descent - h) <= 0.01 * h)
        #expect(abs((across.minGrade ?? 0) + TerrainScene.coneSlope * 100) <= 1.5, "min grade \(String(describing: across.minGrade))")
        #expect(abs(across.highest.distance - 4_500) < 30)
        // Samples are `spacing` apart, the last one at the line's end.
        let gaps = zip(across.samples, across.samples.dropFirst()).map { $1.distance - $0.distance }
        #expect(gaps.dropLast().allSatisfy { abs($0 - 10) < 1e-6 })
        #expect(abs(across.samples.last!.distance - across.length) < 1e-6)
    }

    /// The ramp rises at exactly 10 % along the zone's central meridian (no grid convergence
    /// there): every grade is 10 % (within 0.3 points), the ascent 10 % of the length.
    @Test func rampGradeIsItsSlope() throws {
        let p = try Self.degrees([(500_000, 5_099_000), (500_000, 5_102_000)], from: "EPSG:32632")
        let profile = try ProfileBuilder.profile(
            p, options: ProfileOptions(spacing: 25),
            source: try TerrainSampler(paths: [TerrainScene.utmRamp.bundle]))
        let grades = profile.samples.compactMap(\.grade)
        #expect(grades.count == profile.samples.count - 1)
        #expect(grades.allSatisfy { abs($0 - 10) < 0.3 }, "\(grades.min()!)...\(grades.max()!)")
        #expect(abs(profile.ascent - 0.1 * profile.length) <= 0.005 * profile.ascent)
        #expect(profile.descent < 0.5)
    }

    /// The DEM sampler reads the ramp (linear, so bilinear sampling is exact) to within Float32's
    /// rounding, and the terrain bundle agrees with it within 5 cm at points on tile
    /// edges, where the bilinear sample takes pixels from two tiles.
    @Test func demSamplerAndTileEdges() throws {
        let dem = try DEMSampler(path: TerrainScene.utmRamp.dem)
        let tiles = try TerrainSampler(paths: [TerrainScene.utmRamp.bundle])
        let ys = [5_099_000.0, 5_100_333.3, 5_101_777.7]
        let utm = try Self.degrees(ys.map { (500_000, $0) }, from: "EPSG:32632")
        for (y, p) in zip(ys, utm) {
            let e = try #require(try dem.elevation(at: p))
            #expect(abs(e - (200 + (y - 5_096_000) * 0.1)) < 0.01)
        }
        // Points on the edges between z13 tiles inside the ramp, in both directions.
        let t = WebMercator.tile(lon: 9.0, lat: 46.06, zoom: 13)
        let corner = WebMercator.unproject(x: t.mercatorBounds.minX, y: t.mercatorBounds.minY)
        let edgePoints = [
            GeoPoint(lat: corner.lat, lon: corner.lon), GeoPoint(lat: corner.lat, lon: corner.lon + 0.003),
            GeoPoint(lat: corner.lat + 0.003, lon: corner.lon)
        ]
        let fromTiles = try tiles.elevations(at: edgePoints)
        let fromDEM = try dem.elevations(at: edgePoints)
        for (a, b) in zip(fromTiles, fromDEM) {
            let a = try #require(a, "tiles at \(edgePoints)"), b = try #require(b)
            #expect(abs(a - b) < 0.05, "\(a) vs \(b)")
        }
    }

    /// Voids: a point in the void has no elevation (from the tiles and the DEM); a profile
    /// across it has nil samples there and still climbs the ramp's whole rise; a line outside
    /// every bundle is refused.
    @Test func voidsAndOutside() throws {
        let tiles = try TerrainSampler(paths: [TerrainScene.utmRamp.bundle])
        let dem = try DEMSampler(path: TerrainScene.utmRamp.dem)
        let p = try Self.degrees([(500_000, 5_097_800), (500_000, 5_097_000), (500_000, 5_099_000)], from: "EPSG:32632")
        #expect(try tiles.elevation(at: p[0]) == nil)
        #expect(try dem.elevation(at: p[0]) == nil)
        let profile = try ProfileBuilder.profile([p[1], p[2]], options: ProfileOptions(spacing: 20), source: tiles)
        let voids = profile.samples.filter { $0.elevation == nil }
        #expect(voids.count > 10)
        #expect(voids.allSatisfy { $0.grade == nil })
        #expect(abs(profile.ascent - 200) < 1, "ascent \(profile.ascent)")
        let outside = [GeoPoint(lat: -33.9, lon: 151.2), GeoPoint(lat: -33.8, lon: 151.3)]
        #expect(throws: ProfileError.noElevation) { try ProfileBuilder.profile(outside, source: tiles) }
        #expect(try dem.elevations(at: outside) == [nil, nil])
    }

    /// The terrain bundle and the source DEM give the same profile of the cone (within 2 % in
    /// ascent, the bound for the benchmark).
    @Test func tilesAgreeWithTheSourceDEM() throws {
        let scene = TerrainScene.utmCone
        let c = TerrainScene.utmConeCentre
        let line = try Self.degrees([(c.x - 3_000, c.y - 2_000), (c.x + 500, c.y + 300), (c.x + 2_000, c.y - 3_500)], from: "EPSG:32632")
        let a = try ProfileBuilder.profile(line, options: ProfileOptions(spacing: 15), source: try TerrainSampler(paths: [scene.bundle]))
        let b = try ProfileBuilder.profile(line, options: ProfileOptions(spacing: 15), source: try DEMSampler(path: scene.dem))
        #expect(abs(a.ascent - b.ascent) <= 0.02 * b.ascent, "\(a.ascent) vs \(b.ascent)")
        #expect(abs(a.descent - b.descent) <= 0.02 * b.descent, "\(a.descent) vs \(b.descent)")
    }
}
