import Foundation
import Terrain
import Testing

/// Horn's hillshade on grids whose slope and aspect are known exactly, against the textbook
/// shade `cos(zenith)·cos(slope) + sin(zenith)·sin(slope)·cos(azimuth − aspect)` (gdaldem's 1–255 scale).
@Suite struct HillshadeTests {
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
}
