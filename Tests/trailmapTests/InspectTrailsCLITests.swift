import Foundation
import Raster
import Testing
import TileGeometry
import TileStore
import TrailMapTestSupport

/// `trailmap bundle inspect` shows a bundle's trails: how many, by difficulty, their total length,
/// in text and `--json`. A bundle built by the CLI from a GeoJSON file GDAL reads.
@Suite(.blockingThreads) struct InspectTrailsCLITests {
    let dir = TemporaryDirectory()

    /// OSM-tagged lines: one easy, one expert, one of unknown difficulty.
    static let lines: [(name: String, tags: String, points: [(Double, Double)])] = [
        ("Bear Lake Trail", "\"sac_scale\":\"hiking\"", [(-105.75, 40.35), (-105.60, 40.35), (-105.45, 40.35)]),
        ("Ridge Scramble", "\"sac_scale\":\"demanding_alpine_hiking\"", [(-105.70, 40.25), (-105.66, 40.29), (-105.61, 40.31)]),
        ("Corner Cutoff", "\"sac_scale\":null", [(-105.45, 40.46), (-105.42, 40.48)])
    ]

    /// Haversine length in kilometres (an independent measure of the geodesic one, within 0.5%).
    static func km(_ points: [(Double, Double)]) -> Double {
        zip(points, points.dropFirst()).reduce(0) { sum, pair in
            let ((lon1, lat1), (lon2, lat2)) = pair
            let p1 = lat1 * .pi / 180, p2 = lat2 * .pi / 180, dp = p2 - p1, dl = (lon2 - lon1) * .pi / 180
            let a = sin(dp / 2) * sin(dp / 2) + cos(p1) * cos(p2) * sin(dl / 2) * sin(dl / 2)
            return sum + 2 * 6371.0088 * asin(min(1, sqrt(a)))
        }
    }

    func trailsBundle() throws -> String {
        let features = Self.lines.enumerated().map { i, l in
            """
            {"type":"Feature","properties":{"name":"\(l.name)","highway":"path",\(l.tags),"osm_id":"\(i + 1)"},
             "geometry":{"type":"LineString","coordinates":[\(l.points.map { "[\($0.0),\($0.1)]" }.joined(separator: ","))]}}
            """
        }
        let source = dir.file("trails.geojson")
        try "{\"type\":\"FeatureCollection\",\"features\":[\(features.joined(separator: ",\n"))]}"
            .write(toFile: source, atomically: true, encoding: .utf8)
        let out = dir.file("trails.mbtiles")
        let built = try CLIRunner.run([
            "build", "--trails", source, "--trails-preset", "osm", "--name", "Park trails", "--minzoom", "10", "--maxzoom", "12",
            "--out", out, "--quiet"
        ])
        #expect(built.status == 0, "\(built.stderr)")
        return out
    }

    @Test func inspectCountsTheTrailsByDifficultyWithTheirLength() throws {
        let bundle = try trailsBundle()
        let expectedKm = Self.lines.reduce(0) { $0 + Self.km($1.points) }

        let text = try CLIRunner.run(["bundle", "inspect", bundle])
        #expect(text.status == 0, "\(text.stderr)")
        let line = try #require(text.stdout.split(separator: "\n").first { $0.hasPrefix("trails: ") }, "\(text.stdout)")
        #expect(line.hasPrefix("trails: 3 (easy 1, moderate 0, hard 0, expert 1, unknown 1), "), "\(line)")
        let shownKm = try #require(Double(line.split(separator: " ").dropLast(3).last ?? ""), "\(line)")
        #expect(abs(shownKm - expectedKm) < expectedKm * 0.005, "\(shownKm) km against \(expectedKm)")

        let json = try CLIRunner.run(["bundle", "inspect", "--json", bundle])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let trails = try #require(object["trails"] as? [String: Any], "\(json.stdout)")
        #expect(trails["count"] as? Int == 3)
        #expect(trails["byDifficulty"] as? [String: Int] == ["easy": 1, "moderate": 0, "hard": 0, "expert": 1, "unknown": 1])
        let total = try #require(trails["totalLengthKm"] as? Double)
        #expect(abs(total - expectedKm) < expectedKm * 0.005 && abs(total - shownKm) < 0.006)
        #expect(object["trailsProblem"] == nil)

        // Damaged trails tables: inspect still works and says why they cannot be read.
        let sql = try CLIRunner.run([bundle, "UPDATE trails_info SET value = '9' WHERE name = 'schema'"], executable: "/usr/bin/sqlite3")
        #expect(sql.status == 0, "\(sql.stderr)")
        let damaged = try CLIRunner.run(["bundle", "inspect", "--json", bundle])
        let d = try #require(try JSONSerialization.jsonObject(with: Data(damaged.stdout.utf8)) as? [String: Any])
        #expect(
            damaged.status == 0 && d["trails"] is NSNull && (d["trailsProblem"] as? String)?.contains("schema version 9") == true,
            "\(damaged.stdout)\(damaged.stderr)")
        let damagedText = try CLIRunner.run(["bundle", "inspect", bundle])
        #expect(damagedText.status == 0 && damagedText.stdout.contains("trails: unreadable:"), "\(damagedText.stdout)")
    }

    @Test func aBundleWithoutTrailsShowsNone() throws {
        let path = dir.file("plain.mbtiles")
        let image = RGBAImage(width: 256, height: 256, pixels: [UInt8](repeating: 200, count: 256 * 256 * 4))
        let tile = try #require(TileID(z: 3, x: 1, y: 3))
        _ = try TestBundle.write(
            [(tile: tile, data: try PNGEncoder.encode(image, options: .default))], to: path,
            metadata: BundleMetadata(
                name: "plain", bounds: GeoBounds(west: -100, south: 30, east: -90, north: 40),
                minZoom: 3, maxZoom: 3))
        let text = try CLIRunner.run(["bundle", "inspect", path])
        #expect(text.status == 0 && !text.stdout.contains("trails:"), "\(text.stdout)\(text.stderr)")
        let json = try CLIRunner.run(["bundle", "inspect", "--json", path])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(object.keys.contains("trails") && object["trails"] is NSNull && object["trailsProblem"] == nil)
    }
}
