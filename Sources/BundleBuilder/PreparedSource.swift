import Raster
import SourceReaders
import TileGeometry

/// A source ready to render: where it lies and how a rendering thread opens it.
struct PreparedSource: Sendable {
    let path: String
    let mercatorBounds: MercatorBounds
    /// Opens the source for the calling thread (GDAL handles and PROJ transforms are per thread).
    let open: @Sendable () throws(BuildError) -> SourceLayer
}

extension PreparedSource {
    /// A source whose thread-local reader `makeReader` makes, mapped by its CRS and geotransform.
    init(_ info: SourceInfo, makeReader: @escaping @Sendable () throws(SourceReaderError) -> any SourceWindowReader) {
        let bounds = info.mercatorBounds, crs = info.crs, gt = info.geoTransform
        self.init(path: info.path, mercatorBounds: bounds) { () throws(BuildError) -> SourceLayer in
            do throws(SourceReaderError) {
                return SourceLayer(reader: try makeReader(), mapping: try MappingChoice.mapping(crs: crs, geoTransform: gt),
                                   mercatorBounds: bounds)
            } catch { throw .source(error) }
        }
    }
}
