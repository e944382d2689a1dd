import SourceReaders
import Terrain
import TileGeometry

/// A layer of kind `terrain`: elevation rasters (DEMs) and what is made of them, either drawn
/// layers (hillshade, colour relief, or the relief shaded by the hillshade) or terrain tiles
/// (elevations encoded as MapLibre's `raster-dem` reads them). Every zoom is computed from the
/// DEMs at that zoom's own resolution.
public struct TerrainLayer: Sendable {
    public var name = "terrain"
    public var title = "Terrain"
    /// The DEM files (any raster GDAL reads), later ones filling the voids of earlier ones'.
    public var sources: [String]
    /// The zooms the layer serves (default: the build's).
    public var zooms: ClosedRange<Int>?
    /// Shaded relief, when drawn.
    public var hillshade: HillshadeOptions?
    /// A colour ramp on the elevations, when drawn, and the file it came from.
    public var colorRelief: ColorRamp?
    public var colorReliefPath: String?
    /// A factor on the drawn layer's alpha (0, 1]; with a colour relief, how strongly the
    /// hillshade darkens it.
    public var opacity: Double = 1
    /// Contour lines, when drawn: over the hillshade or colour relief, or alone.
    public var contours: ContourOptions?
    /// Terrain tiles instead of drawn layers: the elevations in this encoding.
    public var encoding: TerrainEncoding?
    /// The hillshade laid on the bundle's layers of source images (`TerrainShading`) instead of
    /// a bundle of its own: multiplied into their colours or drawn over them, with `opacity`.
    public var blend: TerrainBlend?
    /// The DEMs' CRS, replacing what they declare.
    public var crs: SpatialReference?
    /// The unit of the DEMs' values, replacing what their bands name.
    public var verticalUnit: VerticalUnit?

    public init(sources: [String]) {
        self.sources = sources
    }

    /// What the layer makes, for logs and the bundle's layer record.
    var products: String {
        if let encoding { return "terrain tiles (\(encoding.metadataValue))" }
        return [
            hillshade.map { "hillshade (\($0.mode.rawValue))" }, colorRelief.map { _ in "colour relief" },
            contours.map { _ in "contours" }
        ]
        .compactMap { $0 }.joined(separator: " and ")
    }

    /// Checks what needs no file: something to make, option ranges.
    func validate() throws(BuildError) {
        guard !sources.isEmpty else { throw .terrain(.noDEM) }
        if encoding == nil && hillshade == nil && colorRelief == nil && contours == nil { throw .terrain(.nothingToMake) }
        if encoding != nil && (hillshade != nil || colorRelief != nil || contours != nil) { throw .terrain(.tilesAndDrawing) }
        if blend != nil && (hillshade == nil || colorRelief != nil || contours != nil || encoding != nil) {
            throw .terrain(.blendNeedsHillshade)
        }
        if let problem = hillshade?.problem { throw .terrain(.hillshade(problem)) }
        if let problem = contours?.problem { throw .terrain(.contours(problem)) }
        guard opacity > 0, opacity <= 1 else { throw .terrain(.opacity(opacity)) }
    }
}

/// What is wrong with a terrain layer (the CLI and the manifest reader word it).
public enum TerrainLayerProblem: Error, Sendable, Equatable, CustomStringConvertible {
    /// The layer names no DEM.
    case noDEM
    /// Neither a drawing (hillshade, colour relief) nor terrain tiles is asked for.
    case nothingToMake
    /// Terrain tiles are a bundle of their own: they do not mix with drawn layers.
    case tilesAndDrawing
    /// Terrain tiles are lossless: PNG or lossless WebP.
    case lossyTerrainTiles
    case hillshade(HillshadeOptionProblem)
    case opacity(Double)
    /// Terrain layers are built alone (no raster layers of sources beside them).
    case mixedWithSources
    /// A terrain build is made whole: not cut in shard parts, not updated in place.
    case notShardedOrUpdated
    case colorRamp(ColorRampError)
    case contours(ContourOptionProblem)
    /// A tile's contour lines cannot be made (too many levels in it, for one).
    case contourTile(TileID, ContourError)
    /// A hillshade blended into the layers below is the layer's only drawing (no colour relief,
    /// contours or terrain tiles), and it needs a hillshade.
    case blendNeedsHillshade
    /// A hillshade to blend into the layers below, but the build has no layer of source images.
    case blendWithoutLayers

    public var description: String {
        switch self {
        case .noDEM: "the terrain layer names no DEM"
        case .nothingToMake: "the terrain layer makes nothing: ask for a hillshade, a colour relief, contours or terrain tiles"
        case .tilesAndDrawing: "terrain tiles are a bundle of their own: build the hillshade, colour relief or contours in another bundle"
        case .lossyTerrainTiles: "terrain tiles must be lossless: PNG, or lossless WebP"
        case let .hillshade(p): "hillshade: \(p)"
        case let .opacity(o): "the terrain layer's opacity \(o) must be more than 0 and at most 1"
        case .mixedWithSources:
            "a terrain layer is built in a bundle of its own, without layers of source images, unless its hillshade is blended into them"
        case .notShardedOrUpdated: "a terrain bundle is built whole: it cannot be cut in shard parts or updated in place"
        case let .colorRamp(e): e.description
        case let .contours(p): "contours: \(p)"
        case let .contourTile(t, e): "contours of tile \(t): \(e)"
        case .blendNeedsHillshade:
            "a terrain layer blended into the layers below draws a hillshade only: no colour relief, contours or terrain tiles"
        case .blendWithoutLayers: "the terrain layer's hillshade is blended into the layers below, but there is no layer of source images"
        }
    }
}
