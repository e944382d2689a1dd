import Catalog
import CatalogSQLite
import Foundation
import Terrain
import Trails
import TileGeometry
import TrailMapTestSupport

/// Terrain bundles in a store fixture's tiles folder, made by GDAL from ramps rising north at a
/// known rate, and published as products.
enum TerrainProducts {
    /// Metres of rise per degree of latitude of every ramp.
    static let risePerDegree = 10_000.0

    /// A ramp of `base` metres at latitude `lat0` over `bounds`, as a terrain bundle `name`.mbtiles.
    static func ramp(
        _ name: String, in f: StoreFixture, bounds: GeoBounds, lat0: Double, base: Double,
        encoding: TerrainEncoding = .terrarium
    ) throws {
        let grid = TerrainFixtures.Grid(
            crs: "EPSG:4326", west: bounds.west, north: bounds.north, pixel: 0.0005,
            columns: Int(((bounds.east - bounds.west) / 0.0005).rounded()),
            rows: Int(((bounds.north - bounds.south) / 0.0005).rounded()))
        let dem = try TerrainFixtures.dem(grid, at: f.tiles.dir.file("\(name)-dem.tif")) { _, lat in base + (lat - lat0) * risePerDegree }
        try TerrainFixtures.terrainBundle(from: dem, bounds: bounds, zoom: 12, encoding: encoding, to: f.tiles.dir.file("\(name).mbtiles"))
    }

    /// Publishes `entries` (product id, price, bundle name) as products.
    static func publish(_ entries: [(id: String, price: String, bundle: String)], in f: StoreFixture) throws {
        let file = f.tiles.dir.file("terrain-products.json")
        let json: [[String: Any]] = entries.map {
            [
                "productId": $0.id, "title": $0.id, "category": "Terrain", "price": ["amount": $0.price, "currency": "USD"],
                "bundle": "\($0.bundle).mbtiles"
            ]
        }
        try JSONSerialization.data(withJSONObject: ["products": json]).write(to: URL(fileURLWithPath: file))
        _ = try f.catalog.publish(try ProductFile.load(path: file), tilesDirectory: f.tiles.dir.path)
    }

    /// Colorado's trails on paid terrain (2500 m at 40.3 N), the free world trail on free terrain
    /// (1500 m at 38 N).
    static func fixture() throws -> (StoreFixture, colorado: [TrailRecord], world: [TrailRecord]) {
        let (f, co, world) = try TrailRoutesTests.fixture()
        try ramp("co-terrain", in: f, bounds: GeoBounds(west: -105.70, south: 40.24, east: -105.50, north: 40.42), lat0: 40.3, base: 2500)
        try ramp(
            "world-terrain", in: f, bounds: GeoBounds(west: -104.05, south: 37.97, east: -103.97, north: 38.04), lat0: 38, base: 1500,
            encoding: .mapbox)
        try publish([("colorado-terrain", "1.99", "co-terrain"), ("world-terrain", "0", "world-terrain")], in: f)
        return (f, co, world)
    }
}
