import Foundation
import Testing
import TileGeometry
import TrailMapTestSupport

/// A sharded build through a real Slurm cluster (scripts/slurm/submit.sh on a one-node cluster of
/// this test run's own): a shard's job cancelled mid-run is resubmitted and resumes, and the merged
/// bundle equals a build on one machine; a corrupt source stops the build, named, unmerged.
/// CI installs Slurm (scripts/install-deps.sh): there the tests are required.
@Suite(.serialized, .blockingThreads) struct SlurmBuildTests {
    static let required = ProcessInfo.processInfo.environment["CI"] != nil
    let dir = TemporaryDirectory()

    /// Four 1-degree sheets of the committed Blue Marble crop (Tiles/sources/colorado.png + .pgw),
    /// cut and upsampled by gdal_translate, in `folder`.
    func sheets(_ folder: String) throws -> [String] {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        var out = [String]()
        for (x, y) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
            let west = -108 + x, north = 40 - y
            let path = folder + "/sheet_\(x)\(y).tif"
            try GDALTools.translate(
                SlurmCluster.root + "/Tiles/sources/colorado.png", path,
                [
                    "-a_srs", "EPSG:4326", "-projwin", "\(west)", "\(north)", "\(west + 1)", "\(north - 1)",
                    "-outsize", "240", "240", "-r", "cubic", "-co", "TILED=YES"
                ])
            out.append(path)
        }
        return out
    }

    /// The driver, started in the background; its output (stdout and stderr) goes to `log`.
    func startDriver(_ args: [String], log: String, environment: [String: String]) throws -> ChildProcess {
        FileManager.default.createFile(atPath: log, contents: nil)
        let p = ChildProcess()
        p.executableURL = URL(fileURLWithPath: SlurmCluster.root + "/scripts/slurm/submit.sh")
        p.arguments = args
        p.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
            .merging(["TRAILMAP": CLIRunner.binary]) { _, new in new }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        p.standardOutput = handle
        p.standardError = handle
        p.standardInput = FileHandle.nullDevice
        try p.run()
        return p
    }

    /// Waits for `p` at most `seconds`, removing the `releasing` files as they appear (a paused
    /// build's markers); false (and the process terminated) when it ran longer. It polls on a
    /// thread of its own: the suite's shared threads may all be held by other suites' long
    /// builds on a loaded machine, and a paused shard waits for this loop.
    func wait(_ p: ChildProcess, seconds: Double, releasing: [String] = []) async throws -> Bool {
        let process = UncheckedProcess(p)
        return try await offThePool {
            let deadline = Date().addingTimeInterval(seconds)
            while process.p.isRunning {
                for file in releasing { try? FileManager.default.removeItem(atPath: file) }
                if Date() > deadline {
                    process.p.terminate()
                    return false
                }
                Thread.sleep(forTimeInterval: 0.2)
            }
            return true
        }
    }

    /// Whether `tool` ran and exited 0.
    func succeeds(_ tool: String, _ args: [String], environment: [String: String] = [:]) -> Bool {
        let p = ChildProcess()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = environment.map { "\($0.key)=\($0.value)" } + [tool] + args
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        guard (try? p.run()) != nil else { return false }
        p.waitUntilExit()
        return p.terminationStatus == 0
    }

    func cluster() async throws -> [String: String] {
        try await offThePool { try SlurmCluster.environment.get() }
    }

    @Test(
        .enabled(
            if: SlurmCluster.installed || required, "Slurm is not installed (scripts/install-deps.sh slurmctld slurmd slurm-client munge)"))
    func aCancelledShardIsResubmittedAndTheMergeEqualsOneBuild() async throws {
        let env = try await cluster()
        let src = dir.file("sheets")
        _ = try sheets(src)
        let build = ["--source", src, "--name", "SlurmTest", "--minzoom", "5", "--maxzoom", "11"]
        let merged = dir.file("merged.mbtiles"), log = dir.file("driver.log")
        // The reference, built on one machine before the shards start.
        let single = try CLIRunner.run(["build"] + build + ["--out", dir.file("single.mbtiles"), "--quiet"])
        #expect(single.status == 0, "\(single.stderr)")
        // Each shard's first attempt holds still once it has recorded a unit (the debug binary's
        // test hook): it writes `part-K.mbtiles.paused` and waits until the file is removed. The
        // test cancels shard 2 while it holds (so it has a unit to resume) and lets the others go.
        let driver = try startDriver(
            ["--shards", "4", "--out", merged, "--poll", "0.5", "--wait", "--"] + build, log: log,
            environment: env.merging(["TRAILMAP_TEST_PAUSE_AFTER_UNITS": "1:240"]) { _, new in new })
        let markers = (1...4).map { dir.file(".merged.parts/part-\($0).mbtiles.paused") }
        // Watched on a thread of its own, as `wait` does: shards 1, 3 and 4 let go, shard 2's
        // array job named once it holds.
        let driverProcess = UncheckedProcess(driver)
        let holding: (job: String, scancel: Bool)? = try await offThePool {
            let deadline = Date().addingTimeInterval(300)
            while driverProcess.p.isRunning && Date() < deadline {
                for k in [0, 2, 3] { try? FileManager.default.removeItem(atPath: markers[k]) }
                let said = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
                if FileManager.default.fileExists(atPath: markers[1]), let array = said.firstMatch(of: #/as array job (\d+)/#)?.output.1 {
                    // Cancelled from this thread, at once: on a loaded machine the test's own
                    // thread can wait for its executor longer than the shard holds (a run saw the
                    // cancel come four minutes late, after the shard had finished). scancel is
                    // tried again if it fails (its messages can time out under load).
                    let job = "\(array)_2"
                    for attempt in 0..<3 {
                        if succeeds("scancel", [job], environment: env) { return (job, true) }
                        Thread.sleep(forTimeInterval: Double(attempt + 1))
                    }
                    return (job, false)
                }
                Thread.sleep(forTimeInterval: 0.05)
            }
            return nil
        }
        let soFar = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        let (cancelled, scancelled) = try #require(holding, "shard 2 was never seen holding after a recorded unit: \(soFar)")
        #expect(scancelled, "scancel \(cancelled) failed three times")
        // A second attempt that starts over holds again: every marker is released from now on.
        let finished = try await wait(driver, seconds: 180, releasing: markers)
        let said = try String(contentsOfFile: log, encoding: .utf8)
        #expect(finished && driver.terminationStatus == 0, "\(said)")
        #expect(said.contains("shard 2 (job \(cancelled)) CANCELLED"), "\(said)")
        #expect(said.contains("resubmitted shard(s) 2 as array job"), "\(said)")
        // The second attempt picks up the partial file: it resumes it, or says why it started over.
        // Resuming itself is covered by BuildResumeTests; here the driver must carry on to an
        // identical merge.
        #expect(said.contains(#/shard 2 done \(job \d+_2 on \S+, attempt 2\): (resumed a partial build|started over: )/#), "\(said)")
        #expect(said.contains("merged: \(merged): 4 parts merged"), "\(said)")
        let one = try TestBundle.tiles(dir.file("single.mbtiles")), four = try TestBundle.tiles(merged)
        #expect(one.count > 200 && four.count == one.count)
        let differing = one.filter { four[$0.key] != $0.value }.map(\.key)
        #expect(differing.isEmpty, "\(differing.count) tiles differ, e.g. \(differing.prefix(3))")
    }

    @Test(
        .enabled(
            if: SlurmCluster.installed || required, "Slurm is not installed (scripts/install-deps.sh slurmctld slurmd slurm-client munge)"))
    func aCorruptSourceNamesTheShardsAndNothingIsMerged() async throws {
        let env = try await cluster()
        let src = dir.file("sheets")
        let paths = try sheets(src)
        // One sheet cut short: its header reads, its pixels do not.
        let bytes = try Data(contentsOf: URL(fileURLWithPath: paths[1]))
        try bytes.prefix(3000).write(to: URL(fileURLWithPath: paths[1]))
        let merged = dir.file("bad.mbtiles"), log = dir.file("driver.log")
        let driver = try startDriver(
            [
                "--shards", "4", "--out", merged, "--poll", "0.5", "--wait", "--",
                "--source", src, "--name", "Bad", "--minzoom", "5", "--maxzoom", "9"
            ], log: log, environment: env)
        let finished = try await wait(driver, seconds: 90)
        let said = try String(contentsOfFile: log, encoding: .utf8)
        #expect(finished && driver.terminationStatus == 1, "\(said)")
        #expect(said.contains("the build failed; nothing was merged"), "\(said)")
        #expect(said.contains(#/shard \d failed for good on \S+ \(job \d+_\d, FAILED, exit 1:0\): exit 1: .*sheet_10\.tif/#), "\(said)")
        #expect(!said.contains("resubmitted"), "a corrupt source is not retried: \(said)")
        #expect(!FileManager.default.fileExists(atPath: merged))
        #expect(!FileManager.default.fileExists(atPath: dir.file(".bad.parts/logs/merge.log")), "the merge job never ran")
    }
}

/// A process handed to a polling thread (`Process` is not `Sendable`; only the thread uses it
/// until the test reads its status afterwards).
private struct UncheckedProcess: @unchecked Sendable {
    let p: ChildProcess
    init(_ p: ChildProcess) { self.p = p }
}
