import Foundation
import TileGeometry
import TrailMapTestSupport

/// A running `trailmap serve` whose catalog has a paid and a free region, each built from a
/// GDAL-made GeoTIFF; devices run the CLI against it.
final class FreeAndPaidServer {
    static let paidId = "com.test.region.paid"
    static let freeId = "com.test.region.free"
    let dir = TemporaryDirectory()
    let process: ChildProcess
    let url: String

    init() throws {
        let tiles = dir.file("server-tiles")
        try FileManager.default.createDirectory(atPath: tiles, withIntermediateDirectories: true)
        for (name, bounds) in [
            ("paid", GeoBounds(west: 7, south: 46, east: 8, north: 47)), ("free", GeoBounds(west: 9, south: 46, east: 10, north: 47))
        ] {
            let png = try TestSources.write(in: dir, name: name, width: 96, height: 96, bounds: bounds, color: TestSources.terrain)
            let tif = dir.file("\(name).tif")
            try GDALTools.translate(png, tif, ["-a_srs", "EPSG:4326"])
            let build = try CLIRunner.run([
                "build", "--source", tif, "--name", "Test \(name)", "--minzoom", "3", "--maxzoom", "7",
                "--out", (tiles as NSString).appendingPathComponent("\(name).mbtiles"), "--quiet"
            ])
            guard build.status == 0 else { throw RegionsEndToEndTests.CommandError("build: \(build.stderr)") }
        }
        let products = #"""
            {"products": [
              {"productId": "\#(Self.paidId)", "title": "Test paid", "category": "Alps", "description": "test",
               "price": {"amount": "3.99", "currency": "USD"}, "bundle": "paid.mbtiles"},
              {"productId": "\#(Self.freeId)", "title": "Test free", "category": "Alps", "description": "test",
               "price": {"amount": "0", "currency": "USD"}, "bundle": "free.mbtiles"}]}
            """#
        try products.write(toFile: dir.file("products.json"), atomically: true, encoding: .utf8)
        let catalog = dir.file("catalog.sqlite")
        let publish = try CLIRunner.run([
            "catalog", "publish", "--products", dir.file("products.json"), "--tiles", tiles, "--catalog", catalog
        ])
        guard publish.status == 0 else { throw RegionsEndToEndTests.CommandError("publish: \(publish.stderr)") }
        (process, url) = try RegionsEndToEndTests.StoreServer.serve(tiles: tiles, catalog: catalog, sandbox: dir.file("sandbox"))
    }

    func device(_ name: String) -> RegionsEndToEndTests.Device {
        RegionsEndToEndTests.Device(state: dir.file("\(name)/state"), tiles: dir.file("\(name)/Tiles"), server: url)
    }

    /// Every file under `folder` whose name ends in `.lock`.
    static func lockFiles(_ folder: String) -> [String] {
        (FileManager.default.enumerator(atPath: folder)?.allObjects as? [String] ?? []).filter { $0.hasSuffix(".lock") }
    }

    deinit {
        if process.isRunning { process.terminate(); process.waitUntilExit() }
    }
}
