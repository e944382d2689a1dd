import Foundation
import Raster
import TileGeometry

/// What to build and how.
public struct BuildOptions: Sendable {
    /// Source PNG paths, drawn in order (later sources over earlier ones).
    public var sources: [String]
    /// The bundle's display name (metadata `name`).
    public var name: String
    public var minZoom: Int
    public var maxZoom: Int
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
    public var bytesPerThread: Int { (8 << 20) + 64 * tileSize * tileSize }
    /// The threads the build runs: `threads`, fewer when half the memory limit (the other half
    /// holds source pixels) cannot hold that many.
    public var renderThreads: Int { max(1, min(threads, (memoryLimit / 2) / bytesPerThread)) }
    /// CRS of sources georeferenced by a world file.
    public var worldFileCRS: CRS = .epsg4326
    public var tileSize: Int = 256
    /// Tile PNG settings: one filter setting per tile, libdeflate levels per tile
    /// (`defaultAdaptiveLevels`: palettes 7, truecolour 8, dense truecolour 10). docs/png-compression.md
    /// has the measurements behind each choice.
    public var encoding = BuildOptions.defaultEncoding
    /// The libdeflate level `trailmap build` uses for truecolour tiles unless told otherwise.
    public static let defaultPNGLevel = 8
    /// Per-tile levels of the default encoding.
    public static let defaultAdaptiveLevels = PNGEncodingOptions.AdaptiveLevels(
        palette: 7, dense: 10, denseBitsPerPixel: 1.2)
    /// The default tile encoding.
    public static var defaultEncoding: PNGEncodingOptions { encoding(level: nil, deflater: .libdeflate, search: false) }

    /// The tile encoding for `trailmap build`'s PNG flags: the default per-tile levels unless a
    /// level, zlib or the per-tile search is asked for (then that one setting for every tile).
    public static func encoding(level: Int?, deflater: PNGEncodingOptions.Deflater, search: Bool) -> PNGEncodingOptions {
        var encoding = PNGEncodingOptions(
            deflater: deflater, compressionLevel: level ?? (deflater == .zlib ? 6 : defaultPNGLevel),
            effort: search ? .best : .fast)
        if level == nil && deflater == .libdeflate && !search {
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

    public init(sources: [String], name: String, minZoom: Int, maxZoom: Int, output: String) {
        self.sources = sources
        self.name = name
        self.minZoom = minZoom
        self.maxZoom = maxZoom
        self.output = output
    }

    /// Checks the options that need no file access.
    public func validate() throws(BuildError) {
        guard !sources.isEmpty else { throw .noSources }
        for z in [minZoom, maxZoom] where !(0...TileID.maxZoom).contains(z) { throw .zoomTooHigh(z) }
        guard minZoom <= maxZoom else { throw .zoomOrder(min: minZoom, max: maxZoom) }
        guard threads >= 1 else { throw .invalidOption("--threads must be at least 1") }
        guard memoryLimit >= 64 << 20 else { throw .invalidOption("--memory-limit must be at least 64MB") }
        guard [256, 512].contains(tileSize) else { throw .invalidOption("tile size must be 256 or 512") }
        guard !name.trimmingCharacters(in: .whitespaces).isEmpty else { throw .invalidOption("--name must not be empty") }
    }
}
