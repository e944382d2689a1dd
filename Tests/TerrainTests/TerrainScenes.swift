import Foundation
import Terrain
import TileGeometry
import TrailMapTestSupport

/// The DEMs and terrain bundles the elevation tests read, made by GDAL once per process.
struct TerrainScene: Sendable {
    let dir: TemporaryDirectory
    let dem: String
    let bundle: String
    /// Degrees of the DEM's extent.
    let bounds: GeoBounds

    /// Cone apex (UTM 32N, on its central meridian): 1500 m, foot at 500 m, sides at 25 %.
    static let utmConeCentre = (x: 500_000.0, y: 5_100_000.0)
    static let coneBase = 500.0, coneHeight = 1000.0, coneSlope = 0.25

    static let utmCone: TerrainScene = try! make(
        name: "utm-cone", encoding: .terrarium,
        grid: .init(crs: "EPSG:32632", west: 494_000, north: 5_106_000, pixel: 20, columns: 600, rows: 600),
        bounds: GeoBounds(west: 8.92, south: 45.99, east: 9.08, north: 46.1),
        height: TerrainShapes.cone(cx: utmConeCentre.x, cy: utmConeCentre.y, base: coneBase, height: coneHeight, slope: coneSlope))

    /// Metres per degree of latitude on the profiles' sphere.
    static let metresPerDegree = Haversine.radius * .pi / 180
    /// Geographic cone centred on (46.5 N, 7.5 E), measured in local metres.
    static let geoConeCentre = GeoPoint(lat: 46.5, lon: 7.5)
    static let geoCone: TerrainScene = try! make(
        name: "geo-cone", encoding: .mapbox,
        grid: .init(crs: "EPSG:4326", west: 7.43, north: 46.55, pixel: 0.0002, columns: 700, rows: 500),
        bounds: GeoBounds(west: 7.43, south: 46.45, east: 7.57, north: 46.55),
        height: { lon, lat in
            let dx = (lon - geoConeCentre.lon) * cos(geoConeCentre.lat * .pi / 180) * metresPerDegree
            let dy = (lat - geoConeCentre.lat) * metresPerDegree
            return coneBase + max(0, coneHeight - (dx * dx + dy * dy).squareRoot() * coneSlope)
        })

    /// UTM ramp rising north at 10 % on the zone's central meridian, with a void square around
    /// (46.03 N, 9.0 E).
    static let rampSlope = 0.1
    static let utmRamp: TerrainScene = try! make(
        name: "utm-ramp", encoding: .terrarium,
        grid: .init(crs: "EPSG:32632", west: 496_000, north: 5_104_000, pixel: 25, columns: 320, rows: 320),
        bounds: GeoBounds(west: 8.95, south: 46.0, east: 9.05, north: 46.08),
        height: { x, y in
            if abs(x - 500_000) < 300, abs(y - 5_097_800) < 300 { return nil }
            return 200 + (y - 5_096_000) * rampSlope
        })

    static func make(
        name: String, encoding: TerrainEncoding, grid: TerrainFixtures.Grid, bounds: GeoBounds,
        height: (Double, Double) -> Double?
    ) throws -> TerrainScene {
        let dir = TemporaryDirectory()
        let dem = try TerrainFixtures.dem(grid, at: dir.file("\(name).tif"), height: height)
        let bundle = dir.file("\(name).mbtiles")
        try TerrainFixtures.terrainBundle(from: dem, bounds: bounds, zoom: 13, encoding: encoding, to: bundle)
        return TerrainScene(dir: dir, dem: dem, bundle: bundle, bounds: bounds)
    }
}
