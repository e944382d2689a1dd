import Raster
import SourceReaders
import TileGeometry

/// A GDAL raster as a rendering thread reads it: full resolution, then the file's overviews.
final class GDALWindowReader: SourceWindowReader {
    private let dataset: RasterDataset
    private let description: RasterDescription
    let levels: [SourceLevel]

    init(_ description: RasterDescription) throws(SourceReaderError) {
        // Inspection checked the open options against the driver; each thread's copy need not.
        // A drawn page's copy is a GeoTIFF: the page's open options are not its.
        dataset = try RasterDataset(
            path: description.path, openOptions: description.renderedCopy == nil ? description.openOptions : [],
            checkingOptions: false, file: description.renderedCopy)
        self.description = description
        let sizes = [(description.width, description.height)] + description.overviews.map { ($0.width, $0.height) }
        levels = sizes.enumerated().map { level, size in
            let s = description.scale(ofLevel: level)
            return SourceLevel(width: size.0, height: size.1, scaleX: s.x, scaleY: s.y)
        }
    }

    func readWindow(level: Int, x0: Int, y0: Int, width: Int, height: Int, into buffer: UnsafeMutablePointer<UInt8>) throws {
        try dataset.readRGBA(description, level: level, x0: x0, y0: y0, width: width, height: height, into: buffer)
    }
}

/// Web Mercator → a source's pixels through PROJ (EPSG:3857 → the source's CRS), then its
/// georeference backwards: the inverse geotransform (rotation and shear included) or the fit
/// of its ground control points.
final class ProjectedMapping: MercatorToPixel {
    private let transformer: CoordinateTransformer
    private let geolocator: PixelGeolocator

    init(crs: SpatialReference, georeferencing: Georeferencing, path: String) throws(SourceReaderError) {
        transformer = try CoordinateTransformer(from: .webMercator, to: crs, path: path)
        geolocator = try PixelGeolocator(georeferencing, path: path)
    }

    func pixels(xs: UnsafeMutablePointer<Double>, ys: UnsafeMutablePointer<Double>, count: Int) {
        transformer.transform(xs: xs, ys: ys, count: count)
        geolocator.toPixels(xs: xs, ys: ys, count: count)
    }
}

/// Web Mercator → a source in degrees or in Web Mercator metres whose longitudes run past ±180°
/// (a 0–360° grid, a sheet across 180°, an EPSG:3857 raster warped across it): longitude and
/// latitude (or x and y) in closed form, moved by whole turns to within half a turn of the
/// source's middle, then the inverse geotransform.
final class WrappedMapping: MercatorToPixel {
    private let inverse: GeoTransform
    /// The source's middle longitude in degrees, and as Web Mercator x.
    private let center: Double, centerX: Double
    /// EPSG:3857 metres, else EPSG:4326 degrees.
    private let metres: Bool

    init(inverse: GeoTransform, center: Double, metres: Bool) {
        self.inverse = inverse
        self.center = center
        centerX = center / 180 * WebMercator.originShift
        self.metres = metres
    }

    func pixels(xs: UnsafeMutablePointer<Double>, ys: UnsafeMutablePointer<Double>, count: Int) {
        if metres {
            let turn = 2 * WebMercator.originShift
            for i in 0..<count where xs[i].isFinite && ys[i].isFinite {
                let x = xs[i] + turn * ((centerX - xs[i]) / turn).rounded()
                (xs[i], ys[i]) = inverse.apply(col: x, row: ys[i])
            }
            return
        }
        for i in 0..<count where xs[i].isFinite && ys[i].isFinite {
            var (lon, lat) = WebMercator.unproject(x: xs[i], y: ys[i])
            lon += 360 * ((center - lon) / 360).rounded()
            (xs[i], ys[i]) = inverse.apply(col: lon, row: lat)
        }
    }
}

/// How tiles map onto a source: closed form for north-up EPSG:4326/3857, PROJ and the
/// georeference otherwise.
enum MappingChoice {
    static func separable(crs: SpatialReference, georeferencing: Georeferencing) -> PixelGrid? {
        guard let gt = georeferencing.affine, gt.isNorthUp else { return nil }
        guard let kind = crs.kind else { return nil }
        return PixelGrid(crs: kind, originX: gt.c0, originY: gt.c3, pixelWidth: gt.c1, pixelHeight: -gt.c5)
    }

    static func mapping(
        crs: SpatialReference, georeferencing: Georeferencing, path: String,
        longitudeWindow: Double? = nil
    ) throws(SourceReaderError) -> PixelMapping {
        if let center = longitudeWindow, let gt = georeferencing.affine {
            guard let inverse = gt.inverse else { throw .degenerateGeoTransform(path: path) }
            return .general(WrappedMapping(inverse: inverse, center: center, metres: crs.kind == .epsg3857))
        }
        if let g = separable(crs: crs, georeferencing: georeferencing) { return .separable(g) }
        return .general(try ProjectedMapping(crs: crs, georeferencing: georeferencing, path: path))
    }
}

/// One rendering thread's open sources: at most `capacity` at once, the least recently used
/// closed first, so a build over hundreds of files keeps a bounded number of them open.
final class LayerCache {
    private let sources: [PreparedSource]
    private let capacity: Int
    private var open: [Int: SourceLayer] = [:]
    private var order: [Int] = []

    init(sources: [PreparedSource], capacity: Int) {
        self.sources = sources
        self.capacity = max(1, capacity)
    }

    func layer(_ index: Int) throws(BuildError) -> SourceLayer {
        if let layer = open[index] {
            if order.last != index, let k = order.firstIndex(of: index) {
                order.remove(at: k)
                order.append(index)
            }
            return layer
        }
        if open.count >= capacity, let oldest = order.first {
            order.removeFirst()
            open[oldest] = nil
        }
        let layer = try sources[index].open()
        open[index] = layer
        order.append(index)
        return layer
    }
}
