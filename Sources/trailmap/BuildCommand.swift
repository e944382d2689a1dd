import ArgumentParser
import BundleBuilder
import Foundation
import Raster
import SourceReaders
import TileGeometry

extension Resampling: ExpressibleByArgument {}
extension BuildEffort: ExpressibleByArgument {}

/// `--png-deflater`.
enum PNGDeflaterArgument: String, ExpressibleByArgument, CaseIterable {
    case libdeflate, zlib

    var deflater: PNGEncodingOptions.Deflater { self == .zlib ? .zlib : .libdeflate }
}

/// `trailmap build`: sources → bundle.
struct BuildCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "build",
        abstract: "Cut georeferenced rasters (GeoTIFF, COG, VRT, JPEG 2000, PNG + world file, anything GDAL reads, in any CRS) into a Web Mercator tile pyramid in an MBTiles bundle."
    )

    @Option(name: .long, help: "A source raster (GeoTIFF, COG, VRT, JPEG 2000, PNG/JPEG + world file, ...) or a folder of them; repeat for a mosaic (later sources over earlier ones).")
    var source: [String] = []

    @Option(name: .long, help: ArgumentHelp("A text file of source paths, one a line (# comments; relative to the file's folder), added after the --source ones.", valueName: "file"))
    var sourceList: String?

    @Option(name: .long, help: "Display name of the region.")
    var name: String

    @Option(name: .long, help: "Lowest zoom level (0-22).")
    var minzoom: Int

    @Option(name: .long, help: "Highest zoom level (0-22).")
    var maxzoom: Int

    @Option(name: .long, help: "Output .mbtiles path.")
    var out: String

    @Option(name: .long, help: "nearest, bilinear or average.")
    var resampling: Resampling = .average

    @Option(name: .long, help: "Worker threads (default: every core).")
    var threads: Int?

    @Option(name: .long, help: "Memory the build may use, e.g. 512MB.")
    var memoryLimit: ByteSize = ByteSize(bytes: 512 << 20)

    @Option(name: .long, help: ArgumentHelp("The sources' CRS, overriding what they declare: an EPSG code (EPSG:32613), WKT or a PROJ string. Default: what each source declares; EPSG:4326 for world files.", valueName: "crs"))
    var sourceCrs: String?

    @Option(name: .long, help: ArgumentHelp("Nodata value(s) of the sources, overriding theirs: one for every band or one per colour band (V or V,V,V); such pixels are transparent.", valueName: "values"))
    var srcNodata: String?

    @Option(name: .long, help: ArgumentHelp("The range of 16-bit or floating-point bands mapped to 0-255 (default: each source's band minimum and maximum).", valueName: "min,max"))
    var scale: String?

    @Option(name: .long, help: "Tile size in pixels: 256 or 512.")
    var tileSize: Int = 256

    @Option(name: .long, help: ArgumentHelp(
        "Build time against bundle bytes: fast (libdeflate level 6), balanced (7, the default), small (per tile 7/8/10, ~4x the time for ~9% fewer bytes), smallest (12). On a US relief GeoTIFF z0-7 against gdal2tiles: 0.21x/0.90x, 0.29x/0.87x, 1.2x/0.79x of its time/bytes.",
        valueName: "effort"))
    var effort: BuildEffort = BuildOptions.defaultEffort

    @Option(name: .long, help: ArgumentHelp(
        "Compression level for every tile PNG: libdeflate 0-12 (10-12 are near-optimal, much slower), zlib 0-9 (default 6). Overrides --effort.",
        valueName: "level"))
    var pngLevel: Int?

    @Option(name: .long, help: "Deflate implementation for tile PNGs: libdeflate or zlib (the encoder before libdeflate).")
    var pngDeflater: PNGDeflaterArgument = .libdeflate

    @Flag(name: .long, help: "Per tile, rank every PNG filter on a sample and compare palette with truecolour (slower; larger than the default on the benchmark).")
    var pngSearch = false

    @Option(name: .long, help: "Bundle description.")
    var description: String = ""

    @Option(name: .long, help: "Attribution text shown by map viewers.")
    var attribution: String = ""

    @Option(name: .long, help: "Bundle version.")
    var bundleVersion: String = "1.0.0"

    @OptionGroup var global: GlobalOptions

    func validate() throws {
        if source.isEmpty && sourceList == nil { throw ValidationError("give at least one --source FILE (or FOLDER), or --source-list FILE") }
        if let sourceCrs {
            do { _ = try SpatialReference(userInput: sourceCrs) } catch { throw ValidationError("--source-crs: \(error)") }
        }
        if let srcNodata, Self.numbers(srcNodata) == nil {
            throw ValidationError("--src-nodata must be a number or comma-separated numbers, e.g. 0 or 255,255,255")
        }
        if let scale {
            guard let v = Self.numbers(scale), v.count == 2 else { throw ValidationError("--scale must be MIN,MAX, e.g. 0,4000") }
            if !(v[0] < v[1]) { throw ValidationError("--scale \(scale): MIN must be less than MAX") }
        }
        if let threads, threads < 1 { throw ValidationError("--threads must be at least 1") }
        if !out.hasSuffix(".mbtiles") { throw ValidationError("--out must end in .mbtiles") }
        let maxLevel = pngDeflater.deflater.maxLevel
        if let pngLevel, !(0...maxLevel).contains(pngLevel) {
            throw ValidationError("--png-level must be 0...\(maxLevel) with --png-deflater \(pngDeflater.rawValue)")
        }
    }

    func run() throws {
        let logger = global.logger("trailmap.build")
        var sources = source
        if let sourceList { sources += try SourceList.read(listFile: sourceList) }
        var options = BuildOptions(sources: sources, name: name, minZoom: minzoom, maxZoom: maxzoom, output: out)
        options.resampling = resampling
        if let threads { options.threads = threads }
        options.memoryLimit = memoryLimit.bytes
        options.read.crs = try sourceCrs.map { try SpatialReference(userInput: $0) }
        options.read.nodata = srcNodata.flatMap(Self.numbers)
        if let v = scale.flatMap(Self.numbers), v.count == 2 { options.read.scale = (v[0], v[1]) }
        options.tileSize = tileSize
        options.encoding = BuildOptions.encoding(effort: effort, level: pngLevel, deflater: pngDeflater.deflater, search: pngSearch)
        options.description = description
        options.attribution = attribution
        options.version = bundleVersion
        let printer = ProgressPrinter(quiet: global.quiet)
        let report = try BundleBuilder(options: options, logger: logger).build { printer.report($0) }
        if !global.quiet {
            let ratio = report.uniqueImages > 0 ? Double(report.tilesStored) / Double(report.uniqueImages) : 1
            print(String(format: "%@: %d tiles stored (%d distinct, dedup %.2fx), %@ of tiles, %.1f s, %.0f tiles/s",
                         report.output, report.tilesStored, report.uniqueImages, ratio,
                         ByteSize.format(report.bytesStored), report.seconds,
                         Double(report.tilesConsidered) / max(report.seconds, 0.001)))
        }
    }

    /// Comma- or space-separated numbers, or nil when any is not one.
    static func numbers(_ text: String) -> [Double]? {
        let parts = text.split(whereSeparator: { $0 == "," || $0 == " " })
        let values = parts.compactMap { Double($0) }
        return !parts.isEmpty && values.count == parts.count && values.allSatisfy(\.isFinite) ? values : nil
    }
}
