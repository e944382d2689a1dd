import Foundation
import Testing
import TileGeometry
import TileStore
import TrailMapTestSupport

/// `catalog publish` with an area product beside a region: both published, only the region
/// indexed for patches (an area product has no bundle of its own).
@Suite(.blockingThreads) struct AreaPublishCLITests {
    @Test func anAreaProductPublishesBesideARegion() throws {
        let dir = TemporaryDirectory()
        let bounds = GeoBounds(west: -106, south: 39, east: -105, north: 40)
        let tile = try #require(TileID(z: 5, x: 6, y: 12))
        _ = try TestBundle.write(
            [(tile, [1, 2, 3] as [UInt8])], to: dir.file("co.mbtiles"),
            metadata: BundleMetadata(name: "co", bounds: bounds, minZoom: 5, maxZoom: 5))
        let products = dir.file("products.json")
        try Data(
            """
            {"products": [{"productId": "co", "title": "Colorado", "category": "States", "price": {"amount": "4.99", "currency": "USD"},
                           "bundle": "co.mbtiles"},
                          {"productId": "near", "title": "Area around you", "category": "Areas",
                           "price": {"amount": "0.99", "currency": "USD"},
                           "area": {"maxBytes": 10000000, "from": ["co.mbtiles"]}}]}
            """.utf8
        ).write(to: URL(fileURLWithPath: products))
        let catalog = dir.file("catalog.sqlite")
        let publish = try CLIRunner.run(["catalog", "publish", "--products", products, "--tiles", dir.path, "--catalog", catalog])
        #expect(publish.status == 0, "\(publish.stderr)")
        #expect(
            publish.stdout.contains("co: added, version 1") && publish.stdout.contains("near: added, version 1, area product"),
            "\(publish.stdout)")
        let indexed = try FileManager.default.contentsOfDirectory(atPath: dir.file(".trailmap-patches"))
        #expect(indexed == ["co"], "only the region is indexed for patches")
        let list = try CLIRunner.run(["catalog", "list", "--json", "--catalog", catalog])
        #expect(list.status == 0 && list.stdout.contains("\"productId\" : \"near\""), "\(list.stdout) \(list.stderr)")
        // An area product with a bundle as well, or without a price, is refused with the reason.
        try Data(
            """
            {"products": [{"productId": "near", "title": "Area", "category": "Areas", "price": {"amount": "0", "currency": "USD"},
                           "area": {"maxBytes": 10000000, "from": ["co.mbtiles"]}}]}
            """.utf8
        ).write(to: URL(fileURLWithPath: products))
        let free = try CLIRunner.run(["catalog", "publish", "--products", products, "--tiles", dir.path, "--catalog", catalog])
        #expect(free.status != 0 && free.stderr.contains("needs a price"), "\(free.stderr)")
    }
}
