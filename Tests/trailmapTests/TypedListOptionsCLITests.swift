import Foundation
import Testing
import TrailMapTestSupport

/// A trail search's `--difficulty`, `--uses` and `--exclude-uses` lists and a profile's `--line`
/// are parsed into types as the command line is read: a bad value is a usage error (64) naming
/// the option and the value, before the other arguments are checked (a missing bundle, a tiles
/// folder that is not there) and before anything is read.
@Suite(.blockingThreads) struct TypedListOptionsCLITests {
    @Test func aBadListOrLineIsAUsageErrorNamingItsOption() throws {
        let dir = TemporaryDirectory()
        let state = ["--state-dir", dir.file("state")]
        let tiles = ["--tiles", dir.file("no-such-folder")]
        let cases: [([String], String)] = [
            (
                ["trails", "search", "--difficulty", "easy,steep"],
                """
                The value 'easy,steep' is invalid for '--difficulty <difficulty>': --difficulty: steep is not one of easy, moderate, \
                hard, expert, unknown.
                """
            ),
            (
                ["trails", "search", "--uses", "foot", "--uses", "wings"],
                "The value 'wings' is invalid for '--uses <uses>': --uses: wings is not one of foot, bicycle, horse, motor_vehicle, ski."
            ),
            (
                ["trails", "search", "--exclude-uses", "horse,,hooves"],
                "is invalid for '--exclude-uses <exclude-uses>': --exclude-uses: hooves"
            ),
            (["regions", "trails", "search", "--difficulty", "medium"] + state, "--difficulty: medium is not one of"),
            (
                ["regions", "profile", "--line", "-33.95;-33.93,-70.6"] + tiles,
                "The value '-33.95;-33.93,-70.6' is invalid for '--line <line>': --line: point 1 is not LAT,LON: -33.95"
            ),
            (["regions", "profile", "--line", "-33.95,-70.6;91,-70.6"] + tiles, "--line: point 2: latitude 91.0 is outside -90 to 90"),
            (["regions", "profile", "--line", "0,0;0,-181"] + tiles, "--line: point 2: longitude -181.0 is outside -180 to 180"),
            (["regions", "profile", "--line", "0,0;nan,1"] + tiles, "--line: point 2: latitude nan is outside -90 to 90"),
            (["regions", "profile", "--line", "-33.95,-70.6"] + tiles, "--line: a line needs at least 2 points, found 1"),
            (["regions", "profile", "--line=-33.95,-70.6;"] + tiles, "--line: point 2 is not LAT,LON")
        ]
        for (args, message) in cases {
            let r = try CLIRunner.run(args)
            #expect(r.status == 64, "\(args): \(r.status) \(r.stderr)")
            #expect(r.stderr.contains(message), "\(args): \(r.stderr)")
            #expect(r.stdout.isEmpty, "\(args): \(r.stdout)")
        }
    }

    /// Good values still parse: lists in any case, repeated or comma-separated with spaces, a use
    /// written with a hyphen; a line of negative coordinates, with or without `=`. The commands
    /// then fail on the missing bundle or tiles folder, not on the values.
    @Test func goodValuesParse() throws {
        let dir = TemporaryDirectory()
        let search = try CLIRunner.run([
            "trails", "search", dir.file("none.mbtiles"), "--difficulty", "Easy, moderate", "--difficulty", "unknown",
            "--uses", "motor-vehicle", "--exclude-uses", "HORSE,ski"
        ])
        #expect(search.status != 64 && search.stderr.contains("none.mbtiles"), "\(search.status) \(search.stderr)")
        for line in [["--line", "-33.95,-70.6;-33.93,-70.6"], ["--line=-33.95,-70.6; -33.93 , -70.6"]] {
            let r = try CLIRunner.run(["regions", "profile"] + line + ["--tiles", dir.file("no-such-folder")])
            #expect(r.status == 1 && r.stderr.contains("no such folder of installed regions"), "\(line): \(r.status) \(r.stderr)")
        }
    }
}
