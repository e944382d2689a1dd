import Foundation
import Raster
import SourceReaders
import Synchronization
import TileGeometry
import TileStore

/// The parallel part of a build, one zoom band at a time. The tile set is cut into subtrees
/// ("units", `BuildUnits`) at a zoom a few levels above the top one, taken in Morton order so that
/// neighbours render close together in time. Worker threads (`UnitWorker`) render the units and
/// encode their tiles; after a unit's tiles, its thread queues the unit as finished, with its root
/// losslessly encoded, and the writer (the calling thread) records both in one transaction: a
/// killed build resumes after its last recorded unit. Tiles above the unit zoom are assembled by
/// `UpperLevels` as their children arrive (after the roots of units finished by an earlier run,
/// `ResumeFeeder`), unless the build is a shard part (the merge makes them).
struct TileRendering: Sendable {
    /// The band's plan; its units are those still to render, in order.
    let band: BandPlan
    /// The band's index in the build (recorded with its units).
    let bandIndex: Int
    let sources: [PreparedSource]
    let options: BuildOptions
    /// Units an earlier run finished: skipped, their recorded roots fed to the upper levels.
    let finished: [TileID]
    /// False for shard parts: no tiles above the unit zoom.
    let buildsUpperLevels: Bool
    /// `--update`: the band's changed area and the old bundle (tiles outside the area are kept).
    var update: UpdateScope? = nil
    /// Trails drawn over the tiles as they are encoded (the levels above are made from the
    /// pixels without them, as each zoom draws its own lines).
    var trails: PreparedTrails? = nil
    /// What tests set (`BuildHooks.killAfterUnits`, `BuildHooks.pauseAfterUnits`).
    var hooks = BuildHooks()
    /// A terrain layer's hillshade blended into the tiles as they are encoded (the levels above
    /// are made from the pixels without it: each zoom is shaded from the DEMs at its own resolution).
    var shading: TerrainShading? = nil

    /// Units recorded by this process (for `BuildHooks.killAfterUnits`).
    static let recordedThisRun = Atomic<Int>(0)
    /// Units recorded by this process and whether it has held still (`BuildHooks.pauseAfterUnits`).
    static let pausedUnits = Atomic<Int>(0), pausedOnce = Atomic<Bool>(false)

    /// Renders every tile of the band's units (and the levels above them); returns the first
    /// error, or nil when all went well. `recordedRoot` reads a finished unit's root from the
    /// partial file. `progress` gets the tiles done and the tiles stored.
    func run(
        writer: BundleWriter, recordedRoot: (TileID) throws(BuildError) -> RGBAImage?,
        progress: (Int, Int) -> Void
    ) -> BuildError? {
        let threads = options.renderThreads
        // A few chunks per thread: enough to keep the writer busy, little memory (bytesPerThread).
        let queue = TileQueue(capacity: 16 * threads, producers: threads)
        let encoder = TileEncoder(
            encoding: options.tileEncoding, tileSize: options.tileSize, trails: trails, shading: shading,
            buildZooms: options.minZoom...options.maxZoom)
        let upper =
            buildsUpperLevels
            ? UpperLevels(
                units: band.units + finished, minZoom: band.zooms.lowerBound, unitZoom: band.unitZoom,
                tileSize: options.tileSize, update: update)
            : nil
        let run = BandRun(band: band, queue: queue, encoder: encoder, upper: upper, update: update)
        do throws(BuildError) {
            try ResumeFeeder(run: run).feed(finished, recordedRoot: recordedRoot, writer: writer)
        } catch {
            return error
        }
        startWorkers(run, threads: threads)
        writeQueued(run, writer: writer, progress: progress)
        if let error = run.firstError { return error }
        do throws(BuildError) {
            try flushUpperLevels(run, writer: writer, progress: progress)
        } catch {
            return error
        }
        return nil
    }

    /// Starts `threads` rendering threads, each a `UnitWorker` over its share of the units.
    private func startWorkers(_ run: BandRun, threads: Int) {
        let spans = UnitSpans(count: band.units.count, threads: threads)
        let renderers = Dictionary(
            uniqueKeysWithValues: Resampling.allCases.map {
                ($0, TileRenderer(tileSize: options.tileSize, resampling: $0))
            })
        let sources = self.sources, units = band.units, bandIndex = self.bandIndex
        let openPerThread = options.maxOpenSourcesPerThread
        for index in 0..<threads {
            let thread = Thread {
                defer { run.queue.producerFinished() }
                UnitWorker(run: run, sources: sources, renderers: renderers, bandIndex: bandIndex, openSources: openPerThread)
                    .work(thread: index, spans: spans, units: units)
            }
            thread.stackSize = 4 << 20
            thread.start()
        }
    }

    /// The writer: takes what the threads queue, in batches, and writes each batch (tiles and the
    /// units they finish) in one transaction, until every thread is done; reports progress about
    /// every 100 ms.
    private func writeQueued(_ run: BandRun, writer: BundleWriter, progress: (Int, Int) -> Void) {
        run.queue.drain {
            write($0, run, to: writer)
        } report: {
            progress(run.done.load(ordering: .relaxed), writer.stats.tiles)
        }
    }

    /// Writes one batch from the queue; a failure stops the threads (`BandRun.fail`).
    private func write(_ batch: [QueuedItem], _ run: BandRun, to writer: BundleWriter) {
        var tiles = [(tile: TileID, data: [UInt8])](), finishedUnits = [BuildUnitRecord](), kept = [TileRange]()
        tiles.reserveCapacity(batch.count)
        for item in batch {
            switch item {
            case let .tile(t, data): tiles.append((t, data))
            case let .unitDone(record): finishedUnits.append(record)
            case let .keep(t, subtree): kept += run.keptRanges(t, subtree: subtree)
            }
        }
        do { try writer.add(tiles, units: finishedUnits, kept: kept) } catch {
            run.fail(.store(error))
        }
        applyHooks(recordedUnits: finishedUnits.count)
    }

    /// The tests' hooks, after `count` units were recorded: the process kills itself once
    /// `killAfterUnits` are, and a build that resumes nothing holds still once after
    /// `pauseAfterUnits` (the writer waits; the render threads stop when the queue is full).
    private func applyHooks(recordedUnits count: Int) {
        guard count > 0 else { return }
        if let limit = hooks.killAfterUnits, limit > 0,
            Self.recordedThisRun.add(count, ordering: .relaxed).newValue >= limit
        {
            kill(getpid(), SIGKILL)
        }
        if let pause = hooks.pauseAfterUnits, finished.isEmpty,
            Self.pausedUnits.add(count, ordering: .relaxed).newValue >= pause.units,
            !Self.pausedOnce.exchange(true, ordering: .relaxed)
        {
            Self.hold(pause)
        }
    }

    /// Writes the pause's marker and waits until it is removed or the pause's time is up.
    private static func hold(_ pause: BuildHooks.Pause) {
        guard FileManager.default.createFile(atPath: pause.marker, contents: Data()) else { return }
        let end = Date().addingTimeInterval(pause.seconds)
        while Date() < end && FileManager.default.fileExists(atPath: pause.marker) {
            Thread.sleep(forTimeInterval: 0.05)
        }
        try? FileManager.default.removeItem(atPath: pause.marker)
    }

    /// Groups of the upper levels whose children never all arrived (a tile of the range none of
    /// whose children is in the range below): finished with what they have, on this thread, and
    /// written; then the last progress report.
    private func flushUpperLevels(_ run: BandRun, writer: BundleWriter, progress: (Int, Int) -> Void) throws(BuildError) {
        guard let upper = run.upper else {
            progress(run.done.load(ordering: .relaxed), writer.stats.tiles)
            return
        }
        var made = CollectedTiles()
        try upper.flush { tile, tileMade throws(BuildError) in
            try made.add(tile, tileMade, in: run)
        }
        try made.write(to: writer)
        progress(run.done.load(ordering: .relaxed) + upper.takeProduced(), writer.stats.tiles)
    }
}
