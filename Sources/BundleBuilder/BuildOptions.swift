import Foundation
import Raster
import SourceReaders
import TileGeometry

/// What to build and how.
public struct BuildOptions: Sendable {
    /// The layers, lower first, each with its sources and the zooms it serves (docs in
    /// `BuildLayer`). A plain build has one layer serving every zoom.
    public var layers: [BuildLayer]
    /// Trails drawn over the tiles and stored in the bundle; with no layer of sources, the
    /// bundle is a transparent trails-only overlay over the trails' extent.
    public var trails: TrailLayerOptions?
    /// A terrain layer (DEMs drawn as hillshade or colour relief, or terrain tiles): built in a
    /// bundle of its own, with the trails drawn over it when there are any.
    public var terrain: TerrainLayer?
    /// Source files (any raster GDAL reads; PNGs with world files are decoded by TrailMap),
    /// drawn in order (later sources over earlier ones); folders and globs are expanded by
    /// `SourceList`. Setting it makes the build one layer serving every zoom.
    public var sources: [String] {
        get { layers.flatMap(\.sources) }
        set { layers = [BuildLayer(name: "sources", sources: newValue)] }
    }
    /// Zooms of the build that no layer serves are allowed (they hold no tiles).
    public var allowGaps = false
    /// Series may serve the same zooms (the later drawn over the earlier inside its footprint).
    public var allowOverlap = false
    /// Records the layers in the bundle's metadata (`trailmap:layers`): set for builds with
    /// levels of detail (a manifest, or sources with zoom ranges).
    public var recordsLayers = false
    /// The region's extent: tiles outside are not made, and a source outside it is an error.
    /// Default: the union of the sources.
    public var clipBounds: GeoBounds?
    /// The bundle's display name (metadata `name`).
    public var name: String
    public var minZoom: Int
    public var maxZoom: Int
    /// The ends of the zoom range taken from the sources once they are read (`SourceZooms`);
    /// `minZoom` or `maxZoom` is then not used for that end.
    public var zoomsFromSources: SourceZooms = []
    /// Destination `.mbtiles` path.
    public var output: String
    public var resampling: Resampling = .average
    /// Worker threads (default: every core).
    public var threads: Int = ProcessInfo.processInfo.activeProcessorCount
    /// Memory the build may use, in bytes.
    public var memoryLimit: Int = 512 << 20
    /// What one rendering thread holds at most: its source window and row sums, its libdeflate
    /// compressors and the encoded tiles it may have queued. Measured at 256 px: ~9.5 MB a thread
    /// (peak RSS 88 / 98 / 118 / 155 MB with 1 / 2 / 4 / 8 threads on the benchmark).
    public var bytesPerThread: Int { (8 << 20) + 128 * tileSize * tileSize }
    /// The threads the build runs: `threads`, fewer when half the memory limit (the other half
    /// holds source pixels) cannot hold that many.
    public var renderThreads: Int { max(1, min(threads, (memoryLimit / 2) / bytesPerThread)) }
    /// What overrides the sources' own declarations: their CRS (default: what each source
    /// declares; EPSG:4326 for world files), nodata values, the range to scale, the bands read.
    public var read = ReadOptions()
    /// Sources one rendering thread keeps open at most (GDAL datasets; the least recently used close).
    public var maxOpenSourcesPerThread = 16
    /// GDAL's block cache: an eighth of the memory limit, 16 MB to 256 MB.
    public var gdalCacheBytes: Int { min(256 << 20, max(16 << 20, memoryLimit / 8)) }
    public var tileSize: Int = 256
    /// Tile PNG settings: one filter setting per tile, the libdeflate level of `BuildEffort.balanced`
    /// (docs/notes/png-compression.md has the measurements behind each choice).
    public var encoding = BuildOptions.defaultEncoding
    /// The tiles' format: PNG (lossless, the default), WebP or JPEG (opaque tiles; PNG where transparent).
    public var format: TileFormat = .png
    /// WebP: lossless (the pixels exactly) rather than lossy.
    public var lossless = false
    /// Lossy WebP and JPEG quality 1–100 (default 90 for WebP, 85 for JPEG).
    public var quality: Int?
    /// How hard the encoder works; PNG's levels are in `encoding`.
    public var effort = BuildOptions.defaultEffort
    /// How PNG tiles store resampled values between two levels (default `.compact`:
    /// up or down, whichever compresses better).
    public var rounding = TileRounding.compact
    /// Everything the tile encoder needs.
    public var tileEncoding: TileEncoding {
        var e = TileEncoding(png: encoding)
        e.png.rounding = rounding
        e.format = format
        e.lossless = lossless
        e.quality = quality ?? (format == .jpg ? 85 : 90)
        e.webpEffort = lossless ? effort.webpLosslessPreset : effort.webpMethod
        return e
    }
    /// The effort a build uses unless told otherwise.
    public static let defaultEffort = BuildEffort.balanced
    /// The PNG effort of a terrain layer's tiles unless told otherwise: smooth grey shaded relief
    /// gains little from the deeper match search of higher levels (docs/terrain.md).
    public static let terrainEffort = BuildEffort.fast
    /// Per-tile levels of `BuildEffort.small`.
    public static let defaultAdaptiveLevels = PNGEncodingOptions.AdaptiveLevels(
        palette: 7, dense: 10, denseBitsPerPixel: 1.2)
    /// The default tile encoding.
    public static var defaultEncoding: PNGEncodingOptions {
        encoding(effort: defaultEffort, level: nil, deflater: .libdeflate, search: false)
    }

    /// The tile encoding for an effort and overrides: the effort's levels unless a level, zlib or
    /// the per-tile search is asked for (then that one setting for every tile).
    public static func encoding(
        effort: BuildEffort = defaultEffort, level: Int?, deflater: PNGEncodingOptions.Deflater,
        search: Bool
    ) -> PNGEncodingOptions {
        var encoding = PNGEncodingOptions(
            deflater: deflater, compressionLevel: level ?? (deflater == .zlib ? 6 : effort.level),
            effort: search ? .best : .fast)
        if effort == .small && level == nil && deflater == .libdeflate && !search {
            encoding.adaptiveLevels = defaultAdaptiveLevels
        }
        return encoding
    }
    public var description: String = ""
    public var attribution: String = ""
    public var version: String = "1.0.0"
    /// Region id stored as `trailmap:region` (default: derived from the output file name).
    public var regionID: String?
    /// Folder for spilled source pixels (default: the output's folder).
    public var scratchDirectory: String?
    /// Renders only this part of the tile set (shard K of N); `BundleMerger` joins the parts.
    public var shard: ShardSpec?
    /// A bundle to update (EXISTING): built by TrailMap with the same settings; only the tiles that
    /// added, removed or changed sources touch are made again, the others are copied from it.
    public var update: String?

    public init(sources: [String], name: String, minZoom: Int, maxZoom: Int, output: String) {
        self.layers = [BuildLayer(name: "sources", sources: sources)]
        self.name = name
        self.minZoom = minZoom
        self.maxZoom = maxZoom
        self.output = output
    }

    /// The least `memoryLimit` a build runs with.
    public static let minimumMemoryLimit = 64 << 20

    /// Checks the options that need no file access.
    public func validate() throws(BuildError) {
        // An end taken from the sources is checked once they are read; a given one now.
        if !zoomsFromSources.contains(.min), !(0...TileID.maxZoom).contains(minZoom) { throw .zoomTooHigh(minZoom) }
        if !zoomsFromSources.contains(.max), !(0...TileID.maxZoom).contains(maxZoom) { throw .zoomTooHigh(maxZoom) }
        if zoomsFromSources.isEmpty, minZoom > maxZoom { throw .zoomOrder(min: minZoom, max: maxZoom) }
        try validateLayers()
        if let b = clipBounds, !(b.isValid && b.west < b.east && b.south < b.north) {
            throw .invalidOption(.clipBounds(b))
        }
        guard threads >= 1 else { throw .invalidOption(.threads(threads)) }
        guard memoryLimit >= Self.minimumMemoryLimit else { throw .invalidOption(.memoryLimit(memoryLimit)) }
        guard [256, 512].contains(tileSize) else { throw .invalidOption(.tileSize(tileSize)) }
        guard !name.trimmingCharacters(in: .whitespaces).isEmpty else { throw .invalidOption(.emptyName) }
        if let q = quality {
            guard format != .png else { throw .invalidOption(.qualityForPNG) }
            guard (1...100).contains(q) else { throw .invalidOption(.quality(q)) }
            guard !lossless else { throw .invalidOption(.qualityWithLossless) }
        }
        if lossless && format != .webp {
            throw .invalidOption(.losslessNotWebP)
        }
        if update != nil && shard != nil {
            throw .invalidOption(.updateWithShard)
        }
        if let scale = read.scale, !(scale.min < scale.max) || !scale.min.isFinite || !scale.max.isFinite {
            throw .invalidOption(.scale(min: scale.min, max: scale.max))
        }
    }
}
