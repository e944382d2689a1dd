import ArgumentParser
import Foundation
import TrailSources
import Trails

/// `trailmap trails ...`: trails as data in a bundle.
struct TrailsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trails",
        abstract: "Put trails from vector files into a bundle, search them, show one, check them.",
        subcommands: [TrailsAddCommand.self, TrailsSearchCommand.self, TrailsShowCommand.self, TrailsVerifyCommand.self]
    )
}

struct TrailsAddCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract:
            """
            Read line layers (GeoJSON, GPX, GeoPackage, Shapefile, KML, FlatGeobuf, OpenStreetMap...) and store them as the bundle's \
            trails, replacing any it held.
            """
    )

    @Argument(help: "The .mbtiles bundle to add the trails to.") var bundle: String
    @Option(name: .long, help: "A vector file GDAL reads (repeatable).") var trails: [String] = []
    @Option(name: .long, help: "A JSON field mapping (source fields to name, ref, difficulty, uses, surface).") var mapping: String?
    @Option(
        name: .long, help: "A built-in mapping: osm (the default for .osm and .pbf files) or generic.",
        transform: TrailMappingPresetArgument.parse)
    var preset: TrailMappingPresetArgument?
    @Flag(name: .long, help: "Join segments of one named trail (same name and ref, ends touching) into one trail.") var join = false
    @Option(name: .long, help: "How close ends must be to join, metres.") var joinToleranceM: Double = 5
    @Option(name: .long, help: "CRS of layers that declare none (EPSG code, WKT or PROJ string).") var assumeCrs: String?
    @Flag(name: .long, help: "Skip features with bad geometry or text (and list them) instead of failing.") var skipInvalid = false
    @Flag(name: .long, help: "Print JSON.") var json = false
    @OptionGroup var global: GlobalOptions

    func validate() throws {
        guard !trails.isEmpty else { throw ValidationError("Give at least one --trails FILE.") }
        if mapping != nil, preset != nil { throw ValidationError("Give --mapping or --preset, not both.") }
        guard joinToleranceM.isFinite, joinToleranceM >= 0, joinToleranceM <= 1000 else {
            throw ValidationError("--join-tolerance-m must be 0...1000.")
        }
        // Before reading what may be a large source.
        guard FileManager.default.fileExists(atPath: bundle) else { throw CommandFailure("\(bundle): no such bundle.") }
    }

    func run() throws {
        LogSetup.bootstrap(level: global.logLevel)
        var options = TrailIngestOptions(join: join)
        options.joinToleranceMetres = joinToleranceM
        options.assumedCRS = assumeCrs
        options.skipInvalidFeatures = skipInvalid
        do throws(TrailIngestError) {
            if let mapping { options.mapping = try TrailFieldMapping.load(path: mapping) }
            if let preset { options.mapping = preset == .osm ? .osm : .generic }
        } catch { throw CommandFailure(description: TrailsMessages.ingest(error)) }
        let result: TrailIngestResult
        do throws(TrailIngestError) { result = try TrailIngest.read(paths: trails, options: options) } catch {
            throw CommandFailure(description: TrailsMessages.ingest(error))
        }
        for problem in result.skipped { FileHandle.standardError.write(Data("skipped: \(TrailsMessages.ingest(problem))\n".utf8)) }
        do throws(TrailStoreError) { try TrailStoreWriter.write(result.trails, toBundle: bundle) } catch {
            throw CommandFailure(description: error.description)
        }
        if json {
            return try JSONOutput.print(
                CommandReports.TrailsAdded(
                    bundle: bundle, trails: result.trails.count, lineFeatures: result.lineFeatures, filteredOut: result.filteredOut,
                    joinedTrails: result.joinedTrails, duplicates: result.duplicates, skipped: result.skipped.map(TrailsMessages.ingest)))
        }
        var line = "\(bundle): \(result.trails.count) trails from \(result.lineFeatures) line features"
        if result.filteredOut > 0 { line += ", \(result.filteredOut) left out by the mapping's filter" }
        if result.joinedTrails > 0 { line += ", \(result.joinedTrails) joined from segments" }
        if result.duplicates > 0 { line += ", \(result.duplicates) duplicates dropped" }
        if !result.skipped.isEmpty { line += ", \(result.skipped.count) invalid features skipped" }
        print(line)
    }
}

/// The query options shared by `trails search` and `regions trails search`.
struct TrailQueryOptions: ParsableArguments {
    @Option(name: .long, help: "Name or ref words (any case and accents, the last word a prefix, typos tolerated).") var q: String?
    @Option(name: .long, parsing: .unconditional, help: "LAT,LON to search around (with --radius-km).", transform: PointArgument.parse)
    var near: PointArgument?
    @Option(name: .long, help: "Greatest distance from --near to the trail, km.") var radiusKm: Double?
    @Option(
        name: .long, parsing: .unconditional, help: "W,S,E,N in degrees (W > E crosses the antimeridian).",
        transform: TrailBoxArgument.parse)
    var bbox: TrailBoxArgument?
    @Option(
        name: .long, help: "Difficulties, comma-separated: easy, moderate, hard, expert, unknown.", transform: DifficultyListArgument.parse)
    var difficulty: [DifficultyListArgument] = []
    @Option(
        name: .long, help: "Uses every trail must allow, comma-separated: foot, bicycle, horse, motor_vehicle, ski.",
        transform: UseListArgument.parseUses)
    var uses: [UseListArgument] = []
    @Option(name: .long, help: "Uses no trail may allow, comma-separated.", transform: UseListArgument.parseExcludeUses) var excludeUses:
        [UseListArgument] = []
    @Option(name: .long, help: "Shortest length, km.") var minLengthKm: Double?
    @Option(name: .long, help: "Longest length, km.") var maxLengthKm: Double?
    @Option(name: .long, help: "Most ascent, metres (trails without elevation are left out).") var maxAscentM: Double?
    @Option(name: .long, help: "Steepest grade, percent (trails without elevation are left out).") var maxGradePct: Double?
    @Option(name: .long, help: "distance (with --near), length (longest first) or name.", transform: TrailQuery.Sort.parse) var sort:
        TrailQuery.Sort?
    @Option(name: .long, help: "Results per page (1...1000).") var limit: Int = 20
    @Option(name: .long, help: "The cursor a previous page printed.") var cursor: String?

    func query() throws -> TrailQuery {
        var query = TrailQuery()
        query.text = q
        if let near {
            query.near = LonLat(lon: near.longitude, lat: near.latitude)
        }
        query.radiusKm = radiusKm
        query.bbox = bbox?.box
        query.difficulties = difficulty.reduce(into: []) { $0.formUnion($1.difficulties) }
        query.uses = uses.union
        query.excludeUses = excludeUses.union
        query.minLengthKm = minLengthKm
        query.maxLengthKm = maxLengthKm
        query.maxAscentM = maxAscentM
        query.maxGradePct = maxGradePct
        if let sort { query.sort = sort }
        query.limit = limit
        query.cursor = cursor
        do { try query.validate() } catch { throw ValidationError(TrailsMessages.query(error)) }
        return query
    }
}

struct TrailsSearchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "search", abstract: "Search the trails of one or more bundles.")

    @Argument(help: "The .mbtiles bundles to search.") var bundles: [String]
    @OptionGroup var query: TrailQueryOptions
    @Flag(name: .long, help: "Print JSON.") var json = false

    func validate() throws {
        guard !bundles.isEmpty else { throw ValidationError("Give at least one bundle.") }
        _ = try query.query()
    }

    func run() throws {
        // Named bundles without trails are searched as empty, but said so (installed regions without trails are not).
        for bundle in bundles {
            do throws(TrailStoreError) { _ = try TrailIndex(bundle: bundle) } catch .noTrails {
                FileHandle.standardError.write(Data("\(bundle): holds no trails (add them with trailmap trails add)\n".utf8))
            } catch {
                throw CommandFailure(description: error.description)
            }
        }
        try TrailsOutput.search(try query.query(), bundles: bundles, json: json)
    }
}

struct TrailsShowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "show", abstract: "One trail in detail; its line as GPX or GeoJSON.")

    @Argument(help: "The .mbtiles bundle.") var bundle: String
    @Argument(help: "The trail id (16 hexadecimal digits, as search prints it).") var id: String
    @Option(name: .long, help: "Write the trail as a GPX track to this file.") var gpx: String?
    @Option(name: .long, help: "Write the trail as a GeoJSON feature to this file.") var geojson: String?
    @Flag(name: .long, help: "Print JSON.") var json = false

    func validate() throws {
        guard TrailID(id) != nil else { throw ValidationError("\(id) is not a trail id (16 hexadecimal digits).") }
    }

    func run() throws {
        try TrailsOutput.show(id: id, bundles: [bundle], gpx: gpx, geojson: geojson, json: json)
    }
}

struct TrailsVerifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify", abstract: "Check a bundle's trails tables: counts, spatial index, every geometry.")

    @Argument(help: "The .mbtiles bundle.") var bundle: String
    @Flag(name: .long, help: "Print JSON: the bundle, ok and the problems (exit 1 still when there are any).") var json = false

    func run() throws {
        let problems: [TrailProblem]
        do throws(TrailStoreError) { problems = try TrailIndex(bundle: bundle).verify() } catch {
            throw CommandFailure(description: error.description)
        }
        if json {
            try JSONOutput.print(CommandReports.TrailsVerified(bundle: bundle, ok: problems.isEmpty, problems: problems.map(\.description)))
            if !problems.isEmpty { throw ExitCode.failure }
            return
        }
        guard problems.isEmpty else {
            for p in problems { FileHandle.standardError.write(Data("\(bundle): \(p)\n".utf8)) }
            throw CommandFailure(description: "\(bundle): \(problems.count) problem\(problems.count == 1 ? "" : "s") in its trails")
        }
        print("\(bundle): trails OK")
    }
}
