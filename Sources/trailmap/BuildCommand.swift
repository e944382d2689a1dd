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
}
