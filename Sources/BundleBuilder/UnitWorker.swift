import Foundation
import Raster
import SourceReaders
import TileGeometry
import TileStore

/// What one rendering thread does: it takes runs of units (`UnitSpans`) and, for each, walks the
/// unit's subtree depth first, rendering top-zoom tiles from the sources and making each lower
/// tile the 2×2 mean of its children; children whose footprint no source touches are skipped
/// without reading anything. Each tile made is encoded and queued for the writer; after a unit's
/// tiles, the unit is queued as finished with its root losslessly encoded, and the root is given
/// to the levels above the unit zoom. Its sources' layers and scratch memory are its own.
final class UnitWorker {
    private let run: BandRun
    private let sources: [PreparedSource]
    private let renderers: [Resampling: TileRenderer]
    /// The band's index in the build (recorded with its units).
    private let bandIndex: Int
    private var scratch = TileRenderer.Scratch()
    private let layers: LayerCache

    init(run: BandRun, sources: [PreparedSource], renderers: [Resampling: TileRenderer], bandIndex: Int, openSources: Int) {
        self.run = run
        self.sources = sources
        self.renderers = renderers
        self.bandIndex = bandIndex
        layers = LayerCache(sources: sources, capacity: openSources)
    }

    /// How unit roots are recorded: PNG, the fastest level (lossless: the upper levels made from a
    /// recorded root are the ones made from the rendered image).
    static let rootEncoding = TileEncoding(png: PNGEncodingOptions(deflater: .libdeflate, compressionLevel: 1, effort: .fast))

    /// Renders the units `spans` hands thread `thread` until none is left or the queue is
    /// cancelled; an error cancels the rendering (`BandRun.fail`).
    func work(thread: Int, spans: UnitSpans, units: [TileID]) {
        var mine = 0..<0
        while !run.queue.isCancelled {
            if mine.isEmpty {
                guard let taken = spans.take(thread: thread) else { break }
                mine = taken
            }
            do throws(BuildError) {
                try render(unit: units[mine.removeFirst()])
            } catch {
                run.fail(error)
                return
            }
        }
    }

    /// Renders `unit`'s subtree, queues it as finished with its root, and gives the root to the
    /// levels above.
    private func render(unit: TileID) throws(BuildError) {
        let ub = unit.mercatorBounds
        let candidates = sources.indices.filter { sources[$0].touches(ub) }
        var finished = FinishedTile.image(nil)
        if candidates.isEmpty {
            run.countSubtree(unit)
        } else {
            finished = try visit(unit, candidates)
        }
        var root: [UInt8]?
        if let image = try run.pixels(finished) {
            do throws(TileCodecError) { root = try Self.rootEncoding.encode(image) } catch { throw .encode(tile: unit, error) }
        }
        guard run.queue.push(.unitDone(BuildUnitRecord(unit: BuildUnit(band: bandIndex, tile: unit), root: root))) else {
            throw .cancelled
        }
        if let upper = run.upper {
            try upper.add(unit, finished, emit: run.emit)
            run.count(upper.takeProduced())
        }
    }

    /// Makes `t` and the tiles below it that `candidates` (sources touching `t`) touch, queueing
    /// each; an update's unchanged tile is kept with its subtree instead.
    private func visit(_ t: TileID, _ candidates: [Int]) throws(BuildError) -> FinishedTile {
        if let update = run.update, update.isUnchanged(t) {
            guard run.queue.push(.keep(t, subtree: true)) else { throw .cancelled }
            run.countSubtree(t)
            return .kept(t)
        }
        var image: RGBAImage?
        if t.z == run.band.zooms.upperBound {
            image = try drawTop(t, candidates)
        } else {
            image = try mean(t, candidates)
        }
        if let image { try run.emit(t, .made(image)) }
        image?.roundingAlternates = nil // encoded: the level above needs only the pixels
        run.count(1)
        run.update?.countRendered(1)
        return .image(image)
    }

    /// A top-zoom tile from the sources: each layer's sheets joined into one image (coverage adds
    /// up along their shared edges), then the layers drawn over one another with their opacity.
    /// Nil when nothing is drawn or all of it is transparent.
    private func drawTop(_ t: TileID, _ candidates: [Int]) throws(BuildError) -> RGBAImage? {
        let tb = t.mercatorBounds
        var image: RGBAImage?
        var sheets: (image: RGBAImage, style: LayerStyle)?
        func drawLayer() {
            guard let (layerImage, style) = sheets else { return }
            if image == nil {
                image = layerImage
                if style.opacity < 1 { Compositing.fade(&image!, opacity: style.opacity) }
            } else {
                Compositing.draw(layerImage, over: &image!, opacity: style.opacity)
            }
            sheets = nil
        }
        for i in candidates where sources[i].touches(tb) {
            let layer = try layers.layer(i)
            let style = sources[i].style
            let drawn: RGBAImage?
            do { drawn = try renderers[style.resampling]!.render(t, layer: layer, scratch: &scratch) } catch let error as SourceReaderError
            { throw .source(error) } // names its file
            catch {
                throw .pixels(path: sources[i].path, reason: "\(error)")
            }
            guard let drawn else { continue }
            if sheets?.style.layer != style.layer { drawLayer() }
            if sheets == nil { sheets = (drawn, style) } else { Compositing.join(drawn, onto: &sheets!.image) }
        }
        drawLayer()
        if image?.isFullyTransparent == true { image = nil }
        return image
    }

    /// A tile below the top zoom: the 2×2 mean of its children inside the band's ranges, each
    /// visited with the sources touching it (a child no source touches is skipped).
    private func mean(_ t: TileID, _ candidates: [Int]) throws(BuildError) -> RGBAImage? {
        let ranges = run.band.ranges, minZ = run.band.zooms.lowerBound
        var children: [FinishedTile] = [.image(nil), .image(nil), .image(nil), .image(nil)]
        for (k, c) in t.children.enumerated() where ranges[c.z - minZ].contains(c) {
            let cb = c.mercatorBounds
            let inside = candidates.filter { sources[$0].touches(cb) }
            if inside.isEmpty {
                run.countSubtree(c)
                continue
            }
            children[k] = try visit(c, inside)
        }
        var images = [RGBAImage?]()
        for child in children { images.append(try run.pixels(child)) }
        return TileDownsampler.parent(of: images, tileSize: run.encoder.tileSize)
    }
}
