import Raster
import SourceReaders
import TileGeometry
import TileStore
import TrailRendering
import Trails
import TrailSources
import TrailTerrain

/// Why a build could not run; each names the file and the problem. `description` names no
/// command-line flag: a program that sets the options words its own advice from the cases' facts.
public enum BuildError: Error, CustomStringConvertible {
    case noSources
    case sourceMissing(path: String)
    case sourceEmpty(path: String)
    case sourceUnreadable(path: String, PNGError)
    case georeference(SidecarError)
    case outsideMercator(path: String, bounds: GeoBounds)
    case zoomOrder(min: Int, max: Int)
    case zoomTooHigh(Int)
    case tooManyTiles(count: Int, maxZoom: Int)
    case store(TileStoreError)
    case pixels(path: String, reason: String)
    /// A PNG source (decoded whole) whose rows take more than half the memory limit to decode:
    /// its width, the bytes its rows take, the limit (bytes).
    case pngRowsTooWide(path: String, width: Int, decodeBytes: Int, memoryLimit: Int)
    case encode(tile: TileID, TileCodecError)
    /// An option is not valid (which, and its value).
    case invalidOption(BuildOptionProblem)
    case source(SourceReaderError)
    /// Another thread failed first; its error is the one reported.
    case cancelled
    case sourceList(path: String, reason: String)
    /// A build manifest is not valid: the file, the field (nil: the whole file) and the problem.
    case manifest(path: String, field: String?, String)
    /// A layer is not valid (named in the message).
    case layer(String)
    /// A source lies outside the region's bounds: it would draw no tile.
    case sourceOutsideRegion(path: String, layer: String, bounds: GeoBounds)
    /// Shard parts that cannot be merged (the file and the reason).
    case merge(path: String, String)
    /// A bundle given to a merge is not a part of a sharded build (it records no shard).
    case notAShardPart(path: String)
    /// An update cannot start from this bundle (`BuildOptions.update`; why).
    case update(path: String, UpdateProblem)
    /// The trails cannot be read (the file, layer, feature or field named).
    case trails(TrailIngestError)
    /// A tile's trails cannot be drawn.
    case trailDrawing(tile: TileID, TrailRenderingError)
    /// The trails cannot be stored in the bundle.
    case trailStore(TrailStoreError)
    /// A shard part of a build that drew trails holds none (or not their drawing plan): made by
    /// an older builder, or damaged.
    case partWithoutTrails(path: String)
    /// A build of trails alone (no raster layer) cannot be cut in shard parts: it is built whole.
    case trailsOverlayNotSharded
    /// A terrain layer cannot be built as asked.
    case terrain(TerrainLayerProblem)
    /// The trails' elevation figures could not be read from the build's DEMs.
    case trailElevation(TrailElevationFillError)

    public var description: String {
        switch self {
        case .noSources: "no source images given"
        case let .sourceMissing(path): "\(path): no such file"
        case let .sourceEmpty(path): "\(path): the file is empty"
        case let .sourceUnreadable(path, error): "\(path): \(error)"
        case let .georeference(error): error.description
        case let .trailElevation(error): "the trails' ascent and grades: \(error)"
        case let .outsideMercator(path, bounds):
            "\(path): the source covers \(bounds), which lies outside the Web Mercator range (latitudes ±85.05°, longitudes ±180°)"
        case let .zoomOrder(min, max): "minzoom \(min) is greater than maxzoom \(max)"
        case let .zoomTooHigh(z): "zoom \(z) is out of range: zoom levels go from 0 to \(TileID.maxZoom)"
        case let .tooManyTiles(count, maxZoom):
            "the sources at maxzoom \(maxZoom) would make about \(count) tiles; lower the highest zoom or cut the sources"
        case let .store(error): error.description
        case let .pixels(path, reason): "\(path): \(reason)"
        case let .pngRowsTooWide(path, width, bytes, limit):
            """
            \(path): its rows are \(width) pixels wide, and decoding them takes \(bytes >> 20) MB, more than half of the memory limit \
            (\(limit >> 20) MB); raise it, or convert the PNG to a tiled GeoTIFF (gdal_translate -co TILED=YES), which is read window by \
            window
            """
        case let .encode(tile, error): "tile \(tile): \(error)"
        case let .invalidOption(problem): problem.description
        case let .source(error): error.description
        case .cancelled: "the build was cancelled"
        case let .sourceList(path, reason): "\(path): \(reason)"
        case let .manifest(path, field, message): field.map { "\(path): \($0): \(message)" } ?? "\(path): \(message)"
        case let .layer(message): message
        case let .sourceOutsideRegion(path, layer, bounds):
            "\(path) (layer \(layer)): the source does not cover any tile of its zooms: it lies outside the region's bounds \(bounds)"
        case let .merge(path, reason): "\(path): \(reason)"
        case let .notAShardPart(path): "\(path): not a part of a sharded build (it records no shard): build the parts as shards"
        case let .update(path, problem): "\(path): \(problem)"
        case let .trails(error): error.description
        case let .trailDrawing(tile, error): "trails of tile \(tile): \(error)"
        case let .trailStore(error): error.description
        case let .terrain(problem): problem.description
        case .trailsOverlayNotSharded: "a trails-only overlay is built on one machine: it cannot be cut in shard parts"
        case let .partWithoutTrails(path):
            "\(path): this part of a build with trails holds no trails to merge; build the parts again with this version"
        }
    }
}
