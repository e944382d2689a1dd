import ArgumentParser
import Foundation
import Raster
import TileGeometry
import TileStore

struct InspectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Show a bundle's or PMTiles archive's metadata, levels of detail, zoom levels, tile counts, bytes and deduplication.")

    @Argument(help: "The .mbtiles or .pmtiles file.") var file: String
    @Flag(name: .long, help: "Print JSON.") var json = false

    func run() throws {
        if PMTilesFormat.isArchive(path: file) { return try inspectArchive() }
        let reader = try BundleReader(path: file)
        let pairs = try reader.metadataPairs()
        let levels = try reader.zoomLevels()
        let images = try reader.storedImages()
        if json {
            try Self.printJSON(
                inspection(
                    pairs: pairs, layout: reader.layout.rawValue, fileBytes: reader.fileSize, levels: levels,
                    storedImages: images.count, storedBytes: images.bytes))
            return
        }
        print("\(file) (\(reader.layout.rawValue) layout, \(ByteSize.format(reader.fileSize)))")
        Self.printDetails(pairs: pairs, levels: levels)
        Self.printTotal(
            tiles: levels.reduce(0) { $0 + $1.tiles }, bytes: levels.reduce(0) { $0 + $1.bytes },
            stored: images.count, storedBytes: images.bytes, noun: "images")
        if let trails = TrailsInspection.line(file) { print(trails) }
    }

    /// The dedup ratio: tiles addressed per stored image (1 with none stored).
    static func dedupRatio(tiles: Int, stored: Int) -> Double { stored > 0 ? Double(tiles) / Double(stored) : 1 }

    /// The `total:` line of `inspect` (`noun`: what is stored once, images or contents).
    static func printTotal(tiles: Int, bytes: Int, stored: Int, storedBytes: Int, noun: String) {
        print(
            String(
                format: "total: %d tiles, %@; %d distinct %@, %@ stored; dedup ratio %.2fx",
                tiles, ByteSize.format(bytes), stored, noun, ByteSize.format(storedBytes), dedupRatio(tiles: tiles, stored: stored)))
    }

    /// The format as `inspect` names it: TrailMap's name, or what the metadata says.
    static func format(_ pairs: [String: String]) -> String {
        pairs["format"].flatMap(TileFormat.init(metadata:))?.rawValue ?? "unknown (\(pairs["format"] ?? "none"))"
    }

    /// The tile size: without the key (bundles of other tools), 256 px, as the server assumes; nil for a bad value.
    static func tileSize(_ pairs: [String: String]) -> Int? {
        pairs[BundleMetadata.tileSizeKey] == nil ? 256 : BundleMetadata.tileSize(pairs)
    }

    /// The `--json` document (without its PMTiles part).
    func inspection(
        pairs: [String: String], layout: String, fileBytes: Int, levels: [ZoomLevelSummary], storedImages: Int,
        storedBytes: Int
    ) -> BundleInspection {
        let tiles = levels.reduce(0) { $0 + $1.tiles }
        let layers = BundleLayersOutput.json(metadata: pairs)
        var inspection = BundleInspection(
            file: file, layout: layout, fileBytes: fileBytes, format: Self.format(pairs), tileSize: Self.tileSize(pairs),
            metadata: pairs, tiles: tiles, tileBytes: levels.reduce(0) { $0 + $1.bytes }, storedImages: storedImages,
            storedBytes: storedBytes, dedupRatio: Self.dedupRatio(tiles: tiles, stored: storedImages),
            zoomLevels: levels.map {
                BundleInspection.Level(
                    zoom: $0.zoom, tiles: $0.tiles, bytes: $0.bytes, minX: $0.minX, maxX: $0.maxX, minY: $0.minY, maxY: $0.maxY)
            }, layers: layers.layers, layersProblem: layers.layersProblem)
        (inspection.trails, inspection.trailsProblem) = TrailsInspection.read(file)
        return inspection
    }

    static func printJSON(_ object: BundleInspection) throws {
        try JSONOutput.print(object)
    }

    /// The tiles line, the metadata, the levels of detail and the zoom level table.
    static func printDetails(pairs: [String: String], levels: [ZoomLevelSummary]) {
        let format = format(pairs)
        let size =
            tileSize(pairs).map { "\($0) px" }
            ?? "size unknown (\(BundleMetadata.tileSizeKey) \"\(pairs[BundleMetadata.tileSizeKey] ?? "")\")"
        let note = format == TileFormat.jpg.rawValue ? " (JPEG; PNG where a tile has transparency)" : ""
        print("tiles: \(format), \(size)\(note)")
        print("metadata:")
        // A valid layer list reads better as the section below; an invalid one is shown as it is.
        let hidden = BundleLayer.problem(metadata: pairs) == nil ? BundleLayer.metadataKey : nil
        for (k, v) in pairs.sorted(by: { $0.key < $1.key }) where k != hidden { print("  \(k): \(v)") }
        BundleLayersOutput.lines(metadata: pairs).forEach { print($0) }
        print("zoom levels:")
        print("  zoom       tiles        bytes   columns        rows")
        for l in levels {
            print(
                String(
                    format: "  %4d  %10d  %11@   %@  %@", l.zoom, l.tiles, ByteSize.format(l.bytes),
                    "\(l.minX)-\(l.maxX)".padding(toLength: 12, withPad: " ", startingAt: 0), "\(l.minY)-\(l.maxY)"))
        }
    }
}

struct VerifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract:
            """
            Check schema, metadata, SQLite integrity (a PMTiles archive: header, metadata, every directory entry) and that every tile \
            decodes in the bundle's format and tile size; exit 1 with a list of problems otherwise.
            """
    )

    @Argument(help: "The .mbtiles or .pmtiles file.") var file: String
    @Flag(name: .long, help: "Print JSON: the file, ok, the tiles checked and the problems (exit 1 still when there are any).") var json =
        false

    func run() throws {
        if PMTilesFormat.isArchive(path: file) { return try verifyArchive() }
        var tiles = 0
        // An unreadable bundle is reported by the verifier; its tiles are then never reached.
        let check = TileContentCheck(metadata: (try? BundleReader(path: file).metadataPairs()) ?? [:])
        let problems =
            BundleVerifier.verify(path: file) { _, data in
                tiles += 1
                return check.problem(data)
            } + TrailsOutput.verifyProblems(file)
        if json {
            try JSONOutput.print(VerifyOutput(file: file, ok: problems.isEmpty, tiles: tiles, problems: problems))
            if !problems.isEmpty { throw ExitCode.failure }
            return
        }
        if problems.isEmpty {
            print("\(file): OK (\(tiles) tiles decode, integrity ok, metadata complete)")
            return
        }
        try Self.fail(file, problems)
    }

    /// Lists the problems on stderr and exits 1.
    static func fail(_ file: String, _ problems: [String]) throws -> Never {
        var err = FileHandle.standardError
        print("\(file): \(problems.count) problem(s):", to: &err)
        for p in problems { print("  - \(p)", to: &err) }
        throw ExitCode.failure
    }
}

struct ExtractCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "extract", abstract: "Cut the tiles of a bounding box into a new, smaller bundle.")

    @Argument(help: "The source .mbtiles file.") var file: String
    @Option(name: .long, parsing: .unconditional, help: "west,south,east,north in degrees.", transform: BoundsArgument.parseBBox)
    var bbox: BoundsArgument
    @Option(name: .long, help: "Output .mbtiles path.") var out: String
    @Option(name: .long, help: "Name of the new bundle (default: the source's).") var name: String?
    @Flag(name: .long, help: "Print JSON.") var json = false

    func validate() throws {
        if !out.hasSuffix(".mbtiles") { throw ValidationError("--out must end in .mbtiles") }
        if URL(fileURLWithPath: out).standardized.path == URL(fileURLWithPath: file).standardized.path {
            throw ValidationError("--out must differ from the source file")
        }
    }

    func run() throws {
        let stats = try BundleExtractor.extract(from: file, bbox: bbox.bounds, to: out, name: name)
        if !json { print("\(out): \(stats.tiles) tiles (\(stats.uniqueImages) distinct), \(ByteSize.format(stats.storedBytes))") }
        let trails = try TrailsOutput.copyTrails(from: file, to: out, within: bbox.bounds, quiet: json)
        if json {
            try JSONOutput.print(
                CommandReports.Extract(
                    file: out, tiles: stats.tiles, storedImages: stats.uniqueImages, tileBytes: stats.tileBytes,
                    storedBytes: stats.storedBytes, trails: trails))
        }
    }
}

extension FileHandle: @retroactive TextOutputStream {
    public func write(_ string: String) { write(Data(string.utf8)) }
}
