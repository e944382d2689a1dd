import Foundation
import Testing
import TileCache
import TileGeometry
import TileStore
import TrailMapTestSupport

@Suite(.computeThreads) struct BundleManagerTests {
    let dir = TemporaryDirectory()

    func tile(_ bundle: LazyBundle, x: Int) throws -> [UInt8]? {
        try bundle.withSource { source in try source.withTile(TileID(z: 3, x: x, y: 1)!) { bytes, _ in Array(bytes) } }
    }

    @Test func opensOnFirstUseAndCountsAgainstTheBudget() throws {
        let cache = TileCache(budget: 1 << 20)
        let manager = BundleManager(maxOpen: 8, bundleCost: 10_000, cache: cache)
        let bundle = manager.register(path: try writeBundle(in: dir, name: "a"), layout: .deduplicated)
        #expect(!manager.isOpen(bundle) && manager.openCount == 0)
        #expect(try tile(bundle, x: 2)?.count == 102)
        #expect(manager.isOpen(bundle) && manager.counts.opens == 1)
        #expect(cache.statistics.reservedBytes == 10_000)
        _ = try tile(bundle, x: 3)
        #expect(manager.counts.opens == 1, "stays open")
    }

    @Test func boundsOpenBundlesClosingTheLeastRecentlyUsed() throws {
        let cache = TileCache(budget: 1 << 20)
        let manager = BundleManager(maxOpen: 2, bundleCost: 1000, cache: cache)
        let bundles = try (0..<3).map { manager.register(path: try writeBundle(in: dir, name: "b\($0)"), layout: .deduplicated) }
        _ = try tile(bundles[0], x: 0)
        _ = try tile(bundles[1], x: 0)
        _ = try tile(bundles[0], x: 1) // b1 is now the least recently used
        _ = try tile(bundles[2], x: 0)
        #expect(manager.openCount == 2)
        #expect(manager.isOpen(bundles[0]) && !manager.isOpen(bundles[1]) && manager.isOpen(bundles[2]))
        #expect(manager.counts.closes[.capacity] == 1)
        #expect(cache.statistics.reservedBytes == 2000)
        #expect(try tile(bundles[1], x: 4)?.count == 104, "reopens on demand")
    }

    @Test func idleBundlesClose() throws {
        let cache = TileCache(budget: 1 << 20)
        let manager = BundleManager(maxOpen: 8, idleTimeout: .seconds(60), bundleCost: 1000, cache: cache)
        let bundle = manager.register(path: try writeBundle(in: dir, name: "c"), layout: .deduplicated)
        _ = try tile(bundle, x: 0)
        #expect(manager.closeIdle() == 0, "used just now")
        #expect(manager.closeIdle(now: .now + .seconds(61)) == 1)
        #expect(!manager.isOpen(bundle) && manager.counts.closes[.idle] == 1)
        #expect(cache.statistics.reservedBytes == 0)
    }

    @Test func bundlesInUseStayOpen() throws {
        let manager = BundleManager(maxOpen: 8, bundleCost: 0)
        let bundle = manager.register(path: try writeBundle(in: dir, name: "d"), layout: .deduplicated)
        try bundle.withSource { _ in
            #expect(manager.closeIdle(all: true) == 0)
        }
        #expect(manager.closeIdle(all: true) == 1)
    }

    @Test func unregisterDropsCachedTiles() throws {
        let cache = TileCache(budget: 1 << 20)
        let manager = BundleManager(maxOpen: 8, bundleCost: 1000, cache: cache)
        let bundle = manager.register(path: try writeBundle(in: dir, name: "e"), layout: .deduplicated)
        let k = TileKey(bundle: bundle.id, tile: TileID(z: 3, x: 1, y: 1)!)
        _ = try cache.tile(k) { try tile(bundle, x: 1).map { CachedTile(bytes: $0, etag: "\"e\"") } }
        #expect(cache.contains(k))
        manager.unregister(bundle)
        #expect(!cache.contains(k) && !manager.isOpen(bundle) && cache.statistics.reservedBytes == 0)
    }

    @Test func openBundlesTakeAtMostHalfTheBudget() {
        let manager = BundleManager(maxOpen: 100, bundleCost: 1000, cache: TileCache(budget: 10_000))
        #expect(manager.maxOpen == 5)
    }

    @Test func aMissingFileFailsOnFirstUse() {
        let manager = BundleManager()
        let bundle = manager.register(path: dir.file("nope.mbtiles"), layout: .deduplicated)
        #expect(throws: TileStoreError.self) { try bundle.withSource { _ in 0 } }
        #expect(manager.openCount == 0)
    }

    @Test func switchingBundlesUnderATightBudgetWaitsInsteadOfFailing() async throws {
        // Room for two bundles' reservations; one bundle may be open (half the budget).
        let cache = TileCache(budget: 2000)
        let manager = BundleManager(maxOpen: 8, bundleCost: 1000, cache: cache)
        #expect(manager.maxOpen == 1)
        let bundles = try (0..<4).map { manager.register(path: try writeBundle(in: dir, name: "t\($0)"), layout: .deduplicated) }
        // One bundle stays busy for a while; the others are read meanwhile, from several threads.
        let busy = bundles[0]
        async let held: Void = Task.detached {
            _ = try busy.withSource { _ in Thread.sleep(forTimeInterval: 0.2) }
        }.value
        try await Task.sleep(for: .milliseconds(20))
        let failures = await withTaskGroup(of: Int.self) { group in
            for i in 0..<24 {
                let b = bundles[1 + i % 3]
                group.addTask { (try? self.tile(b, x: i % 8)) == nil ? 1 : 0 }
            }
            return await group.reduce(0, +)
        }
        try await held
        #expect(failures == 0, "reads wait for a busy bundle instead of failing")
        #expect(cache.statistics.reservedBytes <= 2000)
        #expect(manager.openCount <= 2)
    }
}
