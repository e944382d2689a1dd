import Foundation
import Testing
import TrailMapTestSupport

/// `build --bounds`, `bundle extract --bbox` and `trails search --bbox` read W,S,E,N with one
/// parser: the same bad text is refused by each with the same reason, as a usage error (64) whose
/// message names the option the user typed. Only the trail search allows west > east (a box
/// across the antimeridian).
@Suite(.blockingThreads) struct BoxOptionsCLITests {
    let dir = TemporaryDirectory()

    /// The three commands, each with its box option given `box`.
    func commands(_ box: String) -> [(option: String, args: [String])] {
        [
            ("--bounds", ["build", "--source", dir.file("none.tif"), "--name", "T", "--out", dir.file("t.mbtiles"), "--bounds", box]),
            ("--bbox", ["bundle", "extract", dir.file("none.mbtiles"), "--bbox", box, "--out", dir.file("x.mbtiles")]),
            ("--bbox", ["trails", "search", dir.file("none.mbtiles"), "--bbox", box])
        ]
    }

    @Test(arguments: [
        ("1,2,3", "4 numbers are needed, got 3"),
        ("1,2,3,4,5", "4 numbers are needed, got 5"),
        ("1,2,east,4", "east is not a number"),
        ("1,,3,4", "\"\" is not a number"),
        ("0,2,1,1", "south 2 is north of north 1"),
        ("0,-95,1,1", "south -95 is outside -90...90"),
        ("0,0,1,90.5", "north 90.5 is outside -90...90"),
        ("-181,0,1,1", "west -181 is outside -180...180"),
        ("nan,0,1,1", "nan is not a finite number"),
        ("0,0,inf,1", "inf is not a finite number")
    ])
    func aBadBoxIsRefusedAlikeByEveryOption(_ box: String, _ reason: String) throws {
        for (option, args) in commands(box) {
            let r = try CLIRunner.run(args)
            #expect(r.status == 64, "\(args): \(r.status) \(r.stderr)")
            #expect(
                r.stderr.contains("\(option) must be WEST,SOUTH,EAST,NORTH in degrees, e.g. -106,38,-104,40: \(reason)"),
                "\(args): \(r.stderr)")
            #expect(r.stdout.isEmpty, "\(args): \(r.stdout)")
        }
    }

    /// Another option in the place of the box is a missing value, not a box.
    @Test func anOptionInPlaceOfTheBoxIsAMissingValue() throws {
        for (option, args) in commands("--out") {
            let r = try CLIRunner.run(args)
            #expect(r.status == 64 && r.stderr.contains("\(option) needs a value before --out"), "\(args): \(r.stderr)")
        }
    }

    /// West east of east: an empty box to `--bounds` and `bundle extract --bbox`, a box across the
    /// antimeridian to a trail search when west > 0 > east (and refused otherwise).
    @Test func westEastOfEastIsTheTrailSearchsOwnRule() throws {
        for (option, args) in commands("179,-10,-179,10").prefix(2) {
            let r = try CLIRunner.run(args)
            #expect(r.status == 64 && r.stderr.contains("\(option) must be WEST,SOUTH,EAST,NORTH in degrees"), "\(args): \(r.stderr)")
            #expect(r.stderr.contains("west 179 is east of east -179"), "\(args): \(r.stderr)")
        }
        let across = try CLIRunner.run(commands("179,-10,-179,10")[2].args)
        #expect(across.status != 64 && across.stderr.contains("none.mbtiles"), "\(across.status) \(across.stderr)")
        let backwards = try CLIRunner.run(commands("-100,-10,-120,10")[2].args)
        #expect(backwards.status == 64, "\(backwards.stderr)")
        #expect(
            backwards.stderr.contains("west -100 is east of east -120 (a box across the antimeridian has west > 0 > east)"),
            "\(backwards.stderr)")
        for (_, args) in commands("1,2,1,3").prefix(2) {
            let r = try CLIRunner.run(args)
            #expect(r.status == 64 && r.stderr.contains("west and east are both 1: the box is empty"), "\(args): \(r.stderr)")
        }
    }

    /// Good boxes still parse, negative, with spaces, or space-separated: each command goes on to
    /// its missing file.
    @Test(arguments: ["-106,38,-104,40", " -106 , 38 , -104 , 40 ", "-106 38 -104 40"])
    func goodBoxesParse(_ box: String) throws {
        for (_, args) in commands(box) {
            let r = try CLIRunner.run(args)
            #expect(
                r.status == 1 && (r.stderr.contains("none.tif") || r.stderr.contains("none.mbtiles")), "\(args): \(r.status) \(r.stderr)")
        }
    }
}
