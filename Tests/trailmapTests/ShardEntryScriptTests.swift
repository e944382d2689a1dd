import Foundation
import Testing
import TrailMapTestSupport

/// scripts/slurm/shard-entry.sh, the one entry of Slurm's and Kubernetes' jobs, run directly (as a
/// Kubernetes indexed Job runs it): a source this node lacks and a merge with a part missing are
/// refused with the shard named, and nothing is merged.
@Suite(.blockingThreads) struct ShardEntryScriptTests {
    let dir = TemporaryDirectory()
    static let entry = SlurmCluster.root + "/scripts/slurm/shard-entry.sh"

    func run(_ args: [String], environment: [String: String] = [:]) throws -> CLIRunner.Result {
        try CLIRunner.run(args, executable: Self.entry, environment: ["TRAILMAP": CLIRunner.binary].merging(environment) { _, new in new })
    }

    @Test func aSourceMissingOnThisNodeIsNamed() throws {
        let missing = dir.file("staged/sheet.tif")
        let r = try run(
            ["shard", "--shards", "4", "--parts", dir.file("parts"), "--", "--source", missing, "--name", "X"],
            environment: ["JOB_COMPLETION_INDEX": "2"])
        #expect(r.status == 66)
        #expect(r.stderr.contains("shard 3/4 on ") && r.stderr.contains("source \(missing) is missing on this node"), "\(r.stderr)")
        let recorded = try String(contentsOfFile: dir.file("parts/status/shard-3.failed"), encoding: .utf8)
        #expect(recorded.contains("source \(missing) is missing on this node"))
    }

    @Test func aMergeWithAPartMissingIsRefusedAndNamesIt() throws {
        // Parts 1 and 3 of 3 built for real; part 2 only started (its partial file is there).
        let sheet = dir.file("s.tif")
        try GDALTools.translate(
            SlurmCluster.root + "/Tiles/sources/colorado.png", sheet,
            ["-a_srs", "EPSG:4326", "-projwin", "-108", "40", "-107", "39", "-outsize", "60", "60"])
        for k in ["1", "3"] {
            let r = try run([
                "shard", "--shards", "3", "--parts", dir.file("parts"), "--index", k, "--",
                "--source", sheet, "--name", "M", "--minzoom", "5", "--maxzoom", "8", "--quiet"
            ])
            #expect(r.status == 0, "\(r.stderr)")
        }
        FileManager.default.createFile(atPath: dir.file("parts/.part-2.mbtiles.building"), contents: Data())
        let out = dir.file("m.mbtiles")
        let r = try run(["merge", "--shards", "3", "--parts", dir.file("parts"), "--out", out])
        #expect(r.status == 65)
        #expect(
            r.stderr.contains("1 of 3 parts missing")
                && r.stderr.contains("shard 2: \(dir.file("parts/part-2.mbtiles")) is missing (only its partial file is there"),
            "\(r.stderr)")
        #expect(!r.stderr.contains("shard 1:") && !r.stderr.contains("shard 3:"))
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    @Test func badArgumentsAreRefused() throws {
        let noIndex = try run(["shard", "--shards", "2", "--parts", dir.file("p"), "--", "--source", "x"])
        #expect(noIndex.status == 2 && noIndex.stderr.contains("no shard index"))
        let outGiven = try run(["shard", "--shards", "2", "--parts", dir.file("p"), "--index", "1", "--", "--out", "x.mbtiles"])
        #expect(outGiven.status == 2 && outGiven.stderr.contains("must not give --out"))
        let beyond = try run(["shard", "--shards", "2", "--parts", dir.file("p"), "--index", "3", "--", "--source", "x"])
        #expect(beyond.status == 2 && beyond.stderr.contains("not within 1-2"))
    }
}
