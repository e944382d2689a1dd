import Logging
import SourceReaders
import Synchronization
import Terrain
import TileGeometry

/// A terrain layer's DEMs as read and checked: where each lies, its pixel size and its range.
struct TerrainSources: Sendable {
    struct DEM: Sendable {
        let path: String
        let bounds: GeoBounds
        let mercatorParts: [MercatorBounds]
        /// The DEM's pixel size in Web Mercator metres, when known.
        let pixelSize: Double?
    }

    let dems: [DEM]
    /// The lowest and highest elevation in metres over every DEM.
    let range: (min: Double, max: Double)

    /// Inspects every DEM (georeference, CRS, vertical unit, elevations): an error names the file.
    static func read(_ layer: TerrainLayer, logger: Logger) throws(BuildError) -> TerrainSources {
        let paths = try SourceList.expand(layer.sources)
        var dems = [DEM](), lo = Double.infinity, hi = -Double.infinity
        for path in paths {
            // The DEM's values are read by `DEMReader`, never drawn through the description.
            var options = ReadOptions(crs: layer.crs)
            options.forDrawing = false
            let info = try SourceLoader.inspect(path, options: options)
            let reader: DEMReader
            do { reader = try DEMReader(path: path, crs: layer.crs, unit: layer.verticalUnit) } catch { throw .source(error) }
            // A colour ramp's percentages and the contours' check of levels a tile (`TerrainContourCheck`)
            // need the exact range; a hillshade or terrain tiles need to know that the DEM has elevations.
            guard let r = reader.range(approximate: layer.colorRelief == nil && layer.contours == nil) else {
                if paths.count == 1 { throw .source(.noElevations(path: path)) }
                logger.warning("\(path): every pixel is a void, so it adds no elevation")
                continue
            }
            logger.debug(
                "DEM \(path): \(info.width)x\(info.height), \(info.crs.name), elevations \(r.min)-\(r.max) m (in \(reader.unit.rawValue))")
            lo = min(lo, r.min)
            hi = max(hi, r.max)
            dems.append(DEM(path: path, bounds: info.bounds, mercatorParts: info.mercatorParts, pixelSize: info.mercatorPixelSize))
        }
        guard !dems.isEmpty else { throw .source(.noElevations(path: paths.first ?? "")) }
        return TerrainSources(dems: dems, range: (lo, hi))
    }

    /// The union of the DEMs.
    var bounds: GeoBounds { dems.dropFirst().reduce(dems[0].bounds) { $0.union($1.bounds) } }
    /// The finest pixel in Web Mercator metres.
    var finestPixel: Double? { dems.compactMap(\.pixelSize).min() }
}

/// Each worker's open DEMs: a set is taken by one thread at a time (GDAL datasets are not
/// thread-safe) and given back for the next batch.
final class DEMReaderPool: @unchecked Sendable {
    /// One thread's readers, opened as first needed.
    final class Readers: @unchecked Sendable {
        var readers: [Int: DEMReader] = [:]
    }

    private let free = Mutex<[Readers]>([])
    private let paths: [String]
    private let crs: SpatialReference?
    private let unit: VerticalUnit?

    init(paths: [String], crs: SpatialReference?, unit: VerticalUnit?) {
        self.paths = paths
        self.crs = crs
        self.unit = unit
    }

    func take() -> Readers { free.withLock { $0.popLast() } ?? Readers() }
    func give(_ set: Readers) { free.withLock { $0.append(set) } }

    /// DEM `index` of `set`, opened when first used.
    func reader(_ index: Int, in set: Readers) throws(BuildError) -> DEMReader {
        if let r = set.readers[index] { return r }
        do {
            let r = try DEMReader(path: paths[index], crs: crs, unit: unit)
            set.readers[index] = r
            return r
        } catch { throw .source(error) }
    }
}
