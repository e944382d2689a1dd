import Terrain
import Testing
import TrailMapTestSupport

/// gdaldem color-relief's ramp format: entries by elevation or percentage, `nv`, names, and
/// linear interpolation between entries; a line that does not parse names the file and line.
@Suite(.computeThreads) struct ColorRampTests {
    @Test func interpolatesBetweenEntriesAndClampsOutside() throws {
        let ramp = try ColorRamp.parse(
            """
            # a comment
            1000 0 0 0
            2000,200,100,50
            50% 255:255:255:128
            nv 0 0 255 0
            """, path: "ramp.txt"
        ).resolved(min: 0, max: 3000)
        // 50% of 0-3000 is 1500: between 1000 (black) and 1500 (white, alpha 128).
        #expect(ramp.colour(1250) == (128, 128, 128, 192))
        #expect(ramp.colour(1500) == (255, 255, 255, 128))
        #expect(ramp.colour(500) == (0, 0, 0, 255))
        #expect(ramp.colour(9000) == (200, 100, 50, 255))
        #expect(ramp.colour(.nan) == (0, 0, 255, 0))
        let named = try ColorRamp.parse("0 black\n100 white\n", path: "n.txt").resolved(min: 0, max: 1)
        #expect(named.colour(50) == (128, 128, 128, 255))
        #expect(named.colour(.nan) == (0, 0, 0, 0), "voids are transparent without nv")
    }

    @Test(arguments: [("100 0 0\n", 1), ("100 0 0 0\n200 300 0 0\n", 2), ("abc 1 2 3\n", 1), ("\n\n150% 1 2 3\n", 3), ("100 mauve\n", 1)])
    func aLineThatDoesNotParseIsNamed(_ text: String, _ line: Int) {
        #expect(throws: ColorRampError.self) { try ColorRamp.parse(text, path: "bad.txt") }
        do { _ = try ColorRamp.parse(text, path: "bad.txt") } catch {
            guard case let .badLine(path, l, _, _) = error else { Issue.record("\(error)"); return }
            #expect(path == "bad.txt" && l == line)
            #expect(error.description.hasPrefix("bad.txt:\(line): "))
        }
    }

    @Test func anEmptyRampIsAnError() {
        #expect(throws: ColorRampError.empty(path: "e.txt")) { try ColorRamp.parse("# nothing\n\n", path: "e.txt") }
        #expect(throws: ColorRampError.unreadable(path: "/nonexistent/ramp.txt")) { try ColorRamp.load(path: "/nonexistent/ramp.txt") }
    }
}
