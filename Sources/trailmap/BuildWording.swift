import BundleBuilder
import SourceReaders
import Terrain
import TileGeometry

/// The CLI's wording of the build's errors and notices (BundleBuilder, SourceReaders): options
/// named as the flags that set them, and advice about flags. The libraries' own messages name
/// no flag.
enum BuildWording {
    /// An update's tile settings named as the flags that set them, the rest as the library names them.
    static let settingFlags: [String: String] = SettingDifference.words.merging([
        "allowGaps": "--allow-gaps", "clip": "--bounds", "crs": "--source-crs", "nodata": "--src-nodata", "scale": "--scale",
        "gcpTransform": "--gcp-transform", "bands": "--bands", "openOptions": "--open-option"
    ]) { _, flag in flag }

    /// `error` with the CLI's words when it is a build's or a source reader's, else itself.
    static func reported(_ error: any Error) -> any Error {
        switch error {
        case let e as BuildError: Message(text: message(e))
        case let e as SourceReaderError: Message(text: message(e))
        default: error
        }
    }

    static func message(_ e: BuildError) -> String {
        switch e {
        case .noSources: "no source images given (use --source FILE, once per source, or --source FOLDER)"
        case let .tooManyTiles(count, maxZoom):
            "the sources at maxzoom \(maxZoom) would make about \(count) tiles; lower --maxzoom or cut the sources"
        case let .pngRowsTooWide(path, width, bytes, limit):
            """
            \(path): its rows are \(width) pixels wide, and decoding them takes \(bytes >> 20) MB, more than half of --memory-limit \
            (\(limit >> 20) MB); raise it, or convert the PNG to a tiled GeoTIFF (gdal_translate -co TILED=YES), which is read window by \
            window
            """
        case let .invalidOption(problem): message(problem)
        case let .source(error): message(error)
        case let .notAShardPart(path): "\(path): not a part of a sharded build (it records no shard): build the parts with --shard K/N"
        case let .update(path, problem): "\(path): \(message(problem))"
        case let .terrain(.contourTile(tile, .tooManyLevels(count: count, limit: limit, interval: interval))):
            """
            contours of tile \(tile): an interval of \(interval) m crosses \(count) levels in this tile (at most \(limit)), whose lines \
            would fill it; nothing was written: give a wider --contours, or build with a manifest whose contours.zooms give zoom \(tile.z) \
            a wider interval
            """
        default: e.description
        }
    }

    static func message(_ p: BuildOptionProblem) -> String {
        switch p {
        case .threads: "--threads must be at least 1"
        case .memoryLimit: "--memory-limit must be at least 64MB"
        case .emptyName: "--name must not be empty"
        case .qualityForPNG: "--quality applies to webp and jpeg tiles, not png (lossless)"
        case let .quality(q): "--quality must be 1-100, not \(q)"
        case .qualityWithLossless: "--quality and --lossless exclude each other: lossless WebP keeps every pixel"
        case .losslessNotWebP: "--lossless applies to webp tiles only (png is always lossless, jpeg never)"
        case .updateWithShard: "--update and --shard exclude each other: update the merged bundle"
        case let .scale(min, max): "--scale \(min),\(max): MIN must be less than MAX"
        case let .shardCount(n): "--shard K/N: N must be at least 1, not \(n)"
        case let .shardIndex(k, n): "--shard K/N: K must be 1 to N (\(n)), not \(k)"
        case let .shardSyntax(text): "--shard must be K/N, e.g. 2/5 for the second of five parts, not \(text)"
        case .clipBounds, .tileSize: p.description // set by the manifest too: no one flag
        }
    }

    static func message(_ p: UpdateProblem) -> String {
        switch p {
        case .noSourcesRecorded: "it records no sources (it was not built by this version of TrailMap): run a full build without --update"
        case .shardPart: "it is one part of a sharded build: merge the parts (trailmap bundle merge) and update the result"
        case let .otherSettings(differing, builtBy):
            """
            it was built with other settings (\(SettingDifference.list(differing, words: settingFlags))): run a full build without \
            --update.
            """
                + UpdateProblem.builtBy(builtBy)
        case let .otherLayer(layer, name, recordedName):
            """
            its layer \(layer) is \"\(recordedName)\", and layer \(layer) of this build (\"\(name)\", named after its first --source) is \
            another one: none of its sources has the content or the file name of one \"\(recordedName)\" was built from; give the sources \
            of that layer, or run a full build without --update
            """
        case .unreadable: p.description
        }
    }

    static func message(_ e: SourceReaderError) -> String {
        switch e {
        case let .noCRS(path):
            "\(path): the raster declares no coordinate reference system; give one with --source-crs (an EPSG code, WKT or PROJ string)"
        case let .tooManyOpenFiles(path, reason):
            """
            \(path): GDAL cannot open it as a raster: too many open files (\(reason)): raise the limit (ulimit -n) or build with fewer \
            --threads
            """
        case let .tooFewGroundControlPoints(path, count, fit):
            """
            \(path): its ground control points cannot georeference it: \(count) point(s); --gcp-transform \(fit) needs at least \
            \(fit.minimumPoints)
            """
        case let .localCRS(path, reason):
            """
            \(path): cannot transform its coordinates to Web Mercator: its CRS is a local (engineering) one, not tied to the Earth: give \
            the real one with --source-crs (\(reason))
            """
        case let .containerOfRasters(path, names):
            SourceReaderError.bandLayout(
                path,
                "no bands of its own: it holds \(SourceReaderError.listed(names)); give the one to build as the source"
                    + (names.first.map { ", e.g. --source '\($0)'" } ?? ""))
        case let .bandChoiceCount(path, count): SourceReaderError.bandLayout(path, "--bands takes 1 to 4 band numbers, got \(count)")
        case let .bandChoiceOutOfRange(path, band, bandCount, names):
            SourceReaderError.bandLayout(path, "--bands \(band): the raster has bands 1-\(bandCount) (\(names))")
        case let .tooManyBands(path, count, names):
            SourceReaderError.bandLayout(path, "\(count) bands: \(names); choose them with --bands, e.g. --bands 1,2,3")
        case let .nodataCount(path, given, colourBands):
            "\(path): --src-nodata has \(given) values; the raster has \(colourBands) colour band(s): give 1 or \(colourBands)"
        case let .bandRangeUnreadable(path, reason):
            "\(path): reading pixels failed: \(reason) (while finding the bands' range; give it with --scale MIN,MAX)"
        default: e.description
        }
    }

    /// A build's notice as the CLI logs it.
    static func notice(_ n: BuildNotice) -> String {
        switch n {
        case let .optionNotApplied(.scaleOn8Bit(palette), path, others):
            """
            \(BuildNotice.sources(path, others: others)): --scale is not applied: its bands are \
            \(palette ? "palette indices" : "8-bit") (--scale maps 16-bit, 32-bit and floating-point bands to 8 bits)
            """
        case let .sharedScale(layer, min, max):
            "layer \(layer): non-8-bit bands mapped from \(min) to \(max), the sources' joint range (--scale chooses it)"
        case let .noTiles(output, minZoom, maxZoom):
            """
            \(output) holds no tiles: every pixel of the sources is transparent (nodata, alpha or mask) at zoom \(minZoom)-\(maxZoom); \
            check --src-nodata and --bands
            """
        case let .fewerRenderThreads(used, asked):
            "\(used) rendering threads instead of \(asked): that is what --memory-limit leaves room for"
        }
    }

    /// An error already worded for the terminal.
    struct Message: Error, CustomStringConvertible {
        let text: String
        var description: String { text }
    }
}
