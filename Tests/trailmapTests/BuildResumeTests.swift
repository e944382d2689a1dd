import Essentials
import Foundation
import Testing
import TileGeometry
import TileStore
import TrailMapTestSupport

/// A build killed with SIGKILL (from inside the child, at chosen points, through the debug
/// builds' `TRAILMAP_TEST_KILL_AFTER_UNITS`) resumes, and ends with the tiles of a build that
/// was never interrupted.
@Suite(.serialized, .blockingThreads) struct BuildResumeTests {
    let dir = TemporaryDirectory()
    static let box = GeoBounds(west: -110, south: 36, east: -101, north: 42)

    func arguments(_ src: String, out: String, maxZoom: Int = 10) -> [String] {
        ["build", "--source", src, "--name", "Resume", "--minzoom", "3", "--maxzoom", String(maxZoom), "--out", out, "--threads", "2"]
    }

    /// Units recorded in the partial file beside `out`.
    func recordedUnits(_ out: String) throws -> Int {
        let r = try CLIRunner.run(
            ["-readonly", BundleWriterPaths.partial(out), "SELECT COUNT(*) FROM trailmap_units"], executable: "/usr/bin/sqlite3")
        return Int(r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }

    @Test func killedAtSeveralPointsResumesToTheSameTiles() throws {
        let src = try TestSources.write(in: dir, name: "big", width: 900, height: 600, bounds: Self.box, color: TestSources.terrain)
        let reference = dir.file("reference.mbtiles")
        #expect(try CLIRunner.run(arguments(src, out: reference) + ["--quiet"]).status == 0)

        let out = dir.file("resumed.mbtiles")
        var recorded = 0
        // Killed after the first unit, then (resumed) after 40 more, then with every unit done
        // but the bundle not finished; then resumed to the end.
        for kill in ["1", "40", "0"] {
            let r = try CLIRunner.run(arguments(src, out: out), environment: ["TRAILMAP_TEST_KILL_AFTER_UNITS": kill])
            #expect(r.status != 0, "killed (after \(kill))")
            #expect(!FileManager.default.fileExists(atPath: out), "no bundle before the build finishes")
            let now = try recordedUnits(out)
            #expect(now > recorded, "units recorded after the kill at \(kill): \(now), before \(recorded)")
            recorded = now
        }
        let last = try CLIRunner.run(arguments(src, out: out))
        #expect(last.status == 0, "\(last.stderr)")
        #expect(last.stdout.contains("resumed a partial build: \(recorded) unit(s)"), "\(last.stdout)")
        #expect(!dir.contents.contains { $0.contains(".building") }, "\(dir.contents)")

        let expected = try TestBundle.tiles(reference), got = try TestBundle.tiles(out)
        #expect(got.count == expected.count && !expected.isEmpty)
        // The summary counts the bundle's tiles, not the writes (tiles of a unit cut short are
        // written again).
        #expect(last.stdout.contains(": \(got.count) tiles stored"), "\(got.count) tiles: \(last.stdout)")
        let differing = expected.filter { got[$0.key] != $0.value }.map(\.key)
        #expect(differing.isEmpty, "\(differing.count) tiles differ, e.g. \(differing.prefix(3))")
        #expect(try CLIRunner.run(["bundle", "verify", out]).status == 0)
        // The journal is gone from the finished bundle; the build record stays.
        let tables = try CLIRunner.run([out, ".tables"], executable: "/usr/bin/sqlite3").stdout
        #expect(!tables.contains("trailmap_units") && tables.contains("trailmap_build"), "\(tables)")
    }

    @Test func otherArgumentsStartOverAndSaySo() throws {
        let src = try TestSources.write(in: dir, name: "s", width: 600, height: 400, bounds: Self.box, color: TestSources.terrain)
        let out = dir.file("o.mbtiles")
        let killed = try CLIRunner.run(arguments(src, out: out), environment: ["TRAILMAP_TEST_KILL_AFTER_UNITS": "5"])
        #expect(killed.status != 0)
        let other = try CLIRunner.run(arguments(src, out: out, maxZoom: 8))
        #expect(other.status == 0, "\(other.stderr)")
        #expect(other.stdout.contains("started over") && other.stdout.contains("other arguments or sources"), "\(other.stdout)")
        #expect(!other.stdout.contains("resumed"))
        #expect(try BundleReader(path: out).zoomLevels().map(\.zoom) == Array(3...8))
    }

    @Test func updateFromTheCommandLine() throws {
        let west = GeoBounds(west: -110, south: 36, east: -106, north: 42), east = GeoBounds(west: -106, south: 36, east: -101, north: 42)
        let a = try TestSources.write(in: dir, name: "west", width: 200, height: 200, bounds: west, color: TestSources.terrain)
        var b = try TestSources.write(in: dir, name: "east", width: 200, height: 200, bounds: east, color: TestSources.terrain)
        let args = { (out: String) in
            ["build", "--source", a, "--source", b, "--name", "U", "--minzoom", "3", "--maxzoom", "8", "--out", out]
        }
        #expect(try CLIRunner.run(args(dir.file("v1.mbtiles")) + ["--quiet"]).status == 0)
        b = try TestSources.write(in: dir, name: "east", width: 200, height: 200, bounds: east) { c, r in (UInt8(c), UInt8(r), 0, 255) }
        let r = try CLIRunner.run(args(dir.file("v2.mbtiles")) + ["--update", dir.file("v1.mbtiles")])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("sources 0 added, 0 removed, 1 changed (east.png)") && r.stdout.contains("re-rendered"), "\(r.stdout)")
        let bad = try CLIRunner.run(args(dir.file("v3.mbtiles")) + ["--update", dir.file("v1.mbtiles"), "--shard", "1/2"])
        #expect(bad.status != 0 && bad.stderr.contains("exclude each other"), "\(bad.stderr)")
        let other = try CLIRunner.run(args(dir.file("v3.mbtiles")).map { $0 == "8" ? "7" : $0 } + ["--update", dir.file("v1.mbtiles")])
        #expect(other.status != 0 && other.stderr.contains("other settings") && other.stderr.contains("full build"), "\(other.stderr)")
    }

    @Test func aSecondBuildOfTheSameBundleAtOnceIsRefused() throws {
        let src = try TestSources.write(in: dir, name: "s", width: 300, height: 200, bounds: Self.box, color: TestSources.terrain)
        let out = dir.file("l.mbtiles")
        let lock = try FileLock(path: BundleWriterPaths.partial(out) + ".lock", wait: false)
        let r = try CLIRunner.run(arguments(src, out: out, maxZoom: 6))
        #expect(r.status != 0 && r.stderr.contains("another build is writing it now"), "\(r.stderr)")
        lock.unlock()
        #expect(try CLIRunner.run(arguments(src, out: out, maxZoom: 6)).status == 0)
    }
}

/// Where a resumable build keeps its partial file.
enum BundleWriterPaths {
    static func partial(_ out: String) -> String { BundleWriter.partialPath(for: out) }
}
