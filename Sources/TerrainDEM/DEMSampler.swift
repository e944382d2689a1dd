import CGDAL
import Foundation
import SourceReaders
import Synchronization
import Terrain

/// Elevations read straight from an elevation raster through GDAL: band 1, bilinear between
/// the four nearest pixel centres in the raster's own CRS, nodata and NaN pixels void, values
/// scaled by the band's scale and offset and by its vertical unit (feet to metres). The
/// reference that terrain tiles are measured against, and the source for trails' elevations
/// during a build. One dataset, used under a lock (GDAL datasets are not thread-safe).
public final class DEMSampler: ElevationSource {
    public let path: String
    private let state: Mutex<Reader>

    /// Opens the raster at `path`; `crs` stands in for a CRS the file lacks or states wrongly and
    /// `verticalUnit` for the unit its band declares (as a build's terrain layer may say).
    public init(path: String, crs: SpatialReference? = nil, verticalUnit: VerticalUnit? = nil) throws(ElevationError) {
        self.path = path
        state = Mutex(try Reader(path: path, crs: crs, verticalUnit: verticalUnit))
    }

    public func elevations(at points: [GeoPoint]) throws(ElevationError) -> [Double?] {
        try state.withLock { reader throws(ElevationError) in try reader.elevations(points) }
    }
}

/// The open raster and what reading it needs.
final class Reader {
    let path: String
    let dataset: GDALDatasetH
    let band: GDALRasterBandH
    let width: Int, height: Int
    /// Pixel from CRS coordinates.
    let inverse: GeoTransform
    let transformer: CoordinateTransformer
    let nodata: Double?
    /// Metres per stored unit (with the band's scale), and the band's offset.
    let scale: Double, offset: Double

    init(path: String, crs override: SpatialReference? = nil, verticalUnit: VerticalUnit? = nil) throws(ElevationError) {
        GDALEnvironment.prepare()
        guard let ds = GDALOpenEx(path, UInt32(GDAL_OF_RASTER | GDAL_OF_READONLY), nil, nil, nil) else {
            throw .unreadable(path: path, reason: "GDAL cannot open it as a raster")
        }
        var ok = false
        defer { if !ok { GDALClose(ds) } }
        guard GDALGetRasterCount(ds) >= 1, let b = GDALGetRasterBand(ds, 1) else {
            throw .unreadable(path: path, reason: "the raster has no band")
        }
        var gt = [Double](repeating: 0, count: 6)
        guard GDALGetGeoTransform(ds, &gt) == CE_None, let inv = GeoTransform(gt).inverse else {
            throw .notGeoreferenced(path: path)
        }
        let crs: SpatialReference
        if let override {
            crs = override
        } else {
            guard let wktPointer = GDALGetProjectionRef(ds), !String(cString: wktPointer).isEmpty else {
                throw .notGeoreferenced(path: path)
            }
            do { crs = try SpatialReference(wkt: String(cString: wktPointer)) } catch { throw .notGeoreferenced(path: path) }
        }
        do { transformer = try CoordinateTransformer(from: .wgs84, to: crs, path: path) } catch {
            throw .unreadable(path: path, reason: "\(error)")
        }
        let unit = String(cString: GDALGetRasterUnitType(b)).lowercased()
        guard let unitScale = (verticalUnit ?? VerticalUnit(gdalName: unit))?.metres else {
            throw .unknownVerticalUnit(path: path, unit: unit)
        }
        var has: Int32 = 0
        let nd = GDALGetRasterNoDataValue(b, &has)
        nodata = has != 0 ? nd : nil
        var hasScale: Int32 = 0, hasOffset: Int32 = 0
        let bandScale = GDALGetRasterScale(b, &hasScale), bandOffset = GDALGetRasterOffset(b, &hasOffset)
        scale = (hasScale != 0 ? bandScale : 1) * unitScale
        offset = (hasOffset != 0 ? bandOffset : 0) * unitScale
        self.path = path
        dataset = ds
        band = b
        width = Int(GDALGetRasterXSize(ds))
        height = Int(GDALGetRasterYSize(ds))
        inverse = inv
        ok = true
    }

    deinit { GDALClose(dataset) }

    func elevations(_ points: [GeoPoint]) throws(ElevationError) -> [Double?] {
        var xs = points.map(\.lon), ys = points.map(\.lat)
        transformer.transform(xs: &xs, ys: &ys)
        var out = [Double?]()
        out.reserveCapacity(points.count)
        var window = [Double](repeating: 0, count: 4)
        for i in points.indices {
            guard xs[i].isFinite, ys[i].isFinite else { out.append(nil); continue }
            let (c, r) = inverse.apply(col: xs[i], row: ys[i])
            guard c >= 0, r >= 0, c <= Double(width), r <= Double(height) else { out.append(nil); continue }
            let gx = c - 0.5, gy = r - 0.5
            let x0 = Int(gx.rounded(.down)), y0 = Int(gy.rounded(.down))
            let fx = gx - Double(x0), fy = gy - Double(y0)
            let cx = min(max(x0, 0), width - 1), cy = min(max(y0, 0), height - 1)
            let cx1 = min(max(x0 + 1, 0), width - 1), cy1 = min(max(y0 + 1, 0), height - 1)
            for (k, (px, py)) in [(cx, cy), (cx1, cy), (cx, cy1), (cx1, cy1)].enumerated() {
                var v = 0.0
                let err = GDALRasterIO(band, GF_Read, Int32(px), Int32(py), 1, 1, &v, 1, 1, GDT_Float64, 0, 0)
                guard err == CE_None else { throw .unreadable(path: path, reason: "reading pixels failed") }
                window[k] = v
            }
            let nearest = (fy < 0.5 ? 0 : 2) + (fx < 0.5 ? 0 : 1)
            var sum = 0.0, weights = 0.0, nearestVoid = false
            for k in 0..<4 {
                let w = (k % 2 == 0 ? 1 - fx : fx) * (k < 2 ? 1 - fy : fy)
                let v = window[k]
                if !v.isFinite || v == nodata {
                    if k == nearest { nearestVoid = true }
                    continue
                }
                sum += w * v
                weights += w
            }
            out.append(nearestVoid || weights <= 0 ? nil : (sum / weights) * scale + offset)
        }
        return out
    }
}
