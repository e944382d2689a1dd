import Foundation
import Raster
import Synchronization
import TileGeometry
import TileStore

/// The parallel part of a build. The tile set is cut into subtrees ("units") at a zoom a few
/// levels above the top one, taken in Morton order so that neighbours render close together in
/// time. Within a unit, a depth-first walk renders top-zoom tiles from the sources and makes each
/// lower tile the 2×2 mean of its children; children whose footprint no source touches are
/// skipped without reading anything (the walk is the spatial index). Tiles above the unit zoom
/// are assembled by `UpperLevels` as their children arrive. Worker threads render and encode;
/// the calling thread writes.
struct TileRendering: Sendable {
    /// Tile ranges of `zooms`, lowest first.
    let ranges: [TileRange]
    /// The zooms rendered: the top one from the sources, the others from the zoom below.
    let zooms: ClosedRange<Int>
    let sources: [PreparedSource]
    let options: BuildOptions

    /// The zoom of the subtrees: three levels above the top (64 top tiles a unit), lower when
    /// that leaves too few units to share between threads.
    static func unitZoom(ranges: [TileRange], minZoom: Int, maxZoom: Int, threads: Int) -> Int {
        var z = max(minZoom, maxZoom - 3)
        while z < maxZoom && ranges[z - minZoom].count < 16 * threads { z += 1 }
        return z
    }

    /// Renders every tile of `ranges`; returns the first error, or nil when all went well.
    func run(writer: BundleWriter, progress: (Int, Int) -> Void) -> BuildError? {
        let minZ = zooms.lowerBound, maxZ = zooms.upperBound
        let threads = options.renderThreads
        let unitZ = Self.unitZoom(ranges: ranges, minZoom: minZ, maxZoom: maxZ, threads: threads)
        let units = ranges[unitZ - minZ].sorted { Self.morton($0) < Self.morton($1) }
        let next = Atomic<Int>(0)
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
        let upper = UpperLevels(ranges: ranges, minZoom: minZ, unitZoom: unitZ, tileSize: n)
        let openPerThread = options.maxOpenSourcesPerThread

        @Sendable func fail(_ error: BuildError) {
            failure.withLock { if $0 == nil { $0 = error } }
            queue.cancel()
        }
        /// Encodes and queues a tile; false once the build is cancelled.
        @Sendable func emit(_ tile: TileID, _ image: RGBAImage) throws(BuildError) {
            let png: [UInt8]
            do { png = try encoding.encode(image) } catch { throw .encode(tile: tile, error) }
            guard queue.push((tile, png)) else { throw .cancelled }
        }
        /// Tiles of `ranges` inside the subtree of `t` (for progress when a subtree is skipped).
        @Sendable func subtreeCount(_ t: TileID) -> Int {
            var count = 0
            for z in t.z...maxZ {
                let d = z - t.z
                let r = ranges[z - minZ]
                let x0 = max(r.minX, t.x << d), x1 = min(r.maxX, ((t.x + 1) << d) - 1)
                let y0 = max(r.minY, t.y << d), y1 = min(r.maxY, ((t.y + 1) << d) - 1)
                if x0 <= x1 && y0 <= y1 { count += (x1 - x0 + 1) * (y1 - y0 + 1) }
            }
            return count
        }

        for _ in 0..<threads {
            let thread = Thread {
                defer { queue.producerFinished() }
                var scratch = TileRenderer.Scratch()
                let layers = LayerCache(sources: sources, capacity: openPerThread)

                func visit(_ t: TileID, _ candidates: [Int]) throws(BuildError) -> RGBAImage? {
                    var image: RGBAImage?
                    if t.z == maxZ {
                        let tb = t.mercatorBounds
                        for i in candidates where sources[i].mercatorBounds.intersects(tb) {
                            let layer = try layers.layer(i)
                            let style = sources[i].style
                            let drawn: RGBAImage?
                            do { drawn = try renderers[style.resampling]!.render(t, layer: layer, scratch: &scratch) } catch {
                                throw .pixels(path: sources[i].path, reason: "\(error)")
                            }
                            guard let drawn else { continue }
                            if image == nil {
                                image = drawn
                                if style.opacity < 1 { Compositing.fade(&image!, opacity: style.opacity) }
                            } else {
                                Compositing.draw(drawn, over: &image!, opacity: style.opacity)
                            }
                        }
                        if image?.isFullyTransparent == true { image = nil }
                    } else {
                        var children: [RGBAImage?] = [nil, nil, nil, nil]
                        for (k, c) in t.children.enumerated() where ranges[c.z - minZ].contains(c) {
                            let cb = c.mercatorBounds
                            let inside = candidates.filter { sources[$0].mercatorBounds.intersects(cb) }
                            if inside.isEmpty {
                                done.add(subtreeCount(c), ordering: .relaxed)
                                continue
                            }
                            children[k] = try visit(c, inside)
                        }
                        image = TileDownsampler.parent(of: children, tileSize: n)
                    }
                    if let image { try emit(t, image) }
                    done.add(1, ordering: .relaxed)
                    return image
                }

                while !queue.isCancelled {
                    let u = next.wrappingAdd(1, ordering: .relaxed).oldValue
                    if u >= units.count { break }
                    let unit = units[u]
                    let ub = unit.mercatorBounds
                    let candidates = sources.indices.filter { sources[$0].mercatorBounds.intersects(ub) }
                    do throws(BuildError) {
                        var image: RGBAImage?
                        if candidates.isEmpty {
                            done.add(subtreeCount(unit), ordering: .relaxed)
                        } else {
                            image = try visit(unit, candidates)
                        }
                        try upper.add(unit, image, emit: emit)
                        done.add(upper.takeProduced(), ordering: .relaxed)
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
                do { try writer.add(batch) } catch {
                    fail(.store(error))
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
        var leftovers = [(tile: TileID, data: [UInt8])]()
        do {
            try upper.flush { tile, image throws(BuildError) in
                do throws(TileCodecError) { leftovers.append((tile, try encoding.encode(image))) } catch {
                    throw .encode(tile: tile, error)
                }
            }
        } catch {
            return error
        }
        if !leftovers.isEmpty {
            do { try writer.add(leftovers) } catch { return .store(error) }
        }
        progress(done.load(ordering: .relaxed) + upper.takeProduced(), writer.stats.tiles)
        return nil
    }

    /// Interleaved bits of x and y: siblings at every level are contiguous in this order.
    static func morton(_ t: TileID) -> UInt64 {
        var key: UInt64 = 0
        for bit in 0..<t.z {
            key |= UInt64((t.x >> bit) & 1) << (2 * bit) | UInt64((t.y >> bit) & 1) << (2 * bit + 1)
        }
        return key
    }
}
