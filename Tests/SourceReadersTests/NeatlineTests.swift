import Foundation
import Testing
import TrailMapTestSupport
@testable import SourceReaders

/// The neatline polygon: read from WKT, and cut into RGBA windows row by row the same as a
/// point-in-polygon test says, at full resolution and on overview levels.
@Suite(.computeThreads) struct NeatlineTests {
    /// A quadrilateral turned a little, as a lat/lon quad's neatline lies on a UTM sheet.
    static let quad = "POLYGON ((12.5 3.2, 88.7 9.9, 80.1 71.4, 5.3 64.0, 12.5 3.2))"

    static func reading(_ wkt: String = quad, width: Int = 100, height: Int = 80) throws -> Neatline.Reading {
        // A geotransform of 1:1 pixels, y down, so CRS coordinates are pixel/line positions.
        let locator = try PixelGeolocator(.affine(GeoTransform(c0: 0, c1: 1, c2: 0, c3: 0, c4: 0, c5: 1)), path: "test")
        return Neatline.read(wkt: wkt, locator: locator, affine: true, width: width, height: height)
    }

    static func neatline(_ wkt: String = quad, width: Int = 100, height: Int = 80) throws -> Neatline? {
        if case let .cuts(n) = try reading(wkt, width: width, height: height) { return n }
        return nil
    }

    @Test func readsTheOuterRingOfAPolygon() throws {
        let r = try #require(Neatline.ring("POLYGON ((1 2,3 4, 5 6,1 2), (9 9, 9 8, 8 8, 9 9))"))
        #expect(r.xs == [1, 3, 5] && r.ys == [2, 4, 6], "closing vertex dropped, hole ignored")
        #expect(Neatline.ring("MULTIPOLYGON (((1 2,3 4,5 6,1 2)))") == nil)
        #expect(Neatline.ring("POLYGON ((1 2,x 4,5 6))") == nil)
        #expect(Neatline.ring("POLYGON ((1 x 2,3 4,5 6))") == nil, "every token a number")
        #expect(Neatline.ring("") == nil)
        let spaced = try #require(Neatline.ring("polygon z ( (1 2 0,\r\n3 4 0, 5 6 0) )"))
        #expect(spaced.xs == [1, 3, 5] && spaced.ys == [2, 4, 6])
    }

    @Test func clipsWhatLiesOutsideAndNothingElse() throws {
        let n = try #require(try Self.neatline())
        var pixels = [UInt8](repeating: 255, count: 100 * 80 * 4)
        pixels.withUnsafeMutableBufferPointer { n.clip($0.baseAddress!, x0: 0, y0: 0, width: 100, height: 80) }
        var cut = 0
        for y in 0..<80 {
            for x in 0..<100 {
                let inside = n.contains(x: Double(x) + 0.5, y: Double(y) + 0.5)
                #expect(pixels[(y * 100 + x) * 4 + 3] == (inside ? 255 : 0), "pixel \(x),\(y)")
                if !inside { cut += 1 }
                #expect(pixels[(y * 100 + x) * 4] == 255, "colour untouched")
            }
        }
        #expect(cut > 1000 && cut < 4000, "\(cut) of 8,000 pixels lie in the collar")
        // A window of an overview at half resolution: its pixel (i, j) is full-resolution (2i+1, 2j+1).
        var half = [UInt8](repeating: 255, count: 20 * 10 * 4)
        half.withUnsafeMutableBufferPointer { n.clip($0.baseAddress!, x0: 30, y0: 30, width: 20, height: 10, scaleX: 2, scaleY: 2) }
        for j in 0..<10 {
            for i in 0..<20 {
                let inside = n.contains(x: Double(30 + i) * 2 + 1, y: Double(30 + j) * 2 + 1)
                #expect(half[(j * 20 + i) * 4 + 3] == (inside ? 255 : 0))
            }
        }
    }

    @Test func aNeatlineAroundTheWholeRasterCutsNothing() throws {
        #expect(try Self.neatline("POLYGON ((0 0, 100 0, 100 80, 0 80, 0 0))") == nil)
        #expect(try Self.neatline("POLYGON ((-5 -5, 105 -5, 105 85, -5 85, -5 -5))") == nil)
        #expect(try Self.neatline("POLYGON ((0 0, 100 0, 100 80, 0 80, 50 40, 0 0))") != nil, "a notch inside cuts")
        #expect(try Self.neatline("POINT (1 2)") == nil)
        // A slit through the middle from the right, every vertex off the raster: it cuts.
        #expect(try Self.neatline("POLYGON ((-5 -5, 105 -5, 105 39, -3 39, -3 41, 105 41, 105 85, -5 85, -5 -5))") != nil)
    }

    /// The window a neatline leaves drawn holds every pixel drawn at full resolution and on
    /// coarser levels, and not much more: the source's footprint is taken from it.
    @Test func theDrawnWindowHoldsEveryDrawnPixel() throws {
        let n = try #require(try Self.neatline())
        for scale in [1, 2, 4, 8] {
            let w = n.drawnWindow(width: 100, height: 80, coarsest: (Double(scale), Double(scale)))
            // The ring's box is x 5.3...88.7, y 3.2...71.4.
            let g = Double(scale) / 2 + 2
            #expect(
                Double(w.x0) >= 5.3 - g && Double(w.x1) <= 88.7 + g && Double(w.y0) >= 3.2 - g && Double(w.y1) <= 71.4 + g,
                "\(w) is near the ring's box at scale \(scale)")
            for j in 0..<(80 / scale) {
                for i in 0..<(100 / scale) where n.contains(x: (Double(i) + 0.5) * Double(scale), y: (Double(j) + 0.5) * Double(scale)) {
                    #expect(
                        i * scale >= w.x0 && (i + 1) * scale <= w.x1 && j * scale >= w.y0 && (j + 1) * scale <= w.y1,
                        "level pixel \(i),\(j) at scale \(scale) lies outside \(w)")
                }
            }
        }
        let clamped = n.drawnWindow(width: 100, height: 80, coarsest: (64, 64))
        #expect(clamped == (0, 0, 100, 80), "within the raster")
    }

    /// A neatline in another georeference's coordinates (gdalwarp copies a PDF's metadata into a
    /// raster of another CRS) lies off the raster: it is not applied.
    @Test func aNeatlineOffTheRasterIsNotApplied() throws {
        guard case .offTheRaster = try Self.reading("POLYGON ((400000 4400000, 410000 4400000, 410000 4390000, 400000 4400000))") else {
            Issue.record("a ring thousands of pixels away was taken")
            return
        }
        guard case .offTheRaster = try Self.reading("POLYGON ((50 40, 300 40, 300 300, 50 300, 50 40))") else {
            Issue.record("a ring mostly off the raster was taken")
            return
        }
    }

    /// With control points the ring's edges are followed through the fit, not drawn straight
    /// between its vertices: here pixel x = X + 0.002 Y², so the left edge X = 10 bows to x = 13.2
    /// at Y = 40 where the chord between its ends passes x = 15.
    @Test func edgesFollowANonAffineGeoreference() throws {
        var points = [GroundControlPoint]()
        for X in stride(from: 0.0, through: 100, by: 25) {
            for Y in stride(from: 0.0, through: 80, by: 20) {
                points.append(GroundControlPoint(pixel: X + 0.002 * Y * Y, line: Y, x: X, y: Y))
            }
        }
        let locator = try PixelGeolocator(.groundControlPoints(points, .order2), path: "test")
        let wkt = "POLYGON ((10 10, 90 10, 90 70, 10 70, 10 10))"
        guard case let .cuts(n) = Neatline.read(wkt: wkt, locator: locator, affine: false, width: 100, height: 80) else {
            Issue.record("the ring cuts")
            return
        }
        #expect(n.contains(x: 14, y: 40), "right of the bowed edge, left of the chord")
        #expect(!n.contains(x: 12.5, y: 40))
    }
}
