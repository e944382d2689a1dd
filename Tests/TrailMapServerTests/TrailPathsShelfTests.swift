import Foundation
import Testing
import TileCache
@testable import TrailMapServer
import TrailMapTestSupport

/// A served bundle's trails reach the prefetch predictor (memory reserved from the cache's
/// budget) and leave with the bundle; bundles without trails cost nothing.
@Suite struct TrailPathsShelfTests {
    @Test func servedTrailsSteerPrefetchUntilTheirBundleGoes() throws {
        let fixture = ServerFixture()
        let withTrails = try fixture.bundle("trails")
        _ = try TrailRoutesTests.addTrails(TrailRoutesTests.coloradoLines, to: withTrails, dir: fixture.dir)
        try fixture.bundle("plain")
        let registry = TilesetRegistry(directory: fixture.dir.path)
        let reservedBefore = registry.cache.cache.statistics.reservedBytes
        registry.refresh()
        registry.trailPaths.drain()
        #expect(registry.trailPaths.loadedCount == 1, "only the bundle with trails")
        let reserved = registry.cache.cache.statistics.reservedBytes - reservedBefore
        #expect(reserved > 0, "the trails' memory counts against the budget")

        try FileManager.default.removeItem(atPath: withTrails)
        registry.refresh()
        registry.trailPaths.drain()
        #expect(registry.trailPaths.loadedCount == 0)
        #expect(registry.cache.cache.statistics.reservedBytes - reservedBefore < reserved, "given back with the bundle")
    }

    @Test func prefetchOffReadsNoTrails() throws {
        let fixture = ServerFixture()
        let withTrails = try fixture.bundle("trails")
        _ = try TrailRoutesTests.addTrails(TrailRoutesTests.coloradoLines, to: withTrails, dir: fixture.dir)
        var config = CacheConfiguration()
        config.prefetch = false
        let registry = TilesetRegistry(directory: fixture.dir.path, cache: CacheSystem(config))
        registry.refresh()
        registry.trailPaths.drain()
        #expect(registry.trailPaths.loadedCount == 0)
    }
}
