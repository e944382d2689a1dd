import ArgumentParser
import BundleBuilder
import Foundation
import Raster
import TileGeometry

extension Resampling: ExpressibleByArgument {}

/// `--png-deflater`.
enum PNGDeflaterArgument: String, ExpressibleByArgument, CaseIterable {
    case libdeflate, zlib

    var deflater: PNGEncodingOptions.Deflater { self == .zlib ? .zlib : .libdeflate }
}

/// `trailmap build`: sources → bundle.
struct BuildCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "build",
        abstract: "Cut georeferenced PNG sources into a Web Mercator tile pyramid in an MBTiles bundle."
    )

    @Option(name: .long, help: "A source PNG with a world file (.pgw/.wld) or JSON sidecar beside it; repeat for a mosaic.")
    var source: [String] = []

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

    @Option(name: .long, help: "CRS of world-file sources: EPSG:4326 or EPSG:3857.")
    var sourceCrs: String = "EPSG:4326"

    @Option(name: .long, help: "Tile size in pixels: 256 or 512.")
    var tileSize: Int = 256

    @Option(name: .long, help: ArgumentHelp(
        "Compression level for every tile PNG: libdeflate 0-12 (10-12 are near-optimal, much slower), zlib 0-9 (default 6). Default with libdeflate: per tile, 7 for palettes, 8 for truecolour, 10 for dense truecolour.",
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
        if source.isEmpty { throw ValidationError("give at least one --source FILE.png") }
        if CRS(parsing: sourceCrs) == nil { throw ValidationError("--source-crs must be EPSG:4326 or EPSG:3857") }
        if let threads, threads < 1 { throw ValidationError("--threads must be at least 1") }
        if !out.hasSuffix(".mbtiles") { throw ValidationError("--out must end in .mbtiles") }
        let maxLevel = pngDeflater.deflater.maxLevel
        if let pngLevel, !(0...maxLevel).contains(pngLevel) {
            throw ValidationError("--png-level must be 0...\(maxLevel) with --png-deflater \(pngDeflater.rawValue)")
        }
    }

    func run() throws {
        let logger = global.logger("trailmap.build")
        var options = BuildOptions(sources: source, name: name, minZoom: minzoom, maxZoom: maxzoom, output: out)
        options.resampling = resampling
        if let threads { options.threads = threads }
        options.memoryLimit = memoryLimit.bytes
        options.worldFileCRS = CRS(parsing: sourceCrs) ?? .epsg4326
        options.tileSize = tileSize
        options.encoding = BuildOptions.encoding(level: pngLevel, deflater: pngDeflater.deflater, search: pngSearch)
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
}
