import Foundation
import Testing
import TrailMapTestSupport

/// Options whose string names a choice or a list are parsed into types as the command line is
/// read: a bad value is a usage error (64) saying what the option takes, before any check of the
/// options against each other (which used to answer first, about something else).
@Suite(.blockingThreads) struct TypedChoiceOptionsCLITests {
    @Test func aBadChoiceIsAUsageErrorNamingItsOption() throws {
        let dir = TemporaryDirectory()
        let build = ["build", "--source", dir.file("none.tif"), "--name", "T", "--out", dir.file("t.mbtiles")]
        let cases: [([String], String)] = [
            (build + ["--terrain-image", "gif"], "--terrain-image must be png or webp, not gif"),
            (build + ["--trails-preset", "shp"], "--trails-preset must be osm, not shp"),
            (["trails", "add", dir.file("none.mbtiles"), "--preset", "tiger"], "--preset must be osm or generic, not tiger."),
            (
                ["serve", "--tiles", dir.path, "--store-root-cert", dir.file("root.pem"), "--available-products", "a,b c"],
                "--available-products must be product ids separated by commas"
            ),
            (
                ["trails", "search", dir.file("none.mbtiles"), "--bbox", "1,2,3"],
                "--bbox must be WEST,SOUTH,EAST,NORTH in degrees, e.g. -106,38,-104,40: 4 numbers are needed, got 3"
            ),
            (
                ["regions", "trails", "search", "--sort", "height", "--state-dir", dir.file("state")],
                "--sort must be distance, length or name."
            ),
            (
                ["bundle", "extract", dir.file("none.mbtiles"), "--bbox", "2,2,1,1", "--out", dir.file("x.mbtiles")],
                "--bbox must be WEST,SOUTH,EAST,NORTH in degrees, e.g. -106,38,-104,40: south 2 is north of north 1"
            ),
            (
                ["regions", "sandbox-refund", "x", "--type", "REFUN", "--state-dir", dir.file("state")],
                "--type must be REFUND, REVOKE or REFUND_REVERSED"
            ),
            (["regions", "near", "91,0", "--state-dir", dir.file("state")], "Give the point as LAT,LON in degrees, e.g. 40.34,-105.68."),
            (
                ["regions", "area", "quote", "40.3", "--radius-km", "5", "--state-dir", dir.file("state")],
                "Give the point as LAT,LON in degrees"
            ),
            (["trails", "search", dir.file("none.mbtiles"), "--near", "north", "--radius-km", "2"], "Give the point as LAT,LON in degrees")
        ]
        for (args, message) in cases {
            let r = try CLIRunner.run(args)
            #expect(r.status == 64, "\(args): \(r.status) \(r.stderr)")
            #expect(r.stderr.contains(message), "\(args): \(r.stderr)")
        }
    }

    /// Good values still parse: a choice in any case for --terrain-image, a negative --bbox.
    @Test func goodValuesParse() throws {
        let dir = TemporaryDirectory()
        let r = try CLIRunner.run([
            "build", "--dem", dir.file("none.tif"), "--format", "terrarium", "--terrain-image", "WEBP",
            "--name", "T", "--out", dir.file("t.mbtiles")
        ])
        #expect(r.status == 1 && r.stderr.contains("none.tif"), "\(r.status) \(r.stderr)")
        let s = try CLIRunner.run(["trails", "search", dir.file("none.mbtiles"), "--bbox", "-105.7,40.3,-105.6,40.4", "--sort", "name"])
        #expect(s.status != 64 && s.stderr.contains("none.mbtiles"), "\(s.status) \(s.stderr)")
    }
}
