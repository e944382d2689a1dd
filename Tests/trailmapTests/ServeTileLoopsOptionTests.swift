import Testing
import TrailMapTestSupport

/// `trailmap serve --tile-loops`: out-of-range values are refused with a message naming the option.
@Suite struct ServeTileLoopsOptionTests {
    @Test func badThreadCountsAreRefused() throws {
        let dir = TemporaryDirectory()
        for value in ["-1", "257", "many"] {
            let r = try CLIRunner.run(["serve", "--tiles", dir.path, "--port", "0", "--tile-loops", value])
            #expect(r.status != 0 && r.stderr.contains("--tile-loops"), "\(value): \(r.status) \(r.stderr)")
        }
    }
}
