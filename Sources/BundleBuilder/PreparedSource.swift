import Raster
import SourceReaders
import TileGeometry

/// How a layer's sources are drawn: their resampling, a factor on their alpha, and which layer
/// they belong to (the sheets of one layer are joined, their coverages adding up along shared
/// edges; layers are drawn over one another).
struct LayerStyle: Sendable, Equatable {
    var resampling: Resampling
    var opacity: Double = 1
    /// The layer's index in the build.
    var layer = 0
}

/// A source ready to render: where it lies, how it is drawn and how a rendering thread opens it.
struct PreparedSource: Sendable {
    let path: String
    /// Where it lies: one box, or two either side of the antimeridian.
    let mercatorParts: [MercatorBounds]
    let style: LayerStyle
    /// Opens the source for the calling thread (GDAL handles and PROJ transforms are per thread).
    let open: @Sendable () throws(BuildError) -> SourceLayer
}

extension PreparedSource {
    /// A source whose thread-local reader `makeReader` makes, mapped by its CRS and georeference.
    init(
        _ info: SourceInfo, style: LayerStyle,
        makeReader: @escaping @Sendable () throws(SourceReaderError) -> any SourceWindowReader
    ) {
        let bounds = info.mercatorBounds, crs = info.crs, georeferencing = info.georeferencing, path = info.path
        let window = info.longitudeWindow, paletted = info.isPaletted
        self.init(path: info.path, mercatorParts: info.mercatorParts, style: style) { () throws(BuildError) -> SourceLayer in
            do throws(SourceReaderError) {
                return SourceLayer(
                    reader: try makeReader(),
                    mapping: try MappingChoice.mapping(
                        crs: crs, georeferencing: georeferencing, path: path,
                        longitudeWindow: window),
                    mercatorBounds: bounds, paletted: paletted)
            } catch { throw .source(error) }
        }
    }
}

extension PreparedSource {
    /// Whether the source may have pixels in `b`.
    func touches(_ b: MercatorBounds) -> Bool { mercatorParts.contains { $0.intersects(b) } }
}
