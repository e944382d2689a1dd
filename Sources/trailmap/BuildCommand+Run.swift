import ArgumentParser
import BundleBuilder
import Foundation
import TrailRendering
import Trails
import TrailSources
import Raster
import SourceReaders
import TileGeometry
import TileStore

// What `trailmap build` does with its options: check them, build, and report.

extension BuildCommand {
    func validate() throws {
        if manifest != nil {
            if !source.isEmpty || sourceList != nil || minzoom != nil || maxzoom != nil {
                throw ValidationError("--manifest gives the sources and zooms: drop --source, --source-list, --minzoom and --maxzoom")
            }
        } else {
            if source.isEmpty && sourceList == nil && trails.isEmpty && terrain.dem.isEmpty {
                throw ValidationError(
                    "give at least one --source FILE (or FOLDER), --source-list FILE, --dem FILE or --trails FILE, or a --manifest")
            }
            if name == nil { throw ValidationError("give the region's --name (or a --manifest that names it)") }
        }
        if trails.isEmpty && (trailsMapping != nil || trailsPreset != nil || trailsJoin || trailsStyle != nil || trailsZooms != nil) {
            throw ValidationError("--trails-mapping, --trails-preset, --trails-join, --trails-style and --trails-zooms apply to --trails")
        }
        if trailsMapping != nil && trailsPreset != nil { throw ValidationError("give --trails-mapping or --trails-preset, not both") }
        if manifest != nil && !trails.isEmpty {
            throw ValidationError("--manifest gives the trails (a layer of kind trails): drop --trails")
        }
        for o in openOptions where !ReadOptions.isOpenOption(o) {
            throw ValidationError("--open-option \(o): give KEY=VALUE, e.g. --open-option DPI=300")
        }
        if let threads, threads < 1 { throw ValidationError("--threads must be at least 1") }
        if manifest != nil && terrain.anyGiven {
            throw ValidationError("--manifest gives the terrain (a layer of kind terrain): drop --dem and the terrain options")
        }
        try terrain.check(format: format, hasSources: !source.isEmpty || sourceList != nil)
        let terrainTiles = format?.terrain
        if terrainTiles != nil && (quality != nil || lossless) {
            throw ValidationError("terrain tiles are lossless: drop --quality and --lossless (--terrain-image webp makes lossless WebP)")
        }
        let chosen = format?.tiles
        if let quality {
            if !(1...100).contains(quality) { throw ValidationError("--quality must be 1-100, not \(quality)") }
            if chosen == .png || (chosen == nil && manifest == nil) {
                throw ValidationError("--quality applies to --format webp or jpeg; png tiles are lossless")
            }
            if lossless { throw ValidationError("--quality and --lossless exclude each other") }
        }
        if lossless && chosen != .webp && !(chosen == nil && manifest != nil) {
            throw ValidationError("--lossless applies to --format webp only (png is always lossless, jpeg never)")
        }
        if rounding != nil && chosen == .webp {
            throw ValidationError("--rounding applies to png tiles (and the transparent tiles of jpeg bundles), not webp")
        }
        if let tileSize, tileSize != 256 && tileSize != 512 { throw ValidationError("--tile-size must be 256 or 512") }
        if !out.hasSuffix(".mbtiles") { throw ValidationError("--out must end in .mbtiles") }
        if update != nil && shard != nil { throw ValidationError("--update and --shard exclude each other: update the merged bundle") }
        if shard != nil {
            if manifest == nil && source.isEmpty && sourceList == nil {
                throw ValidationError("--shard needs --source layers: a trails-only overlay (--trails alone) is built on one machine")
            }
        }
        let maxLevel = pngDeflater.deflater.maxLevel
        if let pngLevel, !(0...maxLevel).contains(pngLevel) {
            throw ValidationError("--png-level must be 0...\(maxLevel) with --png-deflater \(pngDeflater.rawValue)")
        }
    }

    func run() throws {
        let logger = global.logger("trailmap.build")
        var options = try manifest.map { try BuildManifest.load(path: $0).options(output: out) } ?? commandLineOptions()
        if let name { options.name = name }
        if let resampling { options.resampling = resampling }
        if let threads { options.threads = threads }
        options.memoryLimit = memoryLimit.bytes
        options.read.crs = sourceCrs
        options.read.nodata = srcNodata?.values
        if let scale { options.read.scale = (scale.min, scale.max) }
        options.read.gcpTransform = gcpTransform
        if let bands { options.read.bands = bands.numbers }
        if !openOptions.isEmpty { options.read.openOptions = openOptions }
        if let tileSize { options.tileSize = tileSize }
        if let layer = try terrain.layer(format: format, crs: options.read.crs, hasSources: !source.isEmpty || sourceList != nil) {
            options.terrain = layer
            if layer.encoding != nil, terrain.terrainImage == .webp {
                options.format = .webp
                options.lossless = true
            }
        }
        if let format = format?.tiles {
            options.format = format
            options.lossless = lossless
            options.quality = quality
        } else {
            if lossless { options.lossless = true; options.quality = nil }
            if let quality { options.quality = quality; options.lossless = false }
        }
        if let effort { options.effort = effort }
        if let rounding { options.rounding = rounding }
        if let bounds { options.clipBounds = bounds.bounds }
        if manifest == nil || effort != nil || pngLevel != nil || pngDeflater != .libdeflate || pngSearch {
            let standard = options.terrain != nil && options.terrain?.blend == nil ? BuildOptions.terrainEffort : BuildOptions.defaultEffort
            options.encoding = BuildOptions.encoding(
                effort: effort ?? standard, level: pngLevel,
                deflater: pngDeflater.deflater, search: pngSearch)
        }
        if !trails.isEmpty {
            options.trails = try trailLayer()
            options.recordsLayers = true
        }
        if let description { options.description = description }
        if let attribution { options.attribution = attribution }
        if let bundleVersion { options.version = bundleVersion }
        options.shard = shard
        options.update = update
        let printer = ProgressPrinter(quiet: global.quiet)
        BuildInterruptNotice.install(output: out)
        var builder = BundleBuilder(options: options, logger: logger)
        builder.noticeWording = BuildWording.notice
        builder.hooks.killAfterUnits = Self.testKillAfterUnits
        builder.hooks.pauseAfterUnits = Self.testPauseAfterUnits(marker: out + ".paused")
        let report = try builder.build { printer.report($0) }
        if json { return try JSONOutput.print(BuildSummaryOutput(report)) }
        if !global.quiet {
            switch report.start {
            case .fresh: break
            case let .resumed(units, tiles): print("resumed a partial build: \(units) unit(s) and \(tiles) tiles were already made")
            case let .discarded(reason): print("started over: a partial build left beside the output was deleted (\(reason))")
            }
            let z = report.zooms, from = report.zoomsFromSources
            let (lo, hi) = manifest == nil ? ("--minzoom", "--maxzoom") : ("the manifest's minzoom", "maxzoom")
            if from == .both {
                print("zooms \(z.lowerBound)-\(z.upperBound), from the sources' resolution and extent (\(lo) and \(hi) choose)")
            } else if from == .max {
                print(
                    """
                    highest zoom \(z.upperBound), from the sources' resolution (\(manifest == nil ? hi : "the manifest's maxzoom") \
                    chooses)
                    """
                )
            } else if from == .min {
                print("lowest zoom \(z.lowerBound), where the region fits one tile (\(lo) chooses)")
            }
            if let u = report.update { Self.printUpdate(u, base: update ?? "") }
            let ratio = report.uniqueImages > 0 ? Double(report.tilesStored) / Double(report.uniqueImages) : 1
            print(
                String(
                    format: "%@: %d tiles stored (%d distinct, dedup %.2fx), %@ of tiles, %.1f s, %.0f tiles/s",
                    report.output, report.tilesStored, report.uniqueImages, ratio,
                    ByteSize.format(report.bytesStored), report.seconds,
                    report.tilesPerSecond))
        }
    }

    static func printUpdate(_ u: UpdateSummary, base: String) {
        func names(_ list: [String]) -> String {
            list.isEmpty
                ? ""
                : " (" + list.map { URL(fileURLWithPath: $0).lastPathComponent }.prefix(5).joined(separator: ", ")
                    + (list.count > 5 ? ", ..." : "") + ")"
        }
        print(
            """
            updated from \(base): sources \(u.sourcesAdded.count) added\(names(u.sourcesAdded)), \(u.sourcesRemoved.count) \
            removed\(names(u.sourcesRemoved)), \(u.sourcesChanged.count) changed\(names(u.sourcesChanged))
            """
                + (u.sourcesMoved.isEmpty ? "" : ", \(u.sourcesMoved.count) moved with the same content"))
        print(
            """
            tiles: \(u.tilesRendered) re-rendered, \(u.tilesKept) copied; against the old bundle \(u.tilesAdded) added, \(u.tilesRemoved) \
            removed, \(u.tilesChanged) changed
            """
        )
        if u.trailsChanged {
            print("trails: changed (records or style); the tiles near trails were drawn again")
        } else if u.trailsRedrawn {
            print("trails: unchanged; the tiles near trails were drawn again with the changed tiles")
        }
    }

    /// Debug builds only (the tests' binary; never a release): `TRAILMAP_TEST_KILL_AFTER_UNITS=N`
    /// makes the build SIGKILL itself once N units are recorded, for the resume tests.
    static var testKillAfterUnits: Int? {
        #if DEBUG
        ProcessInfo.processInfo.environment["TRAILMAP_TEST_KILL_AFTER_UNITS"].flatMap(Int.init)
        #else
        nil
        #endif
    }

    /// Debug builds only: `TRAILMAP_TEST_PAUSE_AFTER_UNITS=N:SECONDS` makes a build that resumes
    /// nothing hold still once N units are recorded, for the Slurm cancel test: it writes
    /// `marker` and waits until the file is removed or SECONDS pass.
    static func testPauseAfterUnits(marker: String) -> BuildHooks.Pause? {
        #if DEBUG
        guard let value = ProcessInfo.processInfo.environment["TRAILMAP_TEST_PAUSE_AFTER_UNITS"] else { return nil }
        let parts = value.split(separator: ":")
        guard parts.count == 2, let units = Int(parts[0]), units > 0, let seconds = Double(parts[1]), seconds > 0 else { return nil }
        return BuildHooks.Pause(units: units, seconds: seconds, marker: marker)
        #else
        nil
        #endif
    }

    /// The build the command line describes: `--source` arguments as layers (`PATH@Z0-Z1`), the
    /// zoom range given or spanned by the layers.
    private func commandLineOptions() throws -> BuildOptions {
        var (layers, ranged) = try SourceList.layers(fromArguments: source)
        if let sourceList {
            let listed = try SourceList.read(listFile: sourceList)
            if let last = layers.last, last.zooms == nil {
                layers[layers.count - 1].sources += listed
            } else {
                var layer = BuildLayer(name: URL(fileURLWithPath: sourceList).deletingPathExtension().lastPathComponent, sources: listed)
                layer.namedFromSources = true
                layers.append(layer)
            }
        }
        let lows = layers.compactMap { $0.zooms?.lowerBound }, highs = layers.compactMap { $0.zooms?.upperBound }
        let unranged = layers.contains { $0.zooms == nil }
        // Without a zoom given or ranged for every source, the builder takes it from the sources.
        let lo = minzoom ?? (unranged ? nil : lows.min()), hi = maxzoom ?? (unranged ? nil : highs.max())
        var options = BuildOptions(sources: [], name: name ?? "", minZoom: lo ?? 0, maxZoom: hi ?? 0, output: out)
        if lo == nil { options.zoomsFromSources.insert(.min) }
        if hi == nil { options.zoomsFromSources.insert(.max) }
        options.layers = layers
        options.recordsLayers = ranged
        options.allowGaps = allowGaps
        // Sources drawn later cover earlier ones where they have pixels, at every zoom both serve.
        options.allowOverlap = true
        return options
    }

    /// The trails of `--trails` and the options about them.
    private func trailLayer() throws -> TrailLayerOptions {
        var t = TrailLayerOptions(sources: trails)
        t.join = trailsJoin
        if trailsPreset == .osm { t.mapping = TrailLayerOptions.osmPreset }
        if let trailsMapping {
            do { t.mapping = try TrailFieldMapping.load(path: trailsMapping) } catch { throw ValidationError("--trails-mapping: \(error)") }
        }
        if let trailsStyle {
            let data: Data
            do { data = try Data(contentsOf: URL(fileURLWithPath: trailsStyle)) } catch {
                throw CommandFailure("--trails-style \(trailsStyle): cannot read the file")
            }
            do { t.style = try JSONDecoder().decode(TrailStyle.self, from: data) } catch {
                throw ValidationError(
                    """
                    --trails-style \(trailsStyle): not a trail style (JSON with colors, lineWidth, casingColor, casingWidth, labelMinZoom, \
                    font, ...): \(error)
                    """
                )
            }
        }
        t.zooms = trailsZooms?.zooms
        return t
    }
}
