import Foundation
import Testing
import TileGeometry
@testable import Raster
import TrailMapTestSupport

@Suite(.computeThreads) struct TileRendererTests {
    let dir = TrailMapTestSupport.TemporaryDirectory()

    func source(
        _ name: String, width: Int, height: Int, bounds: GeoBounds, budget: Int = 1 << 30,
        color: (Int, Int) -> (UInt8, UInt8, UInt8, UInt8)
    ) throws -> GeoreferencedSource {
        let png = try TestSources.write(in: dir, name: name, width: width, height: height, bounds: bounds, color: color)
        let pyramid = try SourcePyramid(reader: try PNGRowReader(path: png), memoryBudget: budget, spillDirectory: dir.path)
        let g = try SidecarLocator.locate(image: png, width: width, height: height, worldFileCRS: .epsg4326)
        return GeoreferencedSource(pyramid: pyramid, georeference: g)
    }

    /// The RGBA of a tile pixel holding (lon, lat).
    func pixel(_ image: RGBAImage, tile: TileID, lon: Double, lat: Double) -> [UInt8] {
        let b = tile.mercatorBounds
        let (x, y) = WebMercator.project(lon: lon, lat: lat)
        let i = Int((x - b.minX) / (b.maxX - b.minX) * Double(image.width))
        let j = Int((b.maxY - y) / (b.maxY - b.minY) * Double(image.height))
        let p = (j * image.width + i) * 4
        return Array(image.pixels[p..<(p + 4)])
    }

    @Test func buildsOverviewsByAlphaWeightedAveraging() throws {
        // Left column red opaque, right column transparent: the overview keeps pure red at half alpha.
        let s = try source("ov", width: 2, height: 2, bounds: GeoBounds(west: 0, south: 0, east: 2, north: 2)) { c, _ in
            c == 0 ? (255, 0, 0, 255) : (0, 255, 0, 0)
        }
        #expect(s.pyramid.levels.map(\.width) == [2, 1])
        var buffer = [UInt8]()
        s.pyramid.readWindow(level: 1, x0: 0, y0: 0, w: 1, h: 1, into: &buffer)
        #expect(Array(buffer.prefix(4)) == [255, 0, 0, 128])
    }

    @Test(arguments: Resampling.allCases)
    func placesQuadrantsWhereTheyBelong(method: Resampling) throws {
        let bounds = GeoBounds(west: -20, south: -20, east: 20, north: 20)
        let s = try source("quad", width: 64, height: 64, bounds: bounds) { c, r in
            (c < 32 ? 200 : 20, r < 32 ? 200 : 20, 50, 255)
        }
        let renderer = TileRenderer(resampling: method)
        var scratch = TileRenderer.Scratch()
        let tile = TileID(z: 2, x: 1, y: 1)! // holds 0..90 W, 0..66 N
        let image = try #require(renderer.render(tile, sources: [s], scratch: &scratch))
        #expect(pixel(image, tile: tile, lon: -10, lat: 10) == [200, 200, 50, 255])
        #expect(pixel(image, tile: tile, lon: -30, lat: 10) == [0, 0, 0, 0], "outside the source is transparent")
        let tile2 = TileID(z: 2, x: 2, y: 2)! // 0..90 E, 0..66 S
        let image2 = try #require(renderer.render(tile2, sources: [s], scratch: &scratch))
        #expect(pixel(image2, tile: tile2, lon: 10, lat: -10) == [20, 20, 50, 255])
        #expect(renderer.render(TileID(z: 2, x: 0, y: 0)!, sources: [s], scratch: &scratch) == nil)
    }

    @Test func transparentPixelsNeverCoverOthers() throws {
        let bounds = GeoBounds(west: 0, south: 0, east: 10, north: 10)
        let below = try source("below", width: 16, height: 16, bounds: bounds) { _, _ in (10, 100, 200, 255) }
        let above = try source("above", width: 16, height: 16, bounds: bounds) { c, _ in c < 8 ? (250, 0, 0, 255) : (0, 0, 0, 0) }
        var scratch = TileRenderer.Scratch()
        let tile = WebMercator.tile(lon: 5, lat: 5, zoom: 5)
        let image = try #require(TileRenderer(resampling: .nearest).render(tile, sources: [below, above], scratch: &scratch))
        #expect(pixel(image, tile: tile, lon: 2, lat: 5) == [250, 0, 0, 255])
        #expect(pixel(image, tile: tile, lon: 8, lat: 5) == [10, 100, 200, 255])
    }

    @Test func spilledPixelsRenderLikeInMemoryOnes() throws {
        let bounds = GeoBounds(west: -5, south: -5, east: 5, north: 5)
        let memory = try source("m", width: 300, height: 200, bounds: bounds, color: TestSources.terrain)
        let spilled = try source("s", width: 300, height: 200, bounds: bounds, budget: 0, color: TestSources.terrain)
        #expect(!memory.pyramid.isFileBacked && spilled.pyramid.isFileBacked)
        var scratch = TileRenderer.Scratch()
        for z in [3, 6, 8] {
            let tile = WebMercator.tile(lon: 1, lat: 1, zoom: z)
            let a = TileRenderer(resampling: .average).render(tile, sources: [memory], scratch: &scratch)
            let b = TileRenderer(resampling: .average).render(tile, sources: [spilled], scratch: &scratch)
            #expect(a != nil && a == b)
        }
        #expect(!dir.contents.contains { $0.contains("trailmap-pixels") }, "the spill file is unlinked")
    }

    @Test func compositesPartialAlpha() {
        var bottom = RGBAImage(width: 1, height: 1, fill: (0, 0, 255, 255))
        Compositing.draw(RGBAImage(width: 1, height: 1, fill: (255, 0, 0, 128)), over: &bottom)
        #expect(bottom.pixels == [128, 0, 127, 255])
        var clear = RGBAImage(width: 1, height: 1)
        Compositing.draw(RGBAImage(width: 1, height: 1, fill: (9, 9, 9, 0)), over: &clear)
        #expect(clear.pixels == [0, 0, 0, 0])
    }

    @Test func joinedSheetsCoverageAddsUp() {
        // 60% and 40% of one pixel, each sheet's part: covered, each colour by its share.
        var bottom = RGBAImage(width: 1, height: 1, fill: (0, 0, 255, 102))
        Compositing.join(RGBAImage(width: 1, height: 1, fill: (255, 0, 0, 153)), onto: &bottom)
        #expect(bottom.pixels == [153, 0, 102, 255])
        // Where the bottom is opaque it is "over"; an opaque top wins; a transparent one changes nothing.
        var opaque = RGBAImage(width: 1, height: 1, fill: (0, 0, 255, 255))
        Compositing.join(RGBAImage(width: 1, height: 1, fill: (255, 0, 0, 128)), onto: &opaque)
        #expect(opaque.pixels == [128, 0, 127, 255])
        Compositing.join(RGBAImage(width: 1, height: 1, fill: (1, 2, 3, 255)), onto: &opaque)
        #expect(opaque.pixels == [1, 2, 3, 255])
        Compositing.join(RGBAImage(width: 1, height: 1, fill: (9, 9, 9, 0)), onto: &opaque)
        #expect(opaque.pixels == [1, 2, 3, 255])
        // Two thin slivers of a pixel stay partly covered.
        var thin = RGBAImage(width: 1, height: 1, fill: (0, 0, 200, 50))
        Compositing.join(RGBAImage(width: 1, height: 1, fill: (200, 0, 0, 50)), onto: &thin)
        #expect(thin.pixels == [100, 0, 100, 100])
        // Four sheets meeting at a pixel, each covering a quarter rounded to 1/255: 63 + 64 + 63
        // + 64 = 254, which is the whole pixel.
        var corner = RGBAImage(width: 1, height: 1, fill: (100, 100, 100, 63))
        for a in [64, 63, 64] as [UInt8] { Compositing.join(RGBAImage(width: 1, height: 1, fill: (100, 100, 100, a)), onto: &corner) }
        #expect(corner.pixels == [100, 100, 100, 255])
        // Two edges of the mosaic's outline that only come near a whole stay partial.
        var outline = RGBAImage(width: 1, height: 1, fill: (100, 100, 100, 120))
        Compositing.join(RGBAImage(width: 1, height: 1, fill: (100, 100, 100, 120)), onto: &outline)
        #expect(outline.pixels[3] == 240)
    }
}

/// The point samples of `average` for palette sources.
@Suite(.computeThreads) struct SupersamplingTests {
    func weights(_ lo: Double, _ hi: Double) -> [Float] {
        let first = Int(lo.rounded(.down)), last = Int(hi.rounded(.up)) - 1
        var w = [Float](repeating: -1, count: last - first + 1)
        Supersampling.weights(lo: lo, hi: hi, first: first, last: last, into: &w)
        return w
    }

    @Test func samplesFallInThePixelsTheyLieIn() {
        // A footprint 1.2 pixels wide from 0.7: samples at 0.85, 1.15, 1.45, 1.75 → one in pixel
        // 0, three in pixel 1; each sample weighs a quarter of the width.
        let w0 = weights(0.7, 1.9)
        #expect(w0.count == 2 && abs(w0[0] - 0.3) < 1e-5 && abs(w0[1] - 0.9) < 1e-5, "\(w0)")
        // Wider footprints take at least two samples a pixel: 8 over 3.5 pixels.
        let w = weights(2.0, 5.5)
        #expect(Supersampling.count(width: 3.5) == 8)
        #expect(w.count == 4 && abs(w.reduce(0, +) - 3.5) < 1e-5 && w.allSatisfy { $0 > 0 })
        // Every weight is a whole number of samples, unlike the exact overlaps.
        for lo in stride(from: 0.0, to: 1.0, by: 0.07) {
            let ws = weights(lo, lo + 1.3), step = Float(1.3 / 4)
            #expect(abs(ws.reduce(0, +) - 1.3) < 1e-5)
            #expect(ws.allSatisfy { abs(($0 / step).rounded() * step - $0) < 1e-5 }, "\(lo): \(ws)")
        }
    }
}
