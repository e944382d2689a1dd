import Raster
import SourceReaders
import TileGeometry

/// A source ready to render: where it lies and how a rendering thread opens it.
struct PreparedSource: Sendable {
    let path: String
    let mercatorBounds: MercatorBounds
    /// Opens the source for the calling thread (GDAL handles and PROJ transforms are per thread).
    let open: @Sendable () throws(BuildError) -> SourceLayer

    /// A decoded PNG pyramid (shared by every thread).
    static func pyramid(_ pyramid: SourcePyramid, info: SourceInfo) -> PreparedSource {
        let bounds = info.mercatorBounds
        let crs = info.crs, gt = info.geoTransform, path = info.path
        return PreparedSource(path: path, mercatorBounds: bounds) { () throws(BuildError) -> SourceLayer in
            do throws(SourceReaderError) {
                return SourceLayer(reader: pyramid, mapping: try MappingChoice.mapping(crs: crs, geoTransform: gt),
                                   mercatorBounds: bounds)
            } catch { throw .source(error) }
        }
    }

    /// A raster read through GDAL window by window.
    static func raster(_ description: RasterDescription, info: SourceInfo) -> PreparedSource {
        let bounds = info.mercatorBounds
        return PreparedSource(path: info.path, mercatorBounds: bounds) { () throws(BuildError) -> SourceLayer in
            do throws(SourceReaderError) {
                return SourceLayer(reader: try GDALWindowReader(description),
                                   mapping: try MappingChoice.mapping(crs: description.crs, geoTransform: description.geoTransform),
                                   mercatorBounds: bounds)
            } catch { throw .source(error) }
        }
    }
}
