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

extension Resampling: ExpressibleByArgument {
    /// A method's name, or gdal2tiles' `near` for nearest.
    public init?(argument: String) { self.init(name: argument) }
}
extension BuildEffort: ExpressibleByArgument {}
extension TileRounding: ExpressibleByArgument {}
extension GCPTransform: ExpressibleByArgument {}

/// `--png-deflater`.
enum PNGDeflaterArgument: String, ExpressibleByArgument, CaseIterable {
    case libdeflate, zlib

    var deflater: PNGEncodingOptions.Deflater { self == .zlib ? .zlib : .libdeflate }
}

/// `trailmap build`: sources → bundle.
struct BuildCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "build",
        abstract:
            """
            Cut georeferenced rasters (GeoTIFF, COG, VRT, JPEG 2000, PNG + world file, anything GDAL reads, in any CRS) into a Web \
            Mercator tile pyramid in an MBTiles bundle.
            """
    )

    @Option(
        name: .long,
        help: ArgumentHelp(
            """
            A source raster (GeoTIFF, COG, VRT, JPEG 2000, GeoPackage, PNG/JPEG + world file, ...), a folder, a zip, a subdataset name \
            (GPKG:file.gpkg:table) or a glob of them; repeat for a mosaic (later sources over earlier ones). PATH@Z0-Z1: the source serves \
            only zooms Z0 to Z1 (a level of detail).
            """,
            valueName: "path[@z0-z1]"))
    var source: [String] = []

    @Option(
        name: .long,
        help: ArgumentHelp(
            """
            A build manifest (JSON: name, texts, bounds, output settings, layers with their sources and zooms; see docs/building.md). \
            Replaces --source, --source-list, --minzoom and --maxzoom.
            """,
            valueName: "file"))
    var manifest: String?

    @Option(
        name: .long, parsing: .unconditional,
        help: ArgumentHelp(
            "The region's extent in degrees: tiles outside are not made (default: the union of the sources; a manifest's bounds).",
            valueName: "w,s,e,n"), transform: BoundsArgument.parseBounds)
    var bounds: BoundsArgument?

    @Flag(name: .long, help: "Allow zooms of the build that no --source@Z0-Z1 serves (they hold no tiles).")
    var allowGaps = false

    @Option(
        name: .long,
        help: ArgumentHelp(
            "A text file of source paths, one a line (# comments; relative to the file's folder), added after the --source ones.",
            valueName: "file"))
    var sourceList: String?

    @Option(name: .long, help: "Display name of the region (required unless the manifest names it).")
    var name: String?

    @Option(
        name: .long,
        help:
            """
            Lowest zoom level (0-22); default: the lowest of the --source@Z0-Z1 ranges, or, when a source has no range, the highest zoom \
            at which the region fits in one tile.
            """
    )
    var minzoom: Int?

    @Option(
        name: .long,
        help:
            """
            Highest zoom level (0-22); default: the highest of the --source@Z0-Z1 ranges, or, when a source has no range, the highest zoom \
            whose pixels are not finer than the finest source's (as gdal2tiles).
            """
    )
    var maxzoom: Int?

    @Option(name: .long, help: "Output .mbtiles path.")
    var out: String

    @Flag(name: .long, help: "Print the build's summary as JSON on stdout (progress stays on stderr).")
    var json = false

    @Option(
        name: .long,
        help: ArgumentHelp(
            """
            How source pixels make a tile pixel, as gdal2tiles' -r: near (nearest), bilinear, cubic, cubicspline, lanczos, average or mode \
            (the most frequent value, for classified maps). Default: average, or the manifest's.
            """,
            valueName: "method"))
    var resampling: Resampling?

    @Option(name: .long, help: "Worker threads (default: every core).")
    var threads: Int?

    @Option(name: .long, help: "Memory the build may use, e.g. 512MB.")
    var memoryLimit: ByteSize = ByteSize(bytes: 512 << 20)

    @Option(
        name: .long,
        help: ArgumentHelp(
            """
            The sources' CRS, overriding what they declare: an EPSG code (EPSG:32613), WKT or a PROJ string. Default: what each source \
            declares; EPSG:4326 for world files.
            """,
            valueName: "crs"), transform: BuildArguments.crs)
    var sourceCrs: SpatialReference?

    @Option(
        name: .long, parsing: .unconditional,
        help: ArgumentHelp(
            """
            Nodata value(s) of the sources, overriding theirs: one for every band or one per colour band (V or V,V,V); such pixels are \
            transparent.
            """,
            valueName: "values"), transform: NumberList.nodata)
    var srcNodata: NumberList?

    @Option(
        name: .long, parsing: .unconditional,
        help: ArgumentHelp(
            """
            The range of 16-bit, 32-bit, floating-point or signed 8-bit bands mapped to 0-255 (default: the lowest band minimum and \
            highest band maximum of a layer's sources, so its sheets meet without a step).
            """,
            valueName: "min,max"), transform: ScaleRange.parse)
    var scale: ScaleRange?

    @Option(
        name: .long,
        help: ArgumentHelp(
            """
            How sources georeferenced by ground control points only (scanned maps) are fitted, as gdalwarp's -order/-tps: auto (a \
            polynomial of order 1 below 6 points, else 2), order1, order2, order3, or tps (a thin-plate spline through every point).
            """,
            valueName: "fit"))
    var gcpTransform: GCPTransform = .auto

    @Option(
        name: .long,
        help: ArgumentHelp(
            """
            The sources' bands to read, 1-based: one (gray or palette), two (gray or palette, alpha), three (red, green, blue) or four \
            (red, green, blue, alpha). Default: by the band count, a last band as alpha only when the file marks it so (a 4-band red, \
            green, blue, near-infrared image reads as RGB).
            """,
            valueName: "b,b,b"), transform: BuildArguments.bands)
    var bands: BuildArguments.Bands?

    @Option(
        name: .customLong("open-option"),
        help: ArgumentHelp(
            """
            A GDAL open option for the sources, KEY=VALUE as gdal_translate's -oo (repeat for more), e.g. DPI=300 for GeoPDFs; one the \
            file's driver does not know is an error.
            """,
            valueName: "KEY=VALUE"))
    var openOptions: [String] = []

    @Option(
        name: .long,
        help: ArgumentHelp(
            """
            Tile format: png (lossless, the default), webp (lossy, or --lossless) or jpeg (opaque tiles JPEG, tiles with transparency \
            PNG). webp --lossless keeps PNG's pixels in fewer bytes; webp and jpeg at their default quality are smaller still, lossy \
            (docs/benchmarks.md). With --dem: terrarium or terrain-rgb, terrain tiles (elevations as MapLibre's raster-dem source reads \
            them).
            """,
            valueName: "format"), transform: TileFormatArgument.parse)
    var format: TileFormatArgument?

    @Option(
        name: .long,
        help: ArgumentHelp("Quality of lossy webp and jpeg tiles, 1-100 (default 90 for webp, 85 for jpeg).", valueName: "1-100"))
    var quality: Int?

    @Flag(name: .long, help: "Lossless WebP tiles (with --format webp): the same pixels as PNG.")
    var lossless = false

    @Option(name: .long, help: "Tile size in pixels: 256 or 512 (default: 256, or the manifest's).")
    var tileSize: Int?

    @Option(
        name: .long,
        help: ArgumentHelp(
            """
            Build time against bundle bytes: fast (libdeflate level 6), balanced (7, the default; fast for --dem builds), small (per tile \
            7/8/10: slower, fewer bytes), smallest (12, slowest). Measured trade-offs: docs/notes/png-compression.md.
            """,
            valueName: "effort"))
    var effort: BuildEffort?

    @Option(
        name: .long,
        help: ArgumentHelp(
            """
            Compression level for every tile PNG: libdeflate 0-12 (10-12 are near-optimal, much slower), zlib 0-9 (default 6). Overrides \
            --effort.
            """,
            valueName: "level"))
    var pngLevel: Int?

    @Option(
        name: .long,
        help: ArgumentHelp(
            """
            How PNG tiles store a resampled value that falls between two levels: compact (rounded up or down, whichever the PNG filter \
            predicts better: within one level of the exact value, 2-20% fewer bytes, most on smooth imagery; the default) or nearest \
            (within half a level).
            """,
            valueName: "rounding"))
    var rounding: TileRounding?

    @Option(name: .long, help: "Deflate implementation for tile PNGs: libdeflate or zlib (the encoder before libdeflate).")
    var pngDeflater: PNGDeflaterArgument = .libdeflate

    @Flag(
        name: .long,
        help:
            """
            Per tile, rank every PNG filter on a sample and compare palette with truecolour (slower; larger than the default on the \
            benchmark).
            """
    )
    var pngSearch = false

    @Option(name: .long, help: "Bundle description (default: the manifest's).")
    var description: String?

    @Option(name: .long, help: "Attribution text shown by map viewers (default: the manifest's).")
    var attribution: String?

    @Option(name: .long, help: "Bundle version (default: 1.0.0, or the manifest's).")
    var bundleVersion: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Render only the K-th of N disjoint parts of the tile set, balanced by work; join the parts with `trailmap bundle merge`.",
            valueName: "K/N"), transform: BuildArguments.shard)
    var shard: ShardSpec?

    @Option(
        name: .long,
        help: ArgumentHelp(
            """
            Update a bundle TrailMap built, with the current sources and the same settings: only tiles that added, changed or removed \
            sources touch are made again, the rest is copied. --out may name the same file (replaced when the new one is complete).
            """,
            valueName: "bundle"))
    var update: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            """
            A vector file of trails (any line layer GDAL reads: GeoJSON, GPX, GeoPackage, Shapefile, KML, FlatGeobuf, OpenStreetMap \
            .osm/.pbf; any CRS); repeat for more. Drawn over the --source layers, or alone a transparent trails overlay; stored in the \
            bundle for search.
            """,
            valueName: "path"))
    var trails: [String] = []

    @Option(
        name: .long,
        help: ArgumentHelp(
            """
            The trails' field mapping (JSON): their attributes as name, ref, difficulty, uses and surface (default: the OpenStreetMap \
            preset for .osm/.pbf files, names and refs otherwise).
            """,
            valueName: "file"))
    var trailsMapping: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            """
            osm: read the trails' attributes as OpenStreetMap tags (highway, sac_scale, mtb:scale, foot, bicycle, horse, ...), for tagged \
            GeoJSON or GeoPackage exports.
            """,
            valueName: "preset"), transform: TrailsPresetArgument.parse)
    var trailsPreset: TrailsPresetArgument?

    @Flag(name: .long, help: "Join the segments of one named trail that meet end to end into one trail.")
    var trailsJoin = false

    @Option(
        name: .long,
        help: ArgumentHelp(
            "How trails are drawn (JSON: colours by difficulty, line and casing widths by zoom, label font and zooms).", valueName: "file"))
    var trailsStyle: String?

    @Option(
        name: .long, help: ArgumentHelp("The zooms the trails are drawn at (default: every zoom of the build).", valueName: "z0-z1"),
        transform: ZoomRangeArgument.parse)
    var trailsZooms: ZoomRangeArgument?

    @OptionGroup(title: "Terrain") var terrain: TerrainArguments

    @OptionGroup var global: GlobalOptions

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
        builder.hooks.pauseAfterUnits = Self.testPauseAfterUnits
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
    /// nothing hold still once N units are recorded, for the Slurm cancel test.
    static var testPauseAfterUnits: BuildHooks.Pause? {
        #if DEBUG
        guard let value = ProcessInfo.processInfo.environment["TRAILMAP_TEST_PAUSE_AFTER_UNITS"] else { return nil }
        let parts = value.split(separator: ":")
        guard parts.count == 2, let units = Int(parts[0]), units > 0, let seconds = Double(parts[1]), seconds > 0 else { return nil }
        return BuildHooks.Pause(units: units, seconds: seconds)
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
