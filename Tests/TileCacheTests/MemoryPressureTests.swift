import Foundation
import Testing
import TileCache
import TileStore
import TrailMapTestSupport

/// Pressure levels from simulated cgroup v2 files in a temporary folder.
@Suite(.computeThreads) struct MemoryPressureTests {
    let dir = TemporaryDirectory()

    func write(_ name: String, _ text: String) throws {
        try text.write(toFile: dir.file(name), atomically: true, encoding: .utf8)
    }

    func cgroup(current: Int, max: String = "1000", events: String = "low 0\nhigh 0\nmax 0\noom 0\noom_kill 0\n") throws {
        try write("memory.current", "\(current)\n")
        try write("memory.max", max + "\n")
        try write("memory.events", events)
    }

    func system(budget: Int = 100_000) throws -> (TileCache, MemoryPressureMonitor, BundleManager) {
        let cache = TileCache(budget: budget)
        var settings = PressureSettings(cgroupDirectory: dir.path)
        settings.pressureFile = nil
        settings.warningFraction = 0.5
        let bundles = BundleManager(maxOpen: 4, bundleCost: 1000, cache: cache)
        return (cache, MemoryPressureMonitor(settings: settings, cache: cache, bundles: bundles), bundles)
    }

    func fill(_ cache: TileCache) throws {
        for x in 0..<200 { _ = try cache.tile(key(x)) { sampleTile(500) } }
    }

    @Test func readsCgroupFiles() throws {
        try cgroup(current: 850, events: "high 3\nmax 1\n")
        try write("memory.pressure", "some avg10=12.50 avg60=1.00 avg300=0.00 total=5\nfull avg10=0.50 avg60=0.00 avg300=0.00 total=1\n")
        let r = MemoryReading.read(cgroup: dir.path, pressureFile: nil)
        #expect(r.current == 850 && r.limit == 1000 && r.usage == 0.85)
        #expect(r.events["high"] == 3 && r.events["max"] == 1)
        #expect(r.someAvg10 == 12.5 && r.fullAvg10 == 0.5)
    }

    @Test func usesMemoryHighWhenMaxIsUnlimited() throws {
        try cgroup(current: 10, max: "max")
        try write("memory.high", "40\n")
        #expect(MemoryReading.read(cgroup: dir.path, pressureFile: nil).limit == 40)
    }

    @Test func normalKeepsEverything() throws {
        try cgroup(current: 500)
        let (cache, monitor, _) = try system()
        try fill(cache)
        let before = cache.statistics.bytes
        #expect(monitor.poll() == .normal)
        #expect(cache.statistics.bytes == before && cache.capacity == 100_000)
    }

    @Test func warningShrinksTheCacheToItsFraction() throws {
        try cgroup(current: 850)
        let (cache, monitor, _) = try system()
        try fill(cache)
        #expect(monitor.poll() == .warning)
        let s = cache.statistics
        #expect(s.capacity == 50_000 && s.bytes <= 50_000 && s.entries > 0)
        #expect(s.evictions[.pressure, default: 0] > 0)
        try cgroup(current: 100)
        #expect(monitor.poll() == .normal)
        #expect(cache.capacity == 100_000, "back to the whole budget")
    }

    @Test func criticalDropsEverythingAndClosesIdleBundles() throws {
        let tiles = TemporaryDirectory()
        let (cache, monitor, bundles) = try system()
        let bundle = bundles.register(path: try writeBundle(in: tiles, name: "a"), layout: .deduplicated)
        _ = try bundle.withSource { _ in 1 }
        #expect(bundles.openCount == 1)
        try fill(cache)
        try cgroup(current: 950)
        #expect(monitor.poll() == .critical)
        #expect(cache.statistics.entries == 0 && cache.statistics.bytes == 0)
        #expect(bundles.openCount == 0 && bundles.counts.closes[.pressure] == 1)
        #expect(cache.statistics.reservedBytes == 0)
    }

    @Test func growingEventCountersRaiseTheLevel() throws {
        try cgroup(current: 1, max: "max")
        let (_, monitor, _) = try system()
        #expect(monitor.poll() == .normal)
        try cgroup(current: 1, max: "max", events: "high 2\nmax 0\noom 0\n")
        #expect(monitor.poll() == .warning)
        try cgroup(current: 1, max: "max", events: "high 2\nmax 0\noom 1\n")
        #expect(monitor.poll() == .critical)
        #expect(monitor.poll() == .normal, "counters that stopped growing mean no new pressure")
    }

    @Test func psiStallsRaiseTheLevel() throws {
        try cgroup(current: 1)
        try write("memory.pressure", "some avg10=25.00 avg60=0 avg300=0 total=0\nfull avg10=1.00 avg60=0 avg300=0 total=0\n")
        let (_, monitor, _) = try system()
        #expect(monitor.poll() == .warning)
        try write("memory.pressure", "some avg10=60.00 avg60=0 avg300=0 total=0\nfull avg10=30.00 avg60=0 avg300=0 total=0\n")
        #expect(monitor.poll() == .critical)
    }

    @Test func thresholdsAreConfigurable() throws {
        try cgroup(current: 700)
        let cache = TileCache(budget: 1000)
        var settings = PressureSettings(cgroupDirectory: dir.path)
        settings.pressureFile = nil
        settings.warningUsage = 0.6
        settings.criticalUsage = 0.65
        #expect(MemoryPressureMonitor(settings: settings, cache: cache, bundles: nil).poll() == .critical)
    }

    @Test func aForcedLevelHoldsUntilNormalIsForced() throws {
        try cgroup(current: 100)
        let (cache, monitor, _) = try system()
        try fill(cache)
        #expect(monitor.force(.critical) == .critical)
        #expect(cache.statistics.entries == 0)
        #expect(monitor.poll() == .critical, "the forced level stays over a normal reading")
        #expect(monitor.force(.normal) == .normal)
        #expect(cache.capacity == 100_000)
    }
}
