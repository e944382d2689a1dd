import Foundation
import Testing
import TrailMapTestSupport

/// `trailmap build`'s values parsed once into types as the command line is read: a bad value is
/// a usage error (64) naming the option and what it takes; negative numbers are values.
@Suite(.blockingThreads) struct TypedBuildOptionsCLITests {
    let dir = TemporaryDirectory()

    func build(_ extra: [String]) throws -> CLIRunner.Result {
        try CLIRunner.run(["build", "--source", dir.file("none.tif"), "--name", "T", "--out", dir.file("t.mbtiles")] + extra)
    }

    @Test(arguments: [
        (["--scale", "4000"], "--scale must be MIN,MAX, e.g. 0,4000"),
        (["--scale", "4000,0"], "--scale 4000,0: MIN must be less than MAX"),
        (["--scale", "--out", "x.mbtiles"], "--scale needs a value before --out"),
        (["--src-nodata", "black"], "--src-nodata must be a number or comma-separated numbers, e.g. 0 or 255,255,255"),
        (
            ["--bounds", "-106,39,-105"],
            "--bounds must be WEST,SOUTH,EAST,NORTH in degrees, e.g. -106,38,-104,40: 4 numbers are needed, got 3"
        ),
        (
            ["--bounds", "-105,39,-106,40"],
            "--bounds must be WEST,SOUTH,EAST,NORTH in degrees, e.g. -106,38,-104,40: west -105 is east of east -106"
        ),
        (["--trails-zooms", "16-10"], "--trails-zooms must be Z0-Z1 with 0 <= Z0 <= Z1 <= "),
        (["--format", "gif"], "--format must be png, webp or jpeg (or terrarium or terrain-rgb with --dem), not gif"),
        (["--resampling", "sinc"], "'sinc' is invalid for '--resampling")
    ])
    func aBadValueIsAUsageErrorSayingWhatIsAccepted(_ args: [String], _ message: String) throws {
        let r = try build(args)
        #expect(r.status == 64, "\(args): \(r.status) \(r.stderr)")
        #expect(r.stderr.contains(message), "\(args): \(r.stderr)")
    }

    /// Negative coordinates and values parse: the build goes on to the (missing) source.
    @Test func negativeNumbersAreValues() throws {
        let r = try build([
            "--bounds", "-106,39,-105,40", "--src-nodata", "-9999", "--scale", "-50,4000", "--minzoom", "3", "--maxzoom", "4"
        ])
        #expect(r.status == 1, "\(r.stderr)")
        #expect(r.stderr.contains("none.tif"), "\(r.stderr)")
    }
}
