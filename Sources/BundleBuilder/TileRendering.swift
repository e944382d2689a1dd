import Foundation
import Raster
import SourceReaders
import Synchronization
import TileGeometry
import TileStore

/// The parallel part of a build, one zoom band at a time. The tile set is cut into subtrees
/// ("units", `BuildUnits`) at a zoom a few levels above the top one, taken in Morton order so that
/// neighbours render close together in time. Within a unit, a depth-first walk renders top-zoom
/// tiles from the sources and makes each lower tile the 2×2 mean of its children; children whose
/// footprint no source touches are skipped without reading anything (the walk is the spatial
/// index). After a unit's tiles, its thread queues the unit as finished, with its root losslessly
/// encoded, and the writer records both in one transaction: a killed build resumes after its last
/// recorded unit. Tiles above the unit zoom are assembled by `UpperLevels` as their children
/// arrive (after the roots of units finished by an earlier run), unless the build is a shard part
/// (the merge makes them). Worker threads render and encode; the calling thread writes.
struct TileRendering: Sendable {
    /// Tile ranges of `zooms`, lowest first.
    let ranges: [TileRange]
    /// The zooms rendered: the top one from the sources, the others from the zoom below.
    let zooms: ClosedRange<Int>
    let sources: [PreparedSource]
    let options: BuildOptions
    /// The band's index in the build (recorded with its units).
    let band: Int
    let unitZoom: Int
    /// The units to render, in order.
    let units: [TileID]
    /// Units an earlier run finished: skipped, their recorded roots fed to the upper levels.
    let finished: [TileID]
    /// False for shard parts: no tiles above the unit zoom.
    let buildsUpperLevels: Bool
    /// `--update`: the band's changed area and the old bundle (tiles outside the area are kept).
    var update: UpdateScope? = nil
    /// Trails drawn over the tiles as they are encoded (the levels above are made from the
    /// pixels without them, as each zoom draws its own lines).
    var trails: PreparedTrails? = nil
    /// What tests set (`BuildHooks.killAfterUnits`).
    var hooks = BuildHooks()
    /// A terrain layer's hillshade blended into the tiles as they are encoded (the levels above
    /// are made from the pixels without it: each zoom is shaded from the DEMs at its own resolution).
    var shading: TerrainShading? = nil

    /// Units recorded by this process (for `BuildHooks.killAfterUnits`).
    static let recordedThisRun = Atomic<Int>(0)
    /// Units recorded by this process and whether it has held still (`BuildHooks.pauseAfterUnits`).
    static let pausedUnits = Atomic<Int>(0), pausedOnce = Atomic<Bool>(false)

    /// How unit roots are recorded: PNG, the fastest level (lossless: the upper levels made from a
    /// recorded root are the ones made from the rendered image).
    static let rootEncoding = TileEncoding(png: PNGEncodingOptions(deflater: .libdeflate, compressionLevel: 1, effort: .fast))

    /// Renders every tile of `units` (and the levels above them); returns the first error, or nil
    /// when all went well. `recordedRoot` reads a finished unit's root from the partial file.
    func run(writer: BundleWriter, recordedRoot: (TileID) throws(BuildError) -> RGBAImage?,
             progress: (Int, Int) -> Void) -> BuildError? {
        let minZ = zooms.lowerBound, maxZ = zooms.upperBound
        let threads = options.renderThreads
        let unitZ = unitZoom, units = self.units, band = self.band
        let spans = UnitSpans(count: units.count, threads: threads)
        let done = Atomic<Int>(0)
        let failure = Mutex<BuildError?>(nil)
        // A few chunks per thread: enough to keep the writer busy, little memory (bytesPerThread).
        let queue = TileQueue(capacity: 16 * threads, producers: threads)
        let renderers = Dictionary(uniqueKeysWithValues: Resampling.allCases.map {
            ($0, TileRenderer(tileSize: options.tileSize, resampling: $0))
        })
        let encoding = options.tileEncoding
        let ranges = self.ranges, sources = self.sources
        let n = options.tileSize
        let update = self.update
        let trails = self.trails, buildZooms = options.minZoom...options.maxZoom, shading = self.shading
        /// Encodes a made tile, shaded and with its trails drawn when it has any.
        @Sendable func encode(_ tile: TileID, _ image: RGBAImage) throws(BuildError) -> [UInt8] {
            var out = image
            if let shading { out = try shading.shaded(out, tile: tile) }
            if let trails, trails.draws(tile.z, build: buildZooms) { out = try trails.drawn(over: out, tile: tile, tileSize: n) }
            do { return try encoding.encode(out) } catch { throw .encode(tile: tile, error) }
        }
        let upper = buildsUpperLevels ? UpperLevels(units: units + finished, minZoom: minZ, unitZoom: unitZ, tileSize: n, update: update) : nil
        let openPerThread = options.maxOpenSourcesPerThread

        @Sendable func fail(_ error: BuildError) {
            failure.withLock { if $0 == nil { $0 = error } }
            queue.cancel()
        }
        /// Encodes and queues a tile, or queues the copy of a kept one.
        @Sendable func emit(_ tile: TileID, _ made: UpperTile) throws(BuildError) {
            switch made {
            case let .made(image):
                guard queue.push(.tile(tile, try encode(tile, image))) else { throw .cancelled }
            case .kept:
                guard queue.push(.keep(tile, subtree: false)) else { throw .cancelled }
            }
        }
        /// The pixels of a finished tile (an old one's decoded).
        @Sendable func pixels(_ finished: FinishedTile) throws(BuildError) -> RGBAImage? {
            switch finished {
            case let .image(image): image
            case let .kept(t): try update?.oldImage(t) ?? nil
            }
        }
        /// Tiles of `ranges` inside the subtree of `t` (for progress when a subtree is skipped).
        @Sendable func subtreeCount(_ t: TileID) -> Int { BandPlan.subtreeCount(t, ranges: ranges, maxZoom: maxZ) }

        // Units finished by an earlier run: counted, and their roots given to the upper levels.
        var resumed = [(tile: TileID, data: [UInt8])](), resumedKept = [TileRange]()
        for unit in finished {
            done.add(subtreeCount(unit), ordering: .relaxed)
            guard let upper else { continue }
            do throws(BuildError) {
                try upper.add(unit, .image(try recordedRoot(unit))) { tile, made throws(BuildError) in
                    switch made {
                    case let .made(image):
                        resumed.append((tile, try encode(tile, image)))
                    case .kept:
                        // An update's untouched parent: copied by the writer.
                        resumedKept += Self.keptRanges(tile, subtree: false, ranges: ranges, maxZoom: maxZ)
                    }
                }
            } catch {
                return error
            }
        }
        done.add(upper?.takeProduced() ?? 0, ordering: .relaxed)
        if !resumed.isEmpty || !resumedKept.isEmpty {
            do { try writer.add(resumed, kept: resumedKept) } catch { return .store(error) }
        }

        for index in 0..<threads {
            let thread = Thread {
                defer { queue.producerFinished() }
                var scratch = TileRenderer.Scratch()
                let layers = LayerCache(sources: sources, capacity: openPerThread)

                func visit(_ t: TileID, _ candidates: [Int]) throws(BuildError) -> FinishedTile {
                    if let update, update.isUnchanged(t) {
                        guard queue.push(.keep(t, subtree: true)) else { throw .cancelled }
                        done.add(subtreeCount(t), ordering: .relaxed)
                        return .kept(t)
                    }
                    var image: RGBAImage?
                    if t.z == maxZ {
                        let tb = t.mercatorBounds
                        // Each layer's sheets joined into one image (coverage adds up along their
                        // shared edges), then the layers drawn over one another with their opacity.
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
                            do { drawn = try renderers[style.resampling]!.render(t, layer: layer, scratch: &scratch) }
                            catch let error as SourceReaderError { throw .source(error) }  // names its file
                            catch {
                                throw .pixels(path: sources[i].path, reason: "\(error)")
                            }
                            guard let drawn else { continue }
                            if sheets?.style.layer != style.layer { drawLayer() }
                            if sheets == nil { sheets = (drawn, style) } else { Compositing.join(drawn, onto: &sheets!.image) }
                        }
                        drawLayer()
                        if image?.isFullyTransparent == true { image = nil }
                    } else {
                        var children: [FinishedTile] = [.image(nil), .image(nil), .image(nil), .image(nil)]
                        for (k, c) in t.children.enumerated() where ranges[c.z - minZ].contains(c) {
                            let cb = c.mercatorBounds
                            let inside = candidates.filter { sources[$0].touches(cb) }
                            if inside.isEmpty {
                                done.add(subtreeCount(c), ordering: .relaxed)
                                continue
                            }
                            children[k] = try visit(c, inside)
                        }
                        var images = [RGBAImage?]()
                        for child in children { images.append(try pixels(child)) }
                        image = TileDownsampler.parent(of: images, tileSize: n)
                    }
                    if let image { try emit(t, .made(image)) }
                    image?.roundingAlternates = nil  // encoded: the level above needs only the pixels
                    done.add(1, ordering: .relaxed)
                    update?.countRendered(1)
                    return .image(image)
                }

                var mine = 0..<0
                while !queue.isCancelled {
                    if mine.isEmpty {
                        guard let taken = spans.take(thread: index) else { break }
                        mine = taken
                    }
                    let unit = units[mine.removeFirst()]
                    let ub = unit.mercatorBounds
                    let candidates = sources.indices.filter { sources[$0].touches(ub) }
                    do throws(BuildError) {
                        var finished = FinishedTile.image(nil)
                        if candidates.isEmpty {
                            done.add(subtreeCount(unit), ordering: .relaxed)
                        } else {
                            finished = try visit(unit, candidates)
                        }
                        var root: [UInt8]?
                        if let image = try pixels(finished) {
                            do throws(TileCodecError) { root = try Self.rootEncoding.encode(image) } catch { throw .encode(tile: unit, error) }
                        }
                        guard queue.push(.unitDone(BuildUnitRecord(unit: BuildUnit(band: band, tile: unit), root: root))) else {
                            throw .cancelled
                        }
                        if let upper {
                            try upper.add(unit, finished, emit: emit)
                            done.add(upper.takeProduced(), ordering: .relaxed)
                        }
                    } catch {
                        fail(error)
                        return
                    }
                }
            }
            thread.stackSize = 4 << 20
            thread.start()
        }

        var lastReport = Date.distantPast
        while let batch = queue.pop(max: 256, timeout: 0.1) {
            if !batch.isEmpty {
                var tiles = [(tile: TileID, data: [UInt8])](), finishedUnits = [BuildUnitRecord](), kept = [TileRange]()
                tiles.reserveCapacity(batch.count)
                for item in batch {
                    switch item {
                    case let .tile(t, data): tiles.append((t, data))
                    case let .unitDone(record): finishedUnits.append(record)
                    case let .keep(t, subtree): kept += Self.keptRanges(t, subtree: subtree, ranges: ranges, maxZoom: maxZ)
                    }
                }
                do { try writer.add(tiles, units: finishedUnits, kept: kept) } catch {
                    fail(.store(error))
                }
                if let limit = hooks.killAfterUnits, limit > 0, !finishedUnits.isEmpty,
                   Self.recordedThisRun.add(finishedUnits.count, ordering: .relaxed).newValue >= limit {
                    kill(getpid(), SIGKILL)
                }
                if let pause = hooks.pauseAfterUnits, finished.isEmpty, !finishedUnits.isEmpty,
                   Self.pausedUnits.add(finishedUnits.count, ordering: .relaxed).newValue >= pause.units,
                   !Self.pausedOnce.exchange(true, ordering: .relaxed) {
                    Thread.sleep(forTimeInterval: pause.seconds)
                }
            }
            if Date().timeIntervalSince(lastReport) >= 0.1 {
                lastReport = Date()
                progress(done.load(ordering: .relaxed), writer.stats.tiles)
            }
        }
        if let error = failure.withLock({ $0 }) { return error }
        // Groups whose children never all arrived (a tile of the range none of whose children is
        // in the range below): finished with what they have, on this thread.
        guard let upper else {
            progress(done.load(ordering: .relaxed), writer.stats.tiles)
            return nil
        }
        var leftovers = [(tile: TileID, data: [UInt8])](), keptLeftovers = [TileRange]()
        do {
            try upper.flush { tile, made throws(BuildError) in
                switch made {
                case let .made(image):
                    leftovers.append((tile, try encode(tile, image)))
                case .kept: keptLeftovers += Self.keptRanges(tile, subtree: false, ranges: ranges, maxZoom: maxZ)
                }
            }
        } catch {
            return error
        }
        if !leftovers.isEmpty || !keptLeftovers.isEmpty {
            do { try writer.add(leftovers, kept: keptLeftovers) } catch { return .store(error) }
        }
        progress(done.load(ordering: .relaxed) + upper.takeProduced(), writer.stats.tiles)
        return nil
    }

    /// The ranges of a kept tile (`subtree`: and of every tile below it) inside the build's ranges.
    static func keptRanges(_ t: TileID, subtree: Bool, ranges: [TileRange], maxZoom: Int) -> [TileRange] {
        BandPlan.subtreeRanges(t, ranges: ranges, maxZoom: subtree ? maxZoom : t.z)
    }
}
