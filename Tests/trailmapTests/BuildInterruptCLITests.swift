@testable import BundleBuilder
import Foundation
import Testing
import TileGeometry
import TileStore
import TrailMapTestSupport

/// Ctrl-C on `trailmap build` says the work is kept and how to resume, leaves no lock file, and
/// the same command resumes; a resumed build's rate counts only its own run's tiles.
@Suite(.serialized, .blockingThreads) struct BuildInterruptCLITests {
    @Test func ctrlCKeepsTheWorkAndSaysHowToResume() throws {
        let dir = TemporaryDirectory()
        let png = try TestSources.write(
            in: dir, name: "big", width: 900, height: 600, bounds: BuildResumeTests.box, color: TestSources.terrain)
        let src = dir.file("big.tif")
        try GDALTools.translate(png, src, ["-a_srs", "EPSG:4326"])
        let out = dir.file("interrupted.mbtiles")
        let args = ["build", "--source", src, "--name", "Interrupted", "--minzoom", "3", "--maxzoom", "10", "--out", out, "--threads", "1"]
        let (p, outPipe, errPipe) = try CLIRunner.start(args)
        let partial = BundleWriter.partialPath(for: out)
        let deadline = Date().addingTimeInterval(120)
        // Wait for the first recorded unit, then press Ctrl-C.
        while p.isRunning, Date() < deadline {
            if FileManager.default.fileExists(atPath: partial),
                let n = Int(
                    try CLIRunner.run(["-readonly", partial, "SELECT COUNT(*) FROM trailmap_units"], executable: "/usr/bin/sqlite3")
                        .stdout.trimmingCharacters(in: .whitespacesAndNewlines)), n > 0
            {
                break
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
        try #require(p.isRunning, "the build ended before it could be interrupted")
        kill(p.processIdentifier, SIGINT)
        let stderr = String(decoding: errPipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        _ = outPipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        #expect(p.terminationStatus == 130, "\(p.terminationStatus) \(stderr)")
        #expect(stderr.contains("The work done so far is kept in \(partial)") && stderr.contains("run the same command again"), "\(stderr)")
        #expect(FileManager.default.fileExists(atPath: partial))
        #expect(!FileManager.default.fileExists(atPath: partial + ".lock"), "no lock file left behind")
        #expect(!FileManager.default.fileExists(atPath: out))
        let resumed = try CLIRunner.run(args + ["--quiet"])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(try CLIRunner.run(["bundle", "verify", out]).status == 0)
        #expect(!FileManager.default.fileExists(atPath: partial) && !FileManager.default.fileExists(atPath: partial + ".lock"))
    }

    /// A resumed build at 1,000 of 2,000 tiles, 900 of them made by the interrupted run, after 1 s:
    /// 100 tiles/s and 10 s left (not 1,000 tiles/s and 1 s).
    @Test func resumedRateCountsOnlyThisRun() {
        let p = BuildProgress(phase: .rendering, done: 1000, total: 2000, stored: 1000, elapsed: 1, doneBefore: 900)
        #expect(p.rate == 100)
        #expect(p.eta == 10)
        #expect(p.line.contains("100 tiles/s") && p.line.contains("ETA 0:10"), "\(p.line)")
    }

    /// The finished build's rate (the summary line, `--json`'s tilesPerSecond): 2,000 tiles
    /// considered, 1,500 of them made by the interrupted run, in 5 s: 100 tiles/s, not 400.
    @Test func aResumedBuildsSummaryRateCountsOnlyThisRun() {
        let r = BuildReport(
            output: "x.mbtiles", tilesConsidered: 2000, tilesStored: 2000, uniqueImages: 2000, bytesStored: 0, tileBytes: 0,
            tilesPerZoom: [:], seconds: 5, spilledSources: 0, start: .resumed(units: 3, tiles: 1500), tilesResumed: 1500)
        #expect(r.tilesPerSecond == 100)
    }
}
