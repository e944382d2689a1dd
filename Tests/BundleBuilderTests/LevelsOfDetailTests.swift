import Foundation
import Raster
import SourceReaders
import Testing
import TileGeometry
import TileStore
@testable import BundleBuilder
import TrailMapTestSupport

/// Levels of detail: layers with their own zooms, drawn in order, recorded in the bundle.
@Suite(.computeThreads) struct LevelsOfDetailTests {
    let dir = TemporaryDirectory()
    static let area = GeoBounds(west: -110, south: 36, east: -101, north: 42)
    static let inner = GeoBounds(west: -107, south: 38, east: -104, north: 40)

    /// A coarse series (the whole area, 90 px across) and a fine one (the same area, 720 px,
    /// other colours), as PNG + world file.
    func series() throws -> (coarse: String, fine: String) {
        let coarse = try TestSources.write(
            in: dir, name: "coarse", width: 90, height: 60, bounds: Self.area,
            color: TestSources.terrain)
        let fine = try TestSources.write(in: dir, name: "fine", width: 720, height: 480, bounds: Self.area) { c, r in
            (UInt8(40 + (c * 7) % 160), UInt8(200 - (r * 3) % 120), UInt8((c + r) % 256), 255)
        }
        return (coarse, fine)
    }

    /// A transparent overlay with opaque red lines, 6 px wide, every 16th column and row.
    func overlay(bounds: GeoBounds = area) throws -> String {
        try TestSources.write(in: dir, name: "trails", width: 720, height: 480, bounds: bounds) { c, r in
            c % 16 < 6 || r % 16 < 6 ? (220, 30, 20, 255) : (0, 0, 0, 0)
        }
    }

    func build(
        _ layers: [BuildLayer], min: Int, max: Int, out: String,
        configure: (inout BuildOptions) -> Void = { _ in }
    ) throws -> BundleReader {
        var o = BuildOptions(sources: [], name: "Levels", minZoom: min, maxZoom: max, output: dir.file(out))
        o.layers = layers
        o.threads = 2
        o.recordsLayers = true
        // Stored = computed, so that a layered build's tiles can be compared exactly with the
        // layers' own builds composited (compact rounding rounds the composite, not the parts).
        o.rounding = .nearest
        configure(&o)
        _ = try BundleBuilder(options: o).build()
        return try BundleReader(path: dir.file(out))
    }

    func tiles(_ reader: BundleReader, zoom: Int) throws -> [TileID: RGBAImage] {
        var raw = [(TileID, Data)]()
        try reader.forEachTile(zoom: zoom) { t, data in
            raw.append((t, data))
            return true
        }
        var out = [TileID: RGBAImage]()
        for (t, data) in raw { out[t] = try PNGDecoder.decode(data) }
        return out
    }

    @Test func eachZoomComesOnlyFromItsSeries() throws {
        let (coarse, fine) = try series()
        let both = try build(
            [
                BuildLayer(name: "coarse", sources: [coarse], zooms: 3...4),
                BuildLayer(name: "fine", sources: [fine], zooms: 5...6)
            ], min: 3, max: 6, out: "both.mbtiles")
        let low = try build([BuildLayer(name: "coarse", sources: [coarse])], min: 3, max: 4, out: "low.mbtiles")
        let high = try build([BuildLayer(name: "fine", sources: [fine])], min: 5, max: 6, out: "high.mbtiles")
        for z in 3...6 {
            let mine = try tiles(both, zoom: z)
            let alone = try tiles(z <= 4 ? low : high, zoom: z)
            #expect(!mine.isEmpty && Set(mine.keys) == Set(alone.keys), "zoom \(z): the same tiles")
            let differing = mine.filter { t, image in image != alone[t] }.map(\.key)
            #expect(differing.isEmpty, "zoom \(z): tiles \(differing) are not their series' own rendering")
        }
        // And not the other series': zoom 4 from the fine sheets differs.
        let fineAt4 = try build([BuildLayer(name: "fine", sources: [fine])], min: 4, max: 4, out: "fine4.mbtiles")
        let z4 = try tiles(both, zoom: 4), other = try tiles(fineAt4, zoom: 4)
        #expect(z4.contains { t, image in other[t].map { psnr($0, image) < 30 } ?? false })
    }

    @Test func anOverlayIsDrawnOverTheBaseAndNeverUnder() throws {
        let (coarse, _) = try series()
        let lines = try overlay()
        let layers = [
            BuildLayer(name: "base", sources: [coarse], zooms: 4...6),
            BuildLayer(name: "trails", kind: .overlay, sources: [lines], zooms: 5...6)
        ]
        let map = try build(layers, min: 4, max: 6, out: "map.mbtiles")
        let base = try build([layers[0]], min: 4, max: 6, out: "base.mbtiles")
        let trails = try build([BuildLayer(name: "trails", sources: [lines])], min: 5, max: 6, out: "trails.mbtiles")
        let base4 = try build([BuildLayer(name: "base", sources: [coarse])], min: 4, max: 4, out: "base4.mbtiles")
        let same4 = try tiles(map, zoom: 4) == tiles(base4, zoom: 4)
        #expect(same4, "zoom 4 has no overlay")
        var covered = 0, open = 0
        // Zoom 6, the band's top, is drawn from the sources: exactly the overlay over the base.
        // Zoom 5 is the mean of its children there (the base's and overlay's own means, composited,
        // differ from it by rounding only).
        for z in 5...6 {
            let mine = try tiles(map, zoom: z), under = try tiles(base, zoom: z), over = try tiles(trails, zoom: z)
            for (t, image) in mine {
                var expected = under[t]!
                if let top = over[t] { Compositing.draw(top, over: &expected) }
                if z == 5 {
                    let q = psnr(image, expected)
                    #expect(q > 40, "\(t): the overlay over the base, \(q) dB")
                    continue
                }
                let same = image == expected
                #expect(same, "\(t): the overlay composited over the base")
                guard let top = over[t] else { continue }
                for p in stride(from: 0, to: image.pixels.count, by: 4) {
                    if top.pixels[p + 3] == 255 {
                        covered += 1
                        let shows = image.pixels[p..<p + 4] == top.pixels[p..<p + 4]
                        #expect(shows, "\(t): a trail pixel shows the trail")
                        if !shows { return }
                    } else if top.pixels[p + 3] == 0 {
                        open += 1
                    }
                }
            }
        }
        #expect(covered > 1000 && open > 1000, "both trail and see-through pixels were checked")
    }

    @Test func aFinerSeriesCoversACoarserOneOnlyInsideItsFootprint() throws {
        let (coarse, _) = try series()
        let patch = try TestSources.write(in: dir, name: "patch", width: 480, height: 320, bounds: Self.inner) { _, _ in
            (10, 200, 30, 255)
        }
        let layers = [
            BuildLayer(name: "coarse", sources: [coarse], zooms: 3...8),
            BuildLayer(name: "fine", sources: [patch], zooms: 5...8)
        ]
        #expect(throws: BuildError.self, "overlapping series need allowOverlap") {
            try build(layers, min: 3, max: 8, out: "refused.mbtiles")
        }
        #expect(!FileManager.default.fileExists(atPath: dir.file("refused.mbtiles")))
        let map = try build(layers, min: 3, max: 8, out: "map.mbtiles") { $0.allowOverlap = true }
        let alone = try build([layers[0]], min: 3, max: 8, out: "coarse.mbtiles")
        let upper = try build([BuildLayer(name: "coarse", sources: [coarse])], min: 3, max: 4, out: "upper.mbtiles")
        let same4 = try tiles(map, zoom: 4) == tiles(upper, zoom: 4)
        #expect(same4, "below the fine series' zooms: the coarse one only")
        let inner = TileRange(bounds: Self.inner, zoom: 8)
        var inside = 0, outside = 0
        let aloneTop = try tiles(alone, zoom: 8)
        for (t, image) in try tiles(map, zoom: 8) {
            let b = t.geoBounds
            let fullyInside =
                b.west >= Self.inner.west && b.east <= Self.inner.east && b.south >= Self.inner.south
                && b.north <= Self.inner.north
            if fullyInside {
                inside += 1
                let green = stride(from: 0, to: image.pixels.count, by: 4).allSatisfy { image.pixels[$0..<$0 + 4] == [10, 200, 30, 255] }
                #expect(green, "\(t) inside the patch is the patch")
            } else if !inner.contains(t) {
                outside += 1
                let same = image == aloneTop[t]
                #expect(same, "\(t) outside the patch is the coarse series")
            }
        }
        #expect(inside > 0 && outside > 0)
    }

    @Test func theBundleRecordsItsLayers() throws {
        let (coarse, fine) = try series()
        let lines = try overlay()
        var layers = [
            BuildLayer(name: "relief", title: "Shaded relief", sources: [coarse], zooms: 3...4),
            BuildLayer(name: "imagery", title: "Imagery", sources: [fine], zooms: 5...6),
            BuildLayer(name: "trails", title: "Trails", kind: .overlay, sources: [lines], zooms: 4...6)
        ]
        layers[2].opacity = 0.5
        let reader = try build(layers, min: 3, max: 6, out: "rec.mbtiles")
        let recorded = BundleLayer.decode(metadata: try reader.metadataPairs())
        #expect(
            recorded == [
                BundleLayer(name: "relief", title: "Shaded relief", kind: .series, minzoom: 3, maxzoom: 4, sources: ["coarse.png"]),
                BundleLayer(name: "imagery", title: "Imagery", kind: .series, minzoom: 5, maxzoom: 6, sources: ["fine.png"]),
                BundleLayer(name: "trails", title: "Trails", kind: .overlay, minzoom: 4, maxzoom: 6, sources: ["trails.png"])
            ])
        #expect(BundleLayer.summary(recorded ?? []) == "Shaded relief, zooms 3–4; Imagery, zooms 5–6; Trails overlay, zooms 4–6")
        // Half opacity: a trail pixel is half the trail's red over the imagery.
        let plain = try build([layers[1]], min: 5, max: 6, out: "plain.mbtiles")
        let full = try build([layers[1], BuildLayer(name: "t", kind: .overlay, sources: [lines])], min: 5, max: 6, out: "full.mbtiles")
        let (a, b, c) = (try tiles(reader, zoom: 6), try tiles(plain, zoom: 6), try tiles(full, zoom: 6))
        var checked = 0
        for (t, image) in a {
            // Where the imagery is opaque (at its edge, the mean also weighs the alphas).
            for p in stride(from: 0, to: image.pixels.count, by: 4)
            where c[t]!.pixels[p] == 220 && b[t]!.pixels[p] != 220 && b[t]!.pixels[p + 3] == 255 {
                let expected = (Int(c[t]!.pixels[p]) + Int(b[t]!.pixels[p])) / 2
                #expect(abs(Int(image.pixels[p]) - expected) <= 1)
                checked += 1
            }
        }
        #expect(checked > 100)
        // A plain build records no layers.
        let single = try build([BuildLayer(name: "x", sources: [coarse])], min: 3, max: 3, out: "single.mbtiles") {
            $0.recordsLayers = false
        }
        #expect(try single.metadataPairs()[BundleLayer.metadataKey] == nil)
    }

    @Test func zoomBandsFollowTheLayers() {
        let layers = [
            BuildLayer(name: "a", sources: ["a"], zooms: 0...4), BuildLayer(name: "b", sources: ["b"], zooms: 5...9),
            BuildLayer(name: "t", kind: .overlay, sources: ["t"], zooms: 3...7), BuildLayer(name: "all", sources: ["x"])
        ]
        #expect(
            ZoomBand.bands(layers: layers, build: 0...9) == [
                ZoomBand(zooms: 0...2, layers: [0, 3]), ZoomBand(zooms: 3...4, layers: [0, 2, 3]),
                ZoomBand(zooms: 5...7, layers: [1, 2, 3]), ZoomBand(zooms: 8...9, layers: [1, 3])
            ])
        let gap = [BuildLayer(name: "a", sources: ["a"], zooms: 0...2), BuildLayer(name: "b", sources: ["b"], zooms: 5...6)]
        #expect(ZoomBand.bands(layers: gap, build: 0...6) == [ZoomBand(zooms: 0...2, layers: [0]), ZoomBand(zooms: 5...6, layers: [1])])
    }

    @Test func gapsAreRefusedUnlessAllowed() throws {
        let (coarse, fine) = try series()
        let layers = [BuildLayer(name: "coarse", sources: [coarse], zooms: 3...3), BuildLayer(name: "fine", sources: [fine], zooms: 5...5)]
        do {
            _ = try build(layers, min: 3, max: 5, out: "gap.mbtiles")
            Issue.record("a gap at zoom 4 was accepted")
        } catch {
            #expect("\(error)".contains("no layer serves zoom 4"), "\(error)")
        }
        #expect(!FileManager.default.fileExists(atPath: dir.file("gap.mbtiles")))
        let allowed = try build(layers, min: 3, max: 5, out: "allowed.mbtiles") { $0.allowGaps = true }
        #expect(try allowed.zoomLevels().map(\.zoom) == [3, 5])
    }

    @Test func aLayersOverridesApplyToItsSourcesOnly() throws {
        // A sheet with a black collar (nodata 0) and the coarse series under it.
        let (coarse, _) = try series()
        let sheet = try TestSources.write(in: dir, name: "sheet", width: 360, height: 240, bounds: Self.inner) { c, r in
            c < 40 || r < 30 ? (0, 0, 0, 255) : (UInt8(60 + c % 100), 120, UInt8(200 - r % 90), 255)
        }
        var top = BuildLayer(name: "sheet", sources: [sheet], zooms: 5...6)
        top.nodata = [0]
        top.resampling = .nearest
        let base = BuildLayer(name: "coarse", sources: [coarse], zooms: 5...6)
        let layered = try build([base, top], min: 5, max: 6, out: "layered.mbtiles") { $0.allowOverlap = true }
        // The same as a build whose every source has those settings, but for the base, which
        // keeps the build's own (average, no nodata): so compare the sheet's tiles built alone.
        let alone = try build([BuildLayer(name: "sheet", sources: [sheet])], min: 5, max: 6, out: "alone.mbtiles") {
            $0.read.nodata = [0]
            $0.resampling = .nearest
        }
        let plain = try build([BuildLayer(name: "sheet", sources: [sheet])], min: 6, max: 6, out: "plain.mbtiles")
        let mine = try tiles(layered, zoom: 6), sheetOnly = try tiles(alone, zoom: 6), noOverride = try tiles(plain, zoom: 6)
        let under = try tiles(build([BuildLayer(name: "coarse", sources: [coarse])], min: 6, max: 6, out: "under.mbtiles"), zoom: 6)
        var collarPixels = 0
        for (t, image) in mine {
            var expected = under[t]!
            if let s = sheetOnly[t] { Compositing.draw(s, over: &expected) }
            let same = image == expected
            #expect(same, "\(t): the sheet drawn with its own nodata and resampling over the base")
            // Without the override the collar is opaque black.
            if let n = noOverride[t] {
                collarPixels +=
                    stride(from: 0, to: n.pixels.count, by: 4).filter {
                        n.pixels[$0..<$0 + 4] == [0, 0, 0, 255] && image.pixels[$0..<$0 + 3] != [0, 0, 0]
                    }.count
            }
        }
        #expect(collarPixels > 100, "the nodata override made the collar transparent (\(collarPixels) px)")
    }
}
