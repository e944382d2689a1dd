import Foundation
import Testing
import TileGeometry
import TrailMapTestSupport

/// A glob source's layer takes its name from the pattern (`quad-*.tif`: quad) or its folder
/// (`sheets/*.tif`: sheets), as the build's messages show, never the placeholder "layer".
@Suite(.blockingThreads) struct GlobLayerNameCLITests {
    @Test func globLayersAreNamedFromThePattern() throws {
        let dir = TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: dir.file("sheets"), withIntermediateDirectories: true)
        for (name, west) in [("quad-a", 7.0), ("quad-b", 8.0)] {
            let png = try TestSources.write(
                in: dir, name: name, width: 40, height: 40,
                bounds: GeoBounds(west: west, south: 46, east: west + 1, north: 47), color: TestSources.terrain)
            try GDALTools.translate(png, dir.file("sheets/\(name).tif"), ["-a_srs", "EPSG:4326"])
        }
        // Bounds away from the sheets: the error names the layer.
        for (pattern, layer) in [("sheets/quad-*.tif", "quad"), ("sheets/*.tif", "sheets")] {
            let r = try CLIRunner.run([
                "build", "--source", dir.file(pattern), "--name", "G", "--minzoom", "3", "--maxzoom", "4",
                "--bounds", "-10,-10,-9,-9", "--out", dir.file("g.mbtiles")
            ])
            #expect(r.status == 1 && r.stderr.contains("(layer \(layer))"), "\(pattern): \(r.stderr)")
        }
        let built = try CLIRunner.run([
            "build", "--source", dir.file("sheets/quad-*.tif"), "--name", "G", "--minzoom", "3", "--maxzoom", "4",
            "--out", dir.file("g.mbtiles"), "--quiet"
        ])
        #expect(built.status == 0, "\(built.stderr)")
    }
}
