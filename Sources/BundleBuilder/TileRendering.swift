import Foundation
import Raster
import Synchronization
import TileGeometry
import TileStore

/// The parallel part of a build: worker threads render and encode tiles, the calling thread writes.
struct TileRendering: Sendable {
    let ranges: [TileRange]
    let sources: [GeoreferencedSource]
    let options: BuildOptions

    /// Renders every tile of `ranges`; returns the first error, or nil when all went well.
    func run(writer: BundleWriter, progress: (Int, Int) -> Void) -> BuildError? {
        let offsets = ranges.reduce(into: [0]) { $0.append($0.last! + $1.count) }
        let total = offsets.last!
        let next = Atomic<Int>(0)
        let done = Atomic<Int>(0)
        let failure = Mutex<BuildError?>(nil)
        let threads = options.renderThreads
        // A few chunks per thread: enough to keep the writer busy, little memory (bytesPerThread).
        let queue = TileQueue(capacity: 16 * threads, producers: threads)
        let chunk = 8
        let renderer = TileRenderer(tileSize: options.tileSize, resampling: options.resampling)
        let encoding = options.encoding
        let ranges = self.ranges
        let sources = self.sources

        for _ in 0..<threads {
            let thread = Thread {
                defer { queue.producerFinished() }
                var scratch = TileRenderer.Scratch()
                var rangeIndex = 0
                while !queue.isCancelled {
                    let first = next.wrappingAdd(chunk, ordering: .relaxed).oldValue
                    if first >= total { break }
                    for i in first..<min(first + chunk, total) {
                        while offsets[rangeIndex + 1] <= i { rangeIndex += 1 }
                        while offsets[rangeIndex] > i { rangeIndex -= 1 }
                        let tile = ranges[rangeIndex].tile(at: i - offsets[rangeIndex])
                        if let image = renderer.render(tile, sources: sources, scratch: &scratch) {
                            do throws(PNGError) {
                                let png = try PNGEncoder.encode(image, options: encoding)
                                if !queue.push((tile, png)) { return }
                            } catch {
                                failure.withLock { if $0 == nil { $0 = .encode(tile: tile, error) } }
                                queue.cancel()
                                return
                            }
                        }
                        done.add(1, ordering: .relaxed)
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
                    failure.withLock { if $0 == nil { $0 = .store(error) } }
                    queue.cancel()
                }
            }
            if Date().timeIntervalSince(lastReport) >= 0.1 {
                lastReport = Date()
                progress(done.load(ordering: .relaxed), writer.stats.tiles)
            }
        }
        progress(done.load(ordering: .relaxed), writer.stats.tiles)
        return failure.withLock { $0 }
    }
}
