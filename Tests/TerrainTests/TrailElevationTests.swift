import Foundation
import GRDB
import Raster
import Terrain
import TerrainDEM
import Testing
import TileGeometry
import TileStore
import TrailMapTestSupport
import TrailTerrain
import Trails

/// Trails gain elevation: figures filled from the source DEM of the UTM cone, stored in optional
/// columns, read back and searched on; a bundle without the columns is still read and searched.
@Suite(.computeThreads) struct TrailElevationTests {
    /// A bundle holding two trails on the cone: one from its foot to the apex, one around its
    /// flank at a constant radius (no climb), and one far outside the DEM.
    static func bundle(_ dir: TemporaryDirectory) throws -> (path: String, up: TrailRecord, flat: TrailRecord, away: TrailRecord) {
        let c = TerrainScene.utmConeCentre
        let up = try ProfileTests.degrees([(c.x - 4_500, c.y), (c.x, c.y)], from: "EPSG:32632")
        let ring = try ProfileTests.degrees(
            (0...12).map { i in
                let a = Double(i) / 12 * .pi
                return (c.x + 2_000 * cos(a), c.y + 2_000 * sin(a))
            }, from: "EPSG:32632")
        func record(_ n: Int64, _ points: [GeoPoint]) -> TrailRecord {
            TrailRecord(
                id: TrailID(value: n), name: "Trail \(n)", ref: nil, difficulty: .easy, allowedUses: [], forbiddenUses: [], surface: nil,
                geometry: TrailGeometry(parts: [points.map { LonLat(lon: $0.lon, lat: $0.lat) }]), source: "test:\(n)")
        }
        let a = record(1, up), b = record(2, ring), far = record(3, [GeoPoint(lat: 10, lon: 10), GeoPoint(lat: 10.01, lon: 10.01)])
        let path = dir.file("region.mbtiles")
        let t = TileID(z: 0, x: 0, y: 0)!
        try TestBundle.write(
            [t: try PNGEncoder.encode(RGBAImage(width: 256, height: 256, fill: (1, 2, 3, 255)))], to: path,
            metadata: BundleMetadata(name: "r", bounds: t.geoBounds, minZoom: 0, maxZoom: 0))
        try TrailStoreWriter.write([a, b, far], toBundle: path)
        return (path, a, b, far)
    }

    @Test func fillStoreAndSearch() throws {
        let dir = TemporaryDirectory()
        let (path, up, flat, away) = try Self.bundle(dir)
        // Before: no columns; the bundle reads, and an elevation filter finds nothing.
        #expect(try TrailIndex(bundle: path).elevation(up.id) == nil)
        var q = TrailQuery()
        q.maxAscentM = 10_000
        #expect(try TrailSearch.search(q, bundles: [path]).total == 0)
        #expect(try TrailSearch.search(TrailQuery(), bundles: [path]).total == 3)

        let outcome = try TrailElevationFill.fill(bundle: path, from: try DEMSampler(path: TerrainScene.utmCone.dem))
        #expect(outcome == .init(filled: 2, withoutElevation: 1))
        let index = try TrailIndex(bundle: path)
        let climb = try #require(try index.elevation(up.id))
        #expect(abs(climb.ascentMetres - TerrainScene.coneHeight) <= 0.01 * TerrainScene.coneHeight)
        #expect(abs(climb.maxGradePercent - 25) <= 1.5)
        let level = try #require(try index.elevation(flat.id))
        // Each of the 12 chords dips 17 m towards the apex at its middle: 4.3 m down and up again.
        #expect(level.ascentMetres < 12 * 4.5 && level.descentMetres < 12 * 4.5, "\(level)")
        #expect(level.maxGradePercent < 10)
        #expect(try index.elevation(away.id) == nil)
        // Records still read as before.
        #expect(try index.trail(up.id)?.name == "Trail 1")

        // Search answers carry the stored figures; the trail with no elevation under it has none.
        let found = Dictionary(
            uniqueKeysWithValues: try TrailSearch.search(TrailQuery(), bundles: [path]).hits.map { ($0.trail.id, $0.trail) })
        #expect(found[up.id]?.elevation == climb)
        #expect(found[flat.id]?.elevation == level)
        #expect(found[away.id] != nil && found[away.id]?.elevation == nil)
        var near = TrailQuery()
        near.near = LonLat(lon: up.start.lon, lat: up.start.lat)
        near.radiusKm = 50
        #expect(try TrailSearch.search(near, bundles: [path]).hits.first { $0.trail.id == up.id }?.trail.elevation == climb)

        q.maxAscentM = 100
        #expect(try TrailSearch.search(q, bundles: [path]).hits.map(\.trail.id) == [flat.id])
        q.maxAscentM = nil
        q.maxGradePct = 30
        #expect(Set(try TrailSearch.search(q, bundles: [path]).hits.map(\.trail.id)) == [up.id, flat.id])
        q.maxGradePct = 10
        #expect(try TrailSearch.search(q, bundles: [path]).hits.map(\.trail.id) == [flat.id])
        q.maxGradePct = -1
        #expect(throws: TrailSearchError.self) { try TrailSearch.search(q, bundles: [path]) }
    }

    /// The same trail in a bundle built without terrain and in one built with it: a search over
    /// both lists it once, in both bundles, with the figures (whichever bundle comes first).
    @Test func figuresSurviveMergingAcrossBundles() throws {
        let dir = TemporaryDirectory(), other = TemporaryDirectory()
        let (filled, up, _, _) = try Self.bundle(dir)
        let (plain, _, _, _) = try Self.bundle(other)
        _ = try TrailElevationFill.fill(bundle: filled, from: try DEMSampler(path: TerrainScene.utmCone.dem))
        let climb = try #require(try TrailIndex(bundle: filled).elevation(up.id))
        for order in [[plain, filled], [filled, plain]] {
            let hit = try #require(try TrailSearch.search(TrailQuery(), bundles: order).hits.first { $0.trail.id == up.id })
            #expect(hit.bundles == order)
            #expect(hit.trail.elevation == climb)
        }
    }

    /// Figures are read from a bundle (input): a stored figure that is infinite or negative is no
    /// figure at all (it would not even encode as JSON), in search answers and in the index.
    @Test func unusableStoredFiguresAreNone() throws {
        let dir = TemporaryDirectory()
        let (path, up, flat, _) = try Self.bundle(dir)
        _ = try TrailElevationFill.fill(bundle: path, from: try DEMSampler(path: TerrainScene.utmCone.dem))
        let level = try #require(try TrailIndex(bundle: path).elevation(flat.id))
        try DatabaseQueue(path: path).write {
            try $0.execute(sql: "UPDATE trails SET ascent_m = 1e999, max_grade_pct = -3 WHERE id = ?", arguments: [up.id.value])
        }
        #expect(try TrailIndex(bundle: path).elevation(up.id) == nil)
        let hits = Dictionary(
            uniqueKeysWithValues: try TrailSearch.search(TrailQuery(), bundles: [path]).hits.map { ($0.trail.id, $0.trail) })
        #expect(hits[up.id] != nil && hits[up.id]?.elevation == nil)
        #expect(hits[flat.id]?.elevation == level)
    }
}
