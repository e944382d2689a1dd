import Foundation
import GRDB
import Raster
import Testing
import TileGeometry
import TileStore
@testable import BundleBuilder
import TrailMapTestSupport
import TrailRendering
import Trails

/// `--update` when the trails or their style change: the trail records are written again, the
/// tiles near trails drawn again, the tiles away from them kept byte for byte, and the result
/// equals a clean build of the new inputs tile for tile. Trails from a GeoPackage ogr2ogr writes.
@Suite(.computeThreads) struct TrailUpdateTests {
    let dir = TemporaryDirectory()
    static let region = GeoBounds(west: -106, south: 39.5, east: -104, north: 40.5)
    /// The trails lie west of this longitude; the region's east is far from every trail.
    static let trailsEast = -105.55

    /// Two raster sheets, the region's west and east halves (`patch`: a red square in the east one).
    func sheets(patch: Bool = false) throws -> [String] {
        let west = GeoBounds(west: -106, south: 39.5, east: -105, north: 40.5),
            east = GeoBounds(west: -105, south: 39.5, east: -104, north: 40.5)
        return [
            try TestSources.write(in: dir, name: "west", width: 200, height: 200, bounds: west) { c, r in
                (UInt8((c * 3) & 255), UInt8((r * 5) & 255), UInt8(((c + r) * 2) & 255), 255)
            },
            try TestSources.write(in: dir, name: "east", width: 200, height: 200, bounds: east) { c, r in
                if patch && (100..<140).contains(c) && (60..<90).contains(r) { return (255, 0, 0, 255) }
                return (UInt8((c * 5) & 255), UInt8((r * 3) & 255), UInt8(((c + r) * 7) & 255), 255)
            }
        ]
    }

    /// The trails as a GeoPackage (ogr2ogr from GeoJSON), the first named `firstName`.
    func trails(firstName: String, file: String) throws -> String {
        let geojson = dir.file("\(file).geojson")
        try """
        {"type":"FeatureCollection","features":[
        {"type":"Feature","properties":{"osm_id":"1","highway":"path","name":"\(firstName)","sac_scale":"hiking"},
         "geometry":{"type":"LineString","coordinates":[[-105.92,40.21],[-105.81,40.24],[-105.70,40.20]]}},
        {"type":"Feature","properties":{"osm_id":"2","highway":"track","name":"Mill Creek Track","mtb:scale":"3"},
         "geometry":{"type":"LineString","coordinates":[[-105.85,39.70],[-105.70,39.78],[-105.58,39.80]]}}
        ]}
        """.write(toFile: geojson, atomically: true, encoding: .utf8)
        let gpkg = dir.file("\(file).gpkg")
        try? FileManager.default.removeItem(atPath: gpkg)
        try GDALTools.run("ogr2ogr", ["-f", "GPKG", gpkg, geojson])
        return gpkg
    }

    func options(sheet: [String], trails: String, style: TrailStyle, out: String, update: String? = nil) -> BuildOptions {
        var o = BuildOptions(sources: sheet, name: "Trail update", minZoom: 6, maxZoom: 12, output: dir.file(out))
        o.threads = 2
        o.rounding = .nearest // stored = computed, so an update can equal a clean build byte for byte
        o.update = update.map { dir.file($0) }
        var t = TrailLayerOptions(sources: [trails])
        t.mapping = TrailLayerOptions.osmPreset
        t.style = style
        o.trails = t
        return o
    }

    static func trailRows(_ path: String) throws -> [[DatabaseValue]] {
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        return try queue.read { db in try Row.fetchAll(db, sql: "SELECT * FROM trails ORDER BY id").map { Array($0.databaseValues) } }
    }

    @Test func aRenamedTrailAndANewStyleRedrawOnlyTheTrailsOverlay() throws {
        let base = try sheets()
        var style = TrailStyle()
        style.labelMinZoom = 11 // names drawn at 11-12: the rename changes pixels
        _ = try BundleBuilder(
            options: options(
                sheet: base, trails: try trails(firstName: "Bear Lake Trail", file: "v1"), style: style,
                out: "v1.mbtiles")
        ).build()
        let before = try TestBundle.tiles(dir.file("v1.mbtiles"))

        // The first trail renamed (same way), the easy colour and the line width changed.
        let renamed = try trails(firstName: "Bear Lake Loop", file: "v2")
        style.colors[.easy] = TrailColor(red: 240, green: 140, blue: 0)
        style.lineWidth = ZoomStops([.init(zoom: 10, value: 2.5), .init(zoom: 14, value: 3.5)])
        let report = try BundleBuilder(
            options: options(sheet: base, trails: renamed, style: style, out: "v2.mbtiles", update: "v1.mbtiles")
        ).build()
        let u = try #require(report.update)
        #expect(u.trailsChanged && u.trailsRedrawn && u.sourcesChanged.isEmpty)
        #expect(u.tilesKept > 0 && u.tilesRendered > 0 && u.tilesRendered + u.tilesKept == before.count)
        #expect(u.tilesChanged > 0 && u.tilesAdded == 0 && u.tilesRemoved == 0)

        // The renamed trail is found by its new name, no longer by the old one.
        let index = try TrailIndex(bundle: dir.file("v2.mbtiles"))
        var q = TrailQuery()
        q.text = "bear lake loop"
        #expect(try index.search(q).hits.map(\.trail.name) == ["Bear Lake Loop"])
        q.text = "bear lake trail"
        #expect(try index.search(q).hits.isEmpty)
        #expect(try index.verify().isEmpty)

        // Tiles more than a tile east of every trail are the old bytes.
        let after = try TestBundle.tiles(dir.file("v2.mbtiles"))
        let far = before.keys.filter { t in
            let b = t.mercatorBounds, span = b.maxX - b.minX
            return b.minX - span > WebMercator.project(lon: Self.trailsEast, lat: 40).0
        }
        #expect(far.count > 50)
        #expect(far.allSatisfy { after[$0] == before[$0] })

        // Tile for tile and row for row, a clean build of the new inputs.
        _ = try BundleBuilder(options: options(sheet: base, trails: renamed, style: style, out: "clean.mbtiles")).build()
        let clean = try TestBundle.tiles(dir.file("clean.mbtiles"))
        #expect(clean.count == after.count)
        let differing = clean.filter { after[$0.key] != $0.value }.map(\.key).sorted { ($0.z, $0.x, $0.y) < ($1.z, $1.x, $1.y) }
        #expect(differing.isEmpty, "\(differing.count) tiles differ from a clean build, e.g. \(differing.prefix(4))")
        #expect(try Self.trailRows(dir.file("v2.mbtiles")) == Self.trailRows(dir.file("clean.mbtiles")))
    }

    @Test func anUpdateWithTrailsAndAChangedSheetEqualsACleanBuild() throws {
        // A changed sheet away from unchanged trails: the levels made above kept tiles near trails
        // are drawn from pixels without trails, as a clean build makes them.
        let base = try sheets()
        let lines = try trails(firstName: "Bear Lake Trail", file: "v1")
        var style = TrailStyle()
        style.labelMinZoom = 11
        _ = try BundleBuilder(options: options(sheet: base, trails: lines, style: style, out: "v1.mbtiles")).build()
        _ = try sheets(patch: true)
        let report = try BundleBuilder(options: options(sheet: base, trails: lines, style: style, out: "v2.mbtiles", update: "v1.mbtiles"))
            .build()
        let u = try #require(report.update)
        #expect(!u.trailsChanged && u.trailsRedrawn && u.sourcesChanged.map { URL(fileURLWithPath: $0).lastPathComponent } == ["east.png"])
        #expect(u.tilesKept > 0)
        _ = try BundleBuilder(options: options(sheet: base, trails: lines, style: style, out: "clean.mbtiles")).build()
        let clean = try TestBundle.tiles(dir.file("clean.mbtiles")), after = try TestBundle.tiles(dir.file("v2.mbtiles"))
        #expect(clean.count == after.count)
        let differing = clean.filter { after[$0.key] != $0.value }.map(\.key)
        #expect(differing.isEmpty, "\(differing.count) tiles differ from a clean build, e.g. \(differing.prefix(4))")
    }
}
