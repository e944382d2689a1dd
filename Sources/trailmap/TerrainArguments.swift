import ArgumentParser
import BundleBuilder
import Foundation
import SourceReaders
import Terrain

extension HillshadeOptions.Mode: ExpressibleByArgument {}
extension VerticalUnit: ExpressibleByArgument {}
extension TerrainBlend: ExpressibleByArgument {}

/// `trailmap build`'s terrain options: DEMs and what is made of them (a drawn hillshade or
/// colour relief, or terrain tiles with `--format terrarium|terrain-rgb`).
struct TerrainArguments: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            """
            An elevation raster (DEM: GeoTIFF, COG, VRT, SRTM .hgt, anything GDAL reads, in any CRS; nodata as voids; metres or feet); \
            repeat for more (later ones over earlier ones). Built in a bundle of its own: --hillshade and --color-relief draw it, --format \
            terrarium or terrain-rgb makes terrain tiles; with --source, its --hillshade shades the source images instead \
            (--terrain-blend).
            """,
            valueName: "path"))
    var dem: [String] = []

    @Flag(name: .long, help: "Draw the DEM's shaded relief (Horn's method as gdaldem hillshade), computed at each zoom's own resolution.")
    var hillshade = false

    @Option(
        name: .long,
        help: ArgumentHelp(
            """
            The hillshade's light: single (one light from --azimuth, the default), multidirectional or combined (as gdaldem's \
            -multidirectional and -combined).
            """,
            valueName: "mode"))
    var hillshadeMode: HillshadeOptions.Mode?

    @Option(name: .long, help: ArgumentHelp("The light's direction in degrees clockwise from north (default 315).", valueName: "degrees"))
    var azimuth: Double?

    @Option(name: .long, help: ArgumentHelp("The light's height above the horizon in degrees (default 45).", valueName: "degrees"))
    var altitude: Double?

    @Option(name: .long, help: ArgumentHelp("Vertical exaggeration of the hillshade (default 1).", valueName: "factor"))
    var zFactor: Double?

    @Option(
        name: .long,
        help: ArgumentHelp(
            """
            Colour the DEM with a ramp file in gdaldem color-relief's format (elevation or N%, R G B [A]; nv for voids); with --hillshade, \
            the relief is shaded by it.
            """,
            valueName: "ramp"))
    var colorRelief: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            """
            The drawn terrain's opacity, more than 0 and at most 1 (with --color-relief and --hillshade: how strongly the shade darkens \
            the colours). Default 1.
            """,
            valueName: "0-1"))
    var terrainOpacity: Double?

    @Option(
        name: .long,
        help: ArgumentHelp(
            """
            With --source: how the --hillshade is laid on the source images, multiply (the default: colours darkened by the shade) or over \
            (the grey shade drawn over them), as strongly as --terrain-opacity says. Pixels outside the DEM or on its voids are left as \
            they are.
            """,
            valueName: "blend"))
    var terrainBlend: TerrainBlend?

    @Option(
        name: .long,
        help: ArgumentHelp(
            """
            Draw contour lines every this many metres (over --hillshade or --color-relief, or alone on transparent tiles), index contours \
            heavier.
            """,
            valueName: "metres"))
    var contours: SignedNumber<Double>?

    @Option(
        name: .long,
        help: ArgumentHelp("Every this many contour levels an index contour, drawn heavier (default 5; 0 for none).", valueName: "count"))
    var contourIndexEvery: SignedNumber<Int>?

    @Option(
        name: .long,
        help: ArgumentHelp(
            """
            The unit of the DEM's values, replacing what the file names: metre, foot or us-foot (default: the band's unit; none is \
            metres).
            """,
            valueName: "unit"))
    var demUnit: VerticalUnit?

    @Option(
        name: .long, help: ArgumentHelp("Terrain tiles' image format: png (the default) or webp (lossless).", valueName: "format"),
        transform: TerrainImageArgument.parse)
    var terrainImage: TerrainImageArgument?

    /// The terrain encoding a `--format` value names: `terrarium` or `terrain-rgb` (Mapbox's).
    static func encoding(name: String) -> TerrainEncoding? {
        switch name.lowercased() {
        case "terrarium": .terrarium
        case "terrain-rgb", "mapbox": .mapbox
        default: nil
        }
    }

    /// Whether any terrain option is given.
    var anyGiven: Bool {
        !dem.isEmpty || terrainBlend != nil || hillshade || hillshadeMode != nil || azimuth != nil || altitude != nil || zFactor != nil
            || colorRelief != nil || terrainOpacity != nil || demUnit != nil || terrainImage != nil
            || contours != nil || contourIndexEvery != nil
    }

    /// Checks the options against each other and the build's `--format`.
    func check(format: TileFormatArgument?, hasSources: Bool) throws {
        let tiles = format?.terrain
        if dem.isEmpty {
            if anyGiven { throw ValidationError("--hillshade, --color-relief, --contours and the other terrain options apply to --dem") }
            if tiles != nil { throw ValidationError("--format \(format!) makes terrain tiles from a --dem") }
            return
        }
        if hasSources {
            guard hillshade, tiles == nil, colorRelief == nil, contours == nil else {
                throw ValidationError(
                    """
                    --dem with --source shades the source images with --hillshade only: drop --color-relief, --contours and --format \
                    terrarium/terrain-rgb (build them in a bundle of their own)
                    """
                )
            }
        } else if terrainBlend != nil {
            throw ValidationError("--terrain-blend lays the --hillshade on --source images: give them, or drop --terrain-blend")
        }
        if tiles == nil && !hillshade && colorRelief == nil && contours == nil {
            throw ValidationError(
                """
                --dem needs something to make: --hillshade, --color-relief, --contours, or --format terrarium or terrain-rgb for terrain \
                tiles
                """
            )
        }
        if tiles != nil && (hillshade || colorRelief != nil || contours != nil) {
            throw ValidationError(
                """
                --format \(format!) makes terrain tiles, a bundle of their own: drop --hillshade, --color-relief and --contours (build \
                them in another bundle)
                """
            )
        }
        if contourIndexEvery != nil && contours == nil { throw ValidationError("--contour-index-every applies to --contours") }
        if let problem = contourOptions?.problem {
            switch problem {
            case let .levels(.indexEvery(n), _):
                throw ValidationError("--contour-index-every must be 0 (no index contours) or more, not \(n)")
            case let .levels(.interval(v), _): throw ValidationError("--contours must be a number of metres above 0, not \(v)")
            default: throw ValidationError("--contours: \(problem)")
            }
        }
        if !hillshade && (hillshadeMode != nil || azimuth != nil || altitude != nil || zFactor != nil) {
            throw ValidationError("--hillshade-mode, --azimuth, --altitude and --z-factor apply to --hillshade")
        }
        if terrainImage != nil, tiles == nil { throw ValidationError("--terrain-image applies to --format terrarium or terrain-rgb") }
        if let problem = options.problem {
            switch problem {
            case .azimuth: throw ValidationError("--azimuth: \(problem)")
            case .altitude: throw ValidationError("--altitude: \(problem)")
            case .zFactor: throw ValidationError("--z-factor: \(problem)")
            }
        }
        if let o = terrainOpacity, !(o > 0 && o <= 1) {
            throw ValidationError("--terrain-opacity must be more than 0 and at most 1, not \(o)")
        }
    }

    private var contourOptions: ContourOptions? {
        contours.map { ContourOptions(interval: $0.value, indexEvery: contourIndexEvery?.value ?? 5) }
    }

    private var options: HillshadeOptions {
        var h = HillshadeOptions()
        if let hillshadeMode { h.mode = hillshadeMode }
        if let azimuth { h.azimuth = azimuth }
        if let altitude { h.altitude = altitude }
        if let zFactor { h.zFactor = zFactor }
        return h
    }

    /// The terrain layer the options describe (nil without `--dem`), in a bundle of its own or,
    /// with `hasSources`, shading the source images (`--source-crs` is theirs, not the DEM's); a ramp that cannot be read
    /// or parsed is an error naming the file and line.
    /// `hasSources`: the build has source images, which the hillshade shades (`TerrainLayer.blend`).
    func layer(format: TileFormatArgument?, crs: SpatialReference?, hasSources: Bool = false) throws -> TerrainLayer? {
        guard !dem.isEmpty else { return nil }
        var layer = TerrainLayer(sources: dem)
        if hasSources { layer.blend = terrainBlend ?? .multiply }
        layer.encoding = format?.terrain
        if hillshade { layer.hillshade = options }
        if let colorRelief {
            do { layer.colorRelief = try ColorRamp.load(path: colorRelief) } catch { throw CommandFailure("--color-relief: \(error)") }
            layer.colorReliefPath = colorRelief
        }
        if let terrainOpacity { layer.opacity = terrainOpacity }
        layer.contours = contourOptions
        layer.verticalUnit = demUnit
        layer.crs = hasSources ? nil : crs
        return layer
    }
}

/// A number option that may be negative: the value as given, even with the space that
/// `NegativeNumberArguments` puts before a negative number, so that the option's own check
/// words what is wrong with it.
struct SignedNumber<Value: LosslessStringConvertible & Sendable>: ExpressibleByArgument, Sendable {
    let value: Value

    init?(argument: String) {
        guard let v = Value(argument.trimmingCharacters(in: .whitespaces)) else { return nil }
        value = v
    }
}
