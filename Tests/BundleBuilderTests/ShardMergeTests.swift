import Foundation
import Synchronization
import Testing
import TileGeometry
import TileStore
@testable import BundleBuilder
import TrailMapTestSupport

/// `--shard K/N` and `bundle merge`: N parts merged equal a single build, tile by tile.
@Suite(.computeThreads) struct ShardMergeTests {
    let dir = TemporaryDirectory()
    static let west = GeoBounds(west: -110, south: 36, east: -104, north: 42)
    static let east = GeoBounds(west: -105.5, south: 37, east: -101, north: 40.5)

    /// Two overlapping sheets, the second with a transparent collar: uneven work across the area.
    func sources() throws -> [String] {
        let a = try TestSources.write(in: dir, name: "a", width: 300, height: 300, bounds: Self.west, color: TestSources.terrain)
        let b = try TestSources.write(in: dir, name: "b", width: 200, height: 160, bounds: Self.east) { c, r in
            (c < 12 || r < 12 || c >= 188 || r >= 148) ? (0, 0, 0, 0) : (UInt8(c), UInt8(r), 90, 255)
        }
        return [a, b]
    }

    func options(_ sources: [String], out: String, shard: ShardSpec? = nil, max: Int = 9) -> BuildOptions {
        var o = BuildOptions(sources: sources, name: "Sharded", minZoom: 2, maxZoom: max, output: dir.file(out))
        o.threads = 2
        o.shard = shard
        return o
    }

    @Test(arguments: [2, 3, 5]) func nPartsMergedEqualOneBuild(parts n: Int) throws {
        let src = try sources()
        _ = try BundleBuilder(options: options(src, out: "single.mbtiles")).build()
        let single = try TestBundle.tiles(dir.file("single.mbtiles"))
        var parts = [String]()
        var partTiles = [[TileID: Data]]()
        for k in 1...n {
            let out = "part-\(k).mbtiles"
            let report = try BundleBuilder(options: options(src, out: out, shard: try ShardSpec(index: k, count: n))).build()
            #expect(report.tilesStored > 0, "part \(k)/\(n) has work")
            parts.append(dir.file(out))
            partTiles.append(try TestBundle.tiles(dir.file(out)))
        }
        // Disjoint: no tile in two parts; together with the merge's upper levels, every tile once.
        let union = partTiles.reduce(into: [TileID: Int]()) { acc, part in part.keys.forEach { acc[$0, default: 0] += 1 } }
        #expect(union.values.allSatisfy { $0 == 1 })
        let report = try BundleMerger(parts: parts.reversed(), output: dir.file("merged.mbtiles")).merge()
        let merged = try TestBundle.tiles(dir.file("merged.mbtiles"))
        #expect(merged.count == single.count && report.tiles == single.count)
        #expect(report.upperTiles == single.count - union.count && report.upperTiles > 0)
        let differing = single.filter { merged[$0.key] != $0.value }.map(\.key)
        #expect(differing.isEmpty, "\(differing.count) tiles differ, e.g. \(differing.prefix(3))")
        let singlePairs = try BundleReader(path: dir.file("single.mbtiles")).metadataPairs()
        var mergedPairs = try BundleReader(path: dir.file("merged.mbtiles")).metadataPairs()
        #expect(mergedPairs["trailmap:region"] == "merged")
        mergedPairs["trailmap:region"] = "single"
        #expect(mergedPairs == singlePairs)
        #expect(BundleVerifier.verify(path: dir.file("merged.mbtiles")) { _, _ in nil }.isEmpty)
    }

    /// Units (and so unit records and the tiles to consider) only where a source is: two sheets
    /// at opposite corners of the region leave its other corners without units, and the build
    /// makes every tile a source touches.
    @Test func unitsOnlyWhereSourcesAre() throws {
        let sw = try TestSources.write(
            in: dir, name: "sw", width: 120, height: 120,
            bounds: GeoBounds(west: -110, south: 36, east: -107, north: 39), color: TestSources.terrain)
        let ne = try TestSources.write(
            in: dir, name: "ne", width: 120, height: 120,
            bounds: GeoBounds(west: -101, south: 45, east: -98, north: 48), color: TestSources.terrain)
        let o = options([sw, ne], out: "corners.mbtiles")
        let plan = try BundleBuilder(options: o).plan()
        let unitZ = plan.bands[0].unitZoom, units = Set(plan.bands[0].units)
        let footprints = plan.sources.map(\.info.mercatorBounds)
        #expect(units.allSatisfy { u in footprints.contains { $0.intersects(u.mercatorBounds) } })
        #expect(units.count < plan.bands[0].ranges[unitZ - 2].count / 2, "\(units.count) of \(plan.bands[0].ranges[unitZ - 2].count)")
        _ = try BundleBuilder(options: o).build()
        let tiles = try TestBundle.tiles(dir.file("corners.mbtiles"))
        // Every top-zoom tile a sheet's footprint meets (away from its edges) is made.
        let inner = footprints.map { f in
            let dx = (f.maxX - f.minX) / 100, dy = (f.maxY - f.minY) / 100
            return MercatorBounds(minX: f.minX + dx, minY: f.minY + dy, maxX: f.maxX - dx, maxY: f.maxY - dy)
        }
        for t in plan.bands[0].ranges.last! where inner.contains(where: { $0.intersects(t.mercatorBounds) }) {
            #expect(tiles[t] != nil, "tile \(t) over a sheet")
        }
        #expect(
            tiles.keys.allSatisfy { t in
                t.z <= unitZ ? true : units.contains(TileID(z: unitZ, x: t.x >> (t.z - unitZ), y: t.y >> (t.z - unitZ))!)
            })
    }

    /// Two small sheets far apart (Oregon and Georgia) planned at zoom 18: the box around both
    /// holds ~500 million tiles and was refused as a likely mistake; the sheets hold a few
    /// thousand each, and that is what is counted.
    @Test func farApartSheetsAreNotCountedOverTheGap() throws {
        let or = try TestSources.write(
            in: dir, name: "or", width: 16, height: 16,
            bounds: GeoBounds(west: -120.1, south: 44.9, east: -120, north: 45), color: TestSources.terrain)
        let ga = try TestSources.write(
            in: dir, name: "ga", width: 16, height: 16,
            bounds: GeoBounds(west: -84.1, south: 30.9, east: -84, north: 31), color: TestSources.terrain)
        let o = options([or, ga], out: "far.mbtiles", shard: nil, max: 18)
        var deep = o
        deep.minZoom = 18
        let plan = try BundleBuilder(options: deep).plan()
        #expect(plan.bands[0].ranges[0].count > BundleBuilder.maxTiles)
        #expect(plan.total > 0 && plan.total < 100_000, "\(plan.total)")
    }

    /// Progress ends at its total when the units are sparse and the build has two zoom bands
    /// (each sheet its own layer and zooms): the second band's counts start where the first's end.
    @Test func progressReachesTheTotalOverSparseBands() throws {
        let sw = try TestSources.write(
            in: dir, name: "sw", width: 120, height: 120,
            bounds: GeoBounds(west: -110, south: 36, east: -107, north: 39), color: TestSources.terrain)
        let ne = try TestSources.write(
            in: dir, name: "ne", width: 120, height: 120,
            bounds: GeoBounds(west: -101, south: 45, east: -98, north: 48), color: TestSources.terrain)
        var o = BuildOptions(sources: [], name: "Bands", minZoom: 2, maxZoom: 9, output: dir.file("bands.mbtiles"))
        o.layers = [BuildLayer(name: "a", sources: [sw, ne], zooms: 2...5), BuildLayer(name: "b", sources: [sw, ne], zooms: 6...9)]
        o.threads = 2
        let plan = try BundleBuilder(options: o).plan()
        #expect(plan.bands.count == 2 && plan.bands.allSatisfy { $0.total > 0 })
        let seen = Mutex<[BuildProgress]>([])
        let report = try BundleBuilder(options: o).build { p in seen.withLock { $0.append(p) } }
        let rendering = seen.withLock { $0 }.filter { $0.phase == .rendering }
        #expect(rendering.allSatisfy { $0.done <= $0.total && $0.total == plan.total }, "\(rendering.map { "\($0.done)/\($0.total)" })")
        #expect(rendering.last?.done == plan.total)
        #expect(report.tilesConsidered == plan.total && report.tilesStored > 0)
        // Then the sources are hashed for the record, each counted, before the bundle is finished.
        let phases = seen.withLock { $0 }.map(\.phase)
        let hashing = seen.withLock { $0 }.filter { $0.phase == .hashing }
        #expect(hashing.last.map { $0.done == 4 && $0.total == 4 } == true, "\(hashing.map { "\($0.done)/\($0.total)" })")
        #expect(phases.lastIndex(of: .rendering)! < phases.firstIndex(of: .hashing)! && phases.last == .finishing)
    }

    @Test func partsAreBalancedByWorkNotByTileCount() throws {
        // One dense sheet in the west corner of a wide, mostly empty region: equal tile counts
        // would give one part all the work.
        let a = try TestSources.write(in: dir, name: "a", width: 200, height: 200, bounds: Self.west, color: TestSources.terrain)
        var o = options([a], out: "x.mbtiles")
        o.clipBounds = GeoBounds(west: -110, south: 30, east: -80, north: 42)
        let plan = try BundleBuilder(options: o).plan()
        let top = plan.bands[0].ranges.last!
        let footprints = [TileRange(bounds: plan.sources[0].info.bounds, zoom: top.z)]
        let work = plan.bands[0].units.map { BuildUnits.work(unit: $0, top: top, footprints: footprints) }
        let total = work.reduce(0, +)
        for n in [2, 3] {
            let parts = (1...n).map { k in
                BuildUnits.select(try! ShardSpec(index: k, count: n), units: [plan.bands[0].units], work: [work])[0]
            }
            let shares = parts.map { p in p.reduce(0) { $0 + work[plan.bands[0].units.firstIndex(of: $1)!] } }
            #expect(Set(parts.joined()).count == plan.bands[0].units.count && parts.joined().count == plan.bands[0].units.count)
            // Each part within a unit's work of an equal share.
            let biggest = work.max()!
            #expect(shares.allSatisfy { abs($0 - total / n) <= biggest }, "\(shares) of \(total)")
        }
    }

    @Test func badPartsAreRefusedWithTheReason() throws {
        let src = try sources()
        var parts = [String]()
        for k in 1...3 {
            _ = try BundleBuilder(options: options(src, out: "p\(k).mbtiles", shard: try ShardSpec(index: k, count: 3), max: 7)).build()
            parts.append(dir.file("p\(k).mbtiles"))
        }
        _ = try BundleBuilder(options: options(src, out: "other.mbtiles", shard: try ShardSpec(index: 3, count: 3), max: 6)).build()
        _ = try BundleBuilder(options: options(src, out: "plain.mbtiles", max: 6)).build()
        func refusal(_ list: [String]) -> String {
            do {
                _ = try BundleMerger(parts: list, output: dir.file("m.mbtiles")).merge()
                return "merged"
            } catch { return "\(error)" }
        }
        #expect(refusal(Array(parts.prefix(2))).contains("part 3/3 missing"))
        #expect(refusal(parts + [parts[1]]).contains("is part 2/3 too"))
        #expect(refusal([parts[0], parts[1], dir.file("other.mbtiles")]).contains("other settings"))
        #expect(refusal(parts + [dir.file("plain.mbtiles")]).contains("not a part of a sharded build"))
        #expect(refusal([dir.file("nope.mbtiles")]).contains("no such file"))
        #expect(!FileManager.default.fileExists(atPath: dir.file("m.mbtiles")))
        #expect(!dir.contents.contains { $0.contains(".building") })
        #expect(try ShardSpec(parsing: "3/3") == ShardSpec(index: 3, count: 3))
        for bad in ["0/3", "4/3", "1/0", "2", "a/b", "-1/2"] {
            #expect(throws: BuildError.self, "\(bad)") { try ShardSpec(parsing: bad) }
        }
    }
}
