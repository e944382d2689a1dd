import Foundation
import Testing
import TrailMapTestSupport

@testable import SourceReaders

/// `DEMWindow.bilinear` (GDAL's masked bilinear kernel, with a shortcut for four valid pixels
/// inside the raster) against the kernel written out plainly, on random elevations with voids.
@Suite(.computeThreads) struct DEMWindowTests {
    /// GDAL's masked bilinear kernel as its warper states it: void on a void pixel; else the four
    /// pixel centres around the position weighted by distance, voids and pixels past the
    /// raster's edge left out and the others' weights renormalised.
    static func plain(_ v: [Float], width: Int, height: Int, x: Double, y: Double) -> Float {
        if v[Int(y + 1e-10) * width + Int(x + 1e-10)].isNaN { return .nan }
        var ix = Int(floor(x - 0.5)), iy = Int(floor(y - 0.5))
        var rx = 1.5 - (x - Double(ix)), ry = 1.5 - (y - Double(iy))
        if ix == -1 { ix = 0; rx = 1 }
        if iy == -1 { iy = 0; ry = 1 }
        var sum = 0.0, weight = 0.0
        for (dx, dy, w) in [(0, 0, rx * ry), (1, 0, (1 - rx) * ry), (0, 1, rx * (1 - ry)), (1, 1, (1 - rx) * (1 - ry))] {
            let px = ix + dx, py = iy + dy
            guard px < width, py < height, !v[py * width + px].isNaN else { continue }
            sum += Double(v[py * width + px]) * w
            weight += w
        }
        if weight == 1 { return Float(sum) }
        if weight < 0.00001 { return .nan }
        return Float(sum / weight)
    }

    @Test func itIsTheKernelWrittenOutPlainly() {
        var rng = SystemRandomNumberGenerator()
        let width = 37, height = 29
        // Elevations from -50 to 4000 m, one pixel in twenty void.
        let values = (0..<(width * height)).map { _ -> Float in
            Int.random(in: 0..<20, using: &rng) == 0 ? .nan : Float.random(in: -50...4000, using: &rng)
        }
        // Random positions, and positions on pixel centres and edges (where the floor turns).
        var points = (0..<20000).map { _ in
            (Double.random(in: 0..<Double(width), using: &rng), Double.random(in: 0..<Double(height), using: &rng))
        }
        for py in 0..<(2 * height) {
            for px in 0..<(2 * width) { points.append((Double(px) / 2, Double(py) / 2)) }
        }
        points += [(0.5.nextDown, 0.5.nextDown), (0.5, 0.5.nextUp), (Double(width) - 0.01, Double(height) - 0.01)]
        // The warper's test for a position inside the raster (the caller's).
        points.removeAll { Int($0.0 + 1e-10) >= width || Int($0.1 + 1e-10) >= height }
        var compared = 0, voids = 0
        values.withUnsafeBufferPointer { v in
            let window = DEMWindow(values: v.baseAddress!, x0: 0, y0: 0, width: width, rasterWidth: width, rasterHeight: height)
            for (x, y) in points {
                let ours = window.bilinear(x: x, y: y), theirs = Self.plain(values, width: width, height: height, x: x, y: y)
                #expect(ours.isNaN == theirs.isNaN && (ours.isNaN || ours == theirs), "at \(x), \(y): \(ours), expected \(theirs)")
                if theirs.isNaN { voids += 1 } else { compared += 1 }
            }
        }
        #expect(compared > 15000 && voids > 400, "\(compared) compared, \(voids) voids")
    }

    @Test func itFloorsHalfAPixelBelow() {
        var rng = SystemRandomNumberGenerator()
        let cases = [0, 0.5.nextDown, 0.5, 0.5.nextUp, 1, 1.5.nextDown, 1.5, 12345.5, 12345.5.nextDown]
        for v in cases + (0..<10000).map({ _ in Double.random(in: 0..<100_000, using: &rng) }) {
            #expect(DEMWindow.floorHalfBelow(v) == Int(floor(v - 0.5)), "\(v)")
        }
    }
}
