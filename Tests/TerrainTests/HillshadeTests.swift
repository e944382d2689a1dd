import Foundation
import Terrain
import Testing
import TrailMapTestSupport

/// Horn's hillshade on grids whose slope and aspect are known exactly, against the textbook
/// shade `cos(zenith)·cos(slope) + sin(zenith)·sin(slope)·cos(azimuth − aspect)` (gdaldem's 1–255 scale).
@Suite(.computeThreads) struct HillshadeTests {
    /// A plane rising `rise` metres a metre towards `towards` (degrees clockwise from north) on
    /// a grid of `ground`-metre pixels.
    static func plane(rise: Double, towards: Double, ground: Double, size: Int = 16) -> ElevationGrid {
        let a = towards * .pi / 180
        var g = ElevationGrid(size: size, border: 1)
        for r in 0..<(size + 2) {
            for c in 0..<(size + 2) {
                let east = Double(c) * ground, north = -Double(r) * ground
                g.values[r * (size + 2) + c] = Float(500 + rise * (east * sin(a) + north * cos(a)))
            }
        }
        return g
    }

    static func textbook(slope: Double, aspect: Double, azimuth: Double = 315, altitude: Double = 45) -> Double {
        let rad = Double.pi / 180, zenith = (90 - altitude) * rad, s = atan(slope)
        return 1 + 254 * max(0, cos(zenith) * cos(s) + sin(zenith) * sin(s) * cos((azimuth - aspect) * rad))
    }

    @Test(arguments: [(0.2, 90.0), (0.5, 0.0), (1.0, 225.0), (0.1, 300.0)])
    func aPlaneHasTheTextbookShade(_ rise: Double, _ towards: Double) {
        for ground in [10.0, 58.6] {
            let grid = Self.plane(rise: rise, towards: towards, ground: ground)
            let shade = Hillshade.shade(grid, options: HillshadeOptions(), groundPixelSize: { _ in ground })
            // The slope faces away from where it rises.
            let expected = Self.textbook(slope: rise, aspect: (towards + 180).truncatingRemainder(dividingBy: 360))
            for v in shade { #expect(abs(Double(v) - expected) <= 0.51, "rise \(rise) towards \(towards): \(v), expected \(expected)") }
        }
    }

    @Test func flatGroundIsLitByTheAltitudeAlone() {
        var grid = ElevationGrid(size: 8, border: 1)
        for i in grid.values.indices { grid.values[i] = 1234 }
        for mode in HillshadeOptions.Mode.allCases {
            let shade = Hillshade.shade(grid, options: HillshadeOptions(altitude: 30, mode: mode), groundPixelSize: { _ in 30 })
            let expected = mode == .combined ? 255.0 : 1 + 254 * sin(30 * Double.pi / 180)
            #expect(shade.allSatisfy { abs(Double($0) - expected) <= 0.51 }, "\(mode): \(shade[0]), expected \(expected)")
        }
    }

    @Test func voidsStayVoidAndTheirNeighboursAreShaded() {
        var grid = Self.plane(rise: 0.3, towards: 45, ground: 20, size: 8)
        grid.values[(3 + 1) * 10 + 3 + 1] = .nan
        let shade = Hillshade.shade(grid, options: HillshadeOptions(), groundPixelSize: { _ in 20 })
        #expect(shade[3 * 8 + 3] == 0)
        #expect(shade.enumerated().allSatisfy { $0.offset == 27 || $0.element > 0 })
    }

    /// gdaldem's single-light shade written out plainly: Horn's slopes (a void neighbour taken as
    /// the pixel), `cos` of the angle to the light, 1–255 rounded; 0 on a void.
    static func plainShade(_ g: ElevationGrid, x: Int, y: Int, ground: Double, azimuth: Double, altitude: Double) -> UInt8 {
        let centre = g.value(x: x, y: y)
        if centre.isNaN { return 0 }
        func z(_ dx: Int, _ dy: Int) -> Double {
            let v = g.value(x: x + dx, y: y + dy)
            return Double(v.isNaN ? centre : v)
        }
        let eastward = ((z(1, -1) + 2 * z(1, 0) + z(1, 1)) - (z(-1, -1) + 2 * z(-1, 0) + z(-1, 1))) / (8 * ground)
        let northward = ((z(-1, -1) + 2 * z(0, -1) + z(1, -1)) - (z(-1, 1) + 2 * z(0, 1) + z(1, 1))) / (8 * ground)
        let rad = Double.pi / 180, az = azimuth * rad, alt = altitude * rad
        // gdaldem's terms: x the negated eastward slope, y the northward one (its rows run south).
        let dx = -eastward, dy = northward
        let c = (sin(alt) - (dy * cos(az) * cos(alt) - dx * sin(az) * cos(alt))) / (1 + dx * dx + dy * dy).squareRoot()
        return UInt8(min(255, c <= 0 ? 1 : 1 + 254 * c).rounded())
    }

    /// Random ground with voids (single voids and runs of them): every shade is the plain
    /// formula's, within its rounding (a difference of one where a shade falls on the half).
    @Test(arguments: [256, 13])
    func randomGroundHasThePlainFormulasShade(_ size: Int) {
        var rng = SystemRandomNumberGenerator()
        var grid = ElevationGrid(size: size, border: 1)
        for i in grid.values.indices { grid.values[i] = Float.random(in: 1500...1560, using: &rng) }
        for _ in 0..<(size * size / 50) { grid.values[Int.random(in: 0..<grid.values.count, using: &rng)] = .nan }
        let run = Int.random(in: 0..<(grid.values.count - 40), using: &rng)
        for i in run..<(run + 40) { grid.values[i] = .nan }
        for (azimuth, altitude) in [(315.0, 45.0), (100.0, 30.0)] {
            let shade = Hillshade.shade(
                grid, options: HillshadeOptions(azimuth: azimuth, altitude: altitude), groundPixelSize: { 9 + Double($0) / 100 })
            var off = 0
            for y in 0..<size {
                for x in 0..<size {
                    let plain = Self.plainShade(grid, x: x, y: y, ground: 9 + Double(y) / 100, azimuth: azimuth, altitude: altitude)
                    let ours = shade[y * size + x]
                    #expect((ours == 0) == (plain == 0) && abs(Int(ours) - Int(plain)) <= 1, "(\(x), \(y)): \(ours), plain \(plain)")
                    if ours != plain { off += 1 }
                }
            }
            #expect(off <= size * size / 100, "\(off) shades off by one")
            #expect(Set(shade).count > 100 || size < 100, "the ground's shades are varied")
        }
    }
}
