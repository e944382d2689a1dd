import Catalog
import CatalogSQLite
import Foundation
import Raster
import TileGeometry
import TileStore
import TrailMapTestSupport

/// The store fixture plus two adjoining bundles with noisy tiles at zooms 6-11 (west: reddish,
/// east: bluish; transparent outside their bounds, so the tiles on their shared edge overlap)
/// and area products cutting from both: `area` (4 MB) and `area-small` (`smallCap`).
struct AreaFixture {
    let store: StoreFixture
    static let west = GeoBounds(west: -106, south: 39.5, east: -105, north: 40.5)
    static let east = GeoBounds(west: -105, south: 39.5, east: -104, north: 40.5)
    static let zooms = 6...11
    static let smallCap: Int64 = 300_000

    init() throws {
        store = try StoreFixture()
        try Self.bundle(store.tiles.dir.file("west.mbtiles"), bounds: Self.west, colour: (200, 40, 40))
        try Self.bundle(store.tiles.dir.file("east.mbtiles"), bounds: Self.east, colour: (40, 40, 200))
        let entries: [[String: Any]] = [
            [
                "productId": "west", "title": "West", "category": "States/West", "price": ["amount": "2.99", "currency": "USD"],
                "bundle": "west.mbtiles"
            ],
            [
                "productId": "east", "title": "East", "category": "States/East", "price": ["amount": "2.99", "currency": "USD"],
                "bundle": "east.mbtiles"
            ],
            [
                "productId": "area", "title": "Area around you", "category": "Areas", "price": ["amount": "0.99", "currency": "USD"],
                "area": ["maxBytes": 4_000_000, "from": ["west.mbtiles", "east.mbtiles"]]
            ],
            [
                "productId": "area-small", "title": "Small area", "category": "Areas", "price": ["amount": "0.49", "currency": "USD"],
                "area": ["maxBytes": Self.smallCap, "from": ["west.mbtiles", "east.mbtiles"]]
            ]
        ]
        let file = store.tiles.dir.file("areas.json")
        try JSONSerialization.data(withJSONObject: ["products": entries]).write(to: URL(fileURLWithPath: file))
        _ = try store.catalog.publish(try ProductFile.load(path: file), tilesDirectory: store.tiles.dir.path)
    }

    /// A bundle whose pixels inside `bounds` are `colour` with a little noise, transparent outside.
    static func bundle(_ path: String, bounds: GeoBounds, colour: (UInt8, UInt8, UInt8)) throws {
        var batch = [(tile: TileID, data: [UInt8])]()
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15 &* UInt64(colour.0)
        for z in zooms {
            for t in TileRange(bounds: bounds, zoom: z) {
                let n = Double(1 << z) * 256
                var pixels = [UInt8](repeating: 0, count: 256 * 256 * 4)
                for py in 0..<256 {
                    let lat = WebMercator.latitude(y: WebMercator.originShift * (1 - 2 * (Double(t.y * 256 + py) + 0.5) / n))
                    for px in 0..<256 {
                        let lon = (Double(t.x * 256 + px) + 0.5) / n * 360 - 180
                        guard lon >= bounds.west, lon < bounds.east, lat >= bounds.south, lat < bounds.north else { continue }
                        seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                        let i = (py * 256 + px) * 4
                        pixels[i] = colour.0
                        pixels[i + 1] = colour.1 &+ UInt8(truncatingIfNeeded: seed >> 61)
                        pixels[i + 2] = colour.2
                        pixels[i + 3] = 255
                    }
                }
                let image = RGBAImage(width: 256, height: 256, pixels: pixels)
                if !image.isFullyTransparent { batch.append((t, try PNGEncoder.encode(image, options: .default))) }
            }
        }
        var meta = BundleMetadata(
            name: (path as NSString).lastPathComponent, bounds: bounds, minZoom: zooms.lowerBound, maxZoom: zooms.upperBound)
        meta.attribution = "test data"
        meta.extra["trailmap:builder"] = "test"
        _ = try TestBundle.write(batch, to: path, metadata: meta)
    }
}
