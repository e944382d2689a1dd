import Foundation
import RegionManager
import Testing
import TrailMapAPI

@Suite struct ProductTests {
    static func product(bounds: [Double], tileset: String = "colorado") -> Product {
        Product(
            productId: "com.trailmap.region.colorado", title: "Colorado", category: "States/Colorado", description: "",
            price: Price(amount: "4.99", currency: "USD"), free: false, version: 1, size: 1, sha256: "00",
            minzoom: 3, maxzoom: 8, bounds: bounds, tileset: tileset, status: .forSale)
    }

    @Test func coverageHoldsPointsInsideAndOnEdges() {
        let p = Self.product(bounds: [-109.06, 36.99, -102.04, 41.0])
        #expect(p.covers(latitude: 39.7, longitude: -105.0))
        #expect(p.covers(latitude: 41.0, longitude: -102.04))
        #expect(!p.covers(latitude: 42, longitude: -105))
        #expect(!p.covers(latitude: 39.7, longitude: -100))
        let fiji = Self.product(bounds: [177, -20, -178, -15])
        #expect(fiji.covers(latitude: -17, longitude: 179))
        #expect(fiji.covers(latitude: -17, longitude: -179))
        #expect(!fiji.covers(latitude: -17, longitude: 0))
    }

    @Test func bundleFileNameIsSafe() {
        #expect(Self.product(bounds: []).bundleFileName == "colorado.mbtiles")
        #expect(Self.product(bounds: [], tileset: "../evil").bundleFileName == ".._evil.mbtiles")
        #expect(Self.product(bounds: [], tileset: "").bundleFileName == "com.trailmap.region.colorado.mbtiles")
    }

    @Test func decodesTheAPIsProductSummary() throws {
        let json = #"""
            {"productId": "com.trailmap.region.colorado", "title": "Colorado", "category": "States/Colorado",
             "description": "...", "price": {"amount": "4.99", "currency": "USD"}, "free": false,
             "version": 2, "size": 1234567, "sha256": "ab", "minzoom": 3, "maxzoom": 8,
             "bounds": [-109.06, 36.99, -102.04, 41.0], "tileset": "colorado",
             "status": "update_available", "installedVersion": 1}
            """#
        let p = try JSONDecoder().decode(Product.self, from: Data(json.utf8))
        #expect(p.status == .updateAvailable)
        #expect(p.installedVersion == 1)
        #expect(p.price.display == "4.99 USD")
        #expect(p.levels == [] && p.levelsSummary == "", "servers before levels of detail omit them")
    }

    @Test func decodesLevelsOfDetail() throws {
        let json = #"""
            {"productId": "quads", "title": "Quads", "category": "States", "description": "", "price": {"amount": "0", "currency": "USD"},
             "free": true, "version": 1, "size": 1, "sha256": "ab", "minzoom": 8, "maxzoom": 15, "bounds": [0, 0, 1, 1],
             "tileset": "quads", "status": "free",
             "levels": [{"name": "quads-30", "title": "30-minute maps", "kind": "series", "minzoom": 8, "maxzoom": 11,
                         "summary": "30-minute maps, zooms 8–11"},
                        {"name": "trails", "title": "Trails", "kind": "overlay", "minzoom": 8, "maxzoom": 15,
                         "summary": "Trails overlay, zooms 8–15"}],
             "levelsSummary": "30-minute maps, zooms 8–11; Trails overlay, zooms 8–15"}
            """#
        let p = try JSONDecoder().decode(Product.self, from: Data(json.utf8))
        #expect(
            p.levels == [
                ProductLevel(
                    name: "quads-30", title: "30-minute maps", kind: "series", minzoom: 8, maxzoom: 11,
                    summary: "30-minute maps, zooms 8–11"),
                ProductLevel(
                    name: "trails", title: "Trails", kind: "overlay", minzoom: 8, maxzoom: 15, summary: "Trails overlay, zooms 8–15")
            ])
        #expect(p.levelsSummary == "30-minute maps, zooms 8–11; Trails overlay, zooms 8–15")
        // Re-encoded (the `--json` output) they stay.
        let again = try JSONDecoder().decode(Product.self, from: try JSONEncoder().encode(p))
        #expect(again.levels == p.levels && again.levelsSummary == p.levelsSummary)
    }
}
