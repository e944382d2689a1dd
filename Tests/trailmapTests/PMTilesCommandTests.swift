import Foundation
import Testing
import TileGeometry
import TrailMapTestSupport

/// `trailmap bundle export BUNDLE --pmtiles OUT.pmtiles` from the command line.
@Suite(.blockingThreads) struct PMTilesCommandTests {
    let dir = TemporaryDirectory()

    @Test func exportsAnArchiveAndRefusesBadArguments() throws {
        let src = try TestSources.write(
            in: dir, name: "s", width: 240, height: 160,
            bounds: GeoBounds(west: -110, south: 36, east: -101, north: 42), color: TestSources.terrain)
        let bundle = dir.file("s.mbtiles")
        #expect(
            try CLIRunner.run(["build", "--source", src, "--name", "S", "--minzoom", "2", "--maxzoom", "6", "--out", bundle, "--quiet"])
                .status == 0)
        let r = try CLIRunner.run(["bundle", "export", bundle, "--pmtiles", dir.file("s.pmtiles")])
        #expect(r.status == 0 && r.stdout.contains("distinct contents"), "\(r.stdout)\(r.stderr)")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: dir.file("s.pmtiles")))
        #expect(bytes.prefix(8) == Data("PMTiles".utf8) + Data([3]))
        for (args, message) in [
            (["--pmtiles", dir.file("x.mbtiles")], "must end in .pmtiles"),
            (["--pmtiles", dir.file("y.pmtiles"), "--dir", dir.file("out")], "either --dir"),
            ([], "either --dir")
        ] {
            let bad = try CLIRunner.run(["bundle", "export", bundle] + args)
            #expect(bad.status != 0 && bad.stderr.contains(message), "\(args): \(bad.stderr)")
        }
    }

    /// Issue 36 ("Also"): an archive is public once uploaded, which a bundle sold in the store must
    /// not be; the export says so on stderr, with --quiet too, and a folder export does not.
    @Test func pmtilesExportSaysTheArchiveIsPublic() throws {
        let src = try TestSources.write(
            in: dir, name: "paid", width: 120, height: 80,
            bounds: GeoBounds(west: -110, south: 36, east: -101, north: 42), color: TestSources.terrain)
        let bundle = dir.file("paid.mbtiles")
        #expect(
            try CLIRunner.run(["build", "--source", src, "--name", "Paid", "--minzoom", "2", "--maxzoom", "4", "--out", bundle, "--quiet"])
                .status == 0)
        for quiet in [false, true] {
            let r = try CLIRunner.run(
                ["bundle", "export", bundle, "--pmtiles", dir.file("paid-\(quiet).pmtiles")] + (quiet ? ["--quiet"] : []))
            #expect(r.status == 0, "\(r.stderr)")
            #expect(
                r.stderr.contains("anyone with its URL can read every tile") && r.stderr.contains("Do not upload a bundle you sell"),
                "\(r.stderr)")
        }
        let folder = try CLIRunner.run(["bundle", "export", bundle, "--dir", dir.file("folder"), "--quiet"])
        #expect(folder.status == 0 && !folder.stderr.contains("anyone with its URL"), "\(folder.stderr)")
    }

    /// With the store's catalog, the export names the products that sell the bundle (a region
    /// with a price), and says nothing of a bundle no product sells.
    @Test func pmtilesExportWithACatalogNamesWhatSellsTheBundle() throws {
        let tiles = dir.file("tiles")
        try FileManager.default.createDirectory(atPath: tiles, withIntermediateDirectories: true)
        for name in ["sold", "loose"] {
            let src = try TestSources.write(
                in: dir, name: name, width: 120, height: 80,
                bounds: GeoBounds(west: -110, south: 36, east: -101, north: 42), color: TestSources.terrain)
            #expect(
                try CLIRunner.run([
                    "build", "--source", src, "--name", name, "--minzoom", "2", "--maxzoom", "4",
                    "--out", (tiles as NSString).appendingPathComponent("\(name).mbtiles"), "--quiet"
                ]).status == 0)
        }
        let products = #"""
            {"products": [{"productId": "com.test.sold", "title": "Sold", "category": "States",
              "price": {"amount": "4.99", "currency": "USD"}, "bundle": "sold.mbtiles"}]}
            """#
        try products.write(toFile: dir.file("products.json"), atomically: true, encoding: .utf8)
        let publish = try CLIRunner.run([
            "catalog", "publish", "--products", dir.file("products.json"), "--tiles", tiles, "--catalog", dir.file("c.sqlite")
        ])
        #expect(publish.status == 0, "\(publish.stderr)")
        let sold = try CLIRunner.run([
            "bundle", "export", (tiles as NSString).appendingPathComponent("sold.mbtiles"), "--pmtiles", dir.file("sold.pmtiles"),
            "--catalog", dir.file("c.sqlite"), "--quiet"
        ])
        #expect(
            sold.status == 0 && sold.stderr.contains("is sold in the store as com.test.sold (4.99 USD)")
                && sold.stderr.contains("anyone with its URL can read every tile"), "\(sold.stderr)")
        let loose = try CLIRunner.run([
            "bundle", "export", (tiles as NSString).appendingPathComponent("loose.mbtiles"), "--pmtiles", dir.file("loose.pmtiles"),
            "--catalog", dir.file("c.sqlite"), "--quiet"
        ])
        #expect(loose.status == 0 && !loose.stderr.contains("anyone with its URL"), "\(loose.stderr)")
        let misplaced = try CLIRunner.run([
            "bundle", "export", (tiles as NSString).appendingPathComponent("loose.mbtiles"), "--dir", dir.file("out"),
            "--catalog", dir.file("c.sqlite")
        ])
        #expect(misplaced.status != 0 && misplaced.stderr.contains("--catalog goes with --pmtiles"), "\(misplaced.stderr)")
    }
}
