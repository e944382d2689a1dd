import Foundation
import Logging
import Terrain
import Testing
import TileGeometry
@testable import BundleBuilder
import TrailMapTestSupport
import Trails

/// The plans of terrain and trails-only builds: every tile of their zooms in exactly one job, in
/// the order they promise, and their refusals before anything is written.
@Suite(.computeThreads) struct BuildPlansTests {
    let fx = TerrainFixture()

    /// Each tile of `jobs`' blocks, counted.
    private func counts(_ jobs: [TerrainJob]) -> [TileID: Int] {
        jobs.reduce(into: [:]) { counts, job in for t in job.block.tiles { counts[t, default: 0] += 1 } }
    }

    /// Every tile of `ranges`, in the order of the ranges, rows and columns.
    private func tiles(_ ranges: [TileRange]) -> [TileID] {
        ranges.flatMap { r in
            (r.minY...r.maxY).flatMap { y in (r.minX...r.maxX).map { x in TileID(unchecked: r.z, x, y) } }
        }
    }

    @Test func aTerrainPlanWarpsTheTopAndMakesTheZoomsBelowFromMeans() throws {
        var layer = TerrainLayer(sources: [try fx.cone()])
        layer.hillshade = HillshadeOptions()
        let sources = try TerrainSources.read(layer, logger: Logger(label: "test"))
        let plan = try TerrainPlan(options: fx.options(layer, zooms: 6...12, out: "p.mbtiles"), layer: layer, sources: sources)
        #expect(plan.zooms == 6...12)
        #expect(plan.border == 1, "a hillshade needs one pixel of its neighbours")
        let top = try #require(plan.top, "a DEM this small makes every zoom below the finest from means")
        #expect(plan.warped.map(\.z) == Array(top...12))
        #expect(plan.means.map(\.z) == Array(6..<top))
        #expect(plan.total == plan.ranges.reduce(0) { $0 + $1.count })

        let feeds = try #require(plan.topFeeds())
        #expect(feeds.range.z == top - 1)
        let warped = plan.warpedJobs(feeds: feeds, threads: 2)
        #expect(counts(warped) == Dictionary(uniqueKeysWithValues: tiles(plan.warped).map { ($0, 1) }))
        #expect(warped.allSatisfy { ($0.feeds != nil) == ($0.block.tiles.z == top) }, "only the top's blocks fill the level below")
        let means = plan.meanJobs(from: feeds, threads: 2)
        #expect(counts(means) == Dictionary(uniqueKeysWithValues: tiles(plan.means).map { ($0, 1) }))
        #expect(means.allSatisfy { $0.level?.range.z == $0.block.tiles.z }, "each zoom's blocks read its own level")
    }

    @Test func aClippedTerrainPlanWarpsEveryZoomAndAClipBesideTheDEMIsRefused() throws {
        let layer = TerrainLayer(sources: [try fx.cone()])
        let sources = try TerrainSources.read(layer, logger: Logger(label: "test"))
        var o = fx.options(layer, zooms: 8...10, out: "c.mbtiles")
        o.clipBounds = GeoBounds(west: -105.6, south: 39.9, east: -105.5, north: 40.0)
        let plan = try TerrainPlan(options: o, layer: layer, sources: sources)
        #expect(plan.top == nil && plan.means.isEmpty && plan.topFeeds() == nil)
        #expect(plan.bounds.west >= -105.6 && plan.bounds.east <= -105.5)

        o.clipBounds = GeoBounds(west: 10, south: 45, east: 11, north: 46)
        #expect {
            try TerrainPlan(options: o, layer: layer, sources: sources)
        } throws: { error in
            guard case .sourceOutsideRegion = error as? BuildError else { return false }
            return true
        }
    }

    /// Trails across four tiles' worth of zoom 6 near the equator.
    private func trails(zooms: ClosedRange<Int>? = nil) throws -> PreparedTrails {
        let geojson = fx.dir.file("t.geojson")
        try """
        {"type":"FeatureCollection","features":[
        {"type":"Feature","properties":{"name":"Ridge"},"geometry":{"type":"LineString","coordinates":[[1.0,1.0],[7.0,4.0]]}}]}
        """.write(toFile: geojson, atomically: true, encoding: .utf8)
        var options = TrailLayerOptions(sources: [geojson])
        options.zooms = zooms
        return try PreparedTrails.read(options)
    }

    private func options(min: Int, max: Int) -> BuildOptions {
        BuildOptions(sources: [], name: "trails", minZoom: min, maxZoom: max, output: fx.dir.file("t.mbtiles"))
    }

    @Test func aTrailsPlanHandsOutEveryTileOnceInOrder() throws {
        let plan = try TrailOverlayPlan(options: options(min: 3, max: 9), trails: trails())
        #expect(plan.zooms == 3...9)
        let all = (0..<plan.jobs).flatMap { plan.tiles(ofJob: $0) }
        #expect(all == tiles(plan.ranges), "jobs in turn give the ranges' tiles in order, each once")
        #expect(all.count == plan.total)
        #expect((0..<plan.jobs - 1).allSatisfy { plan.tiles(ofJob: $0).count == TrailOverlayPlan.tilesPerJob })
        #expect(plan.tiles(ofJob: plan.jobs).isEmpty)
        let box = TileRange(bounds: GeoBounds(west: 1, south: 1, east: 7, north: 4), zoom: 9)
        let z9 = try #require(plan.ranges.last)
        #expect(z9.minX == box.minX - 1 && z9.maxX == box.maxX + 1, "one tile more on each side for strokes")

        let some = try TrailOverlayPlan(options: options(min: 3, max: 9), trails: trails(zooms: 5...7))
        #expect(some.ranges.map(\.z) == [5, 6, 7], "only the zooms the trails are drawn at")
    }

    @Test func aTrailsPlanRefusesShardsAndTooHighZooms() throws {
        let t = try trails()
        var o = options(min: 3, max: 9)
        o.shard = try ShardSpec(index: 1, count: 2)
        #expect {
            try TrailOverlayPlan(options: o, trails: t)
        } throws: { error in
            guard case .trailsOverlayNotSharded = error as? BuildError else { return false }
            return true
        }
        #expect {
            try TrailOverlayPlan(options: options(min: 3, max: TileID.maxZoom + 1), trails: t)
        } throws: { error in
            guard case .zoomTooHigh = error as? BuildError else { return false }
            return true
        }
    }
}
