import CGDAL
import Foundation
import SourceReaders
import Trails

/// An open OGR vector dataset (read-only); closed when released. One thread at a time.
final class VectorFile {
    let path: String
    let handle: GDALDatasetH
    /// GDAL's short driver name, e.g. `GPKG`, `OSM`.
    let driver: String

    init(path: String) throws(TrailIngestError) {
        GDALEnvironment.prepare()
        guard FileManager.default.fileExists(atPath: path) else { throw .cannotOpen(path: path, reason: "no such file") }
        CPLErrorReset()
        guard let ds = GDALOpenEx(path, UInt32(GDAL_OF_VECTOR | GDAL_OF_READONLY), nil, nil, nil) else {
            throw .cannotOpen(path: path, reason: Self.lastError(or: "not a vector format GDAL reads"))
        }
        self.path = path
        handle = ds
        driver = GDALGetDatasetDriver(ds).flatMap { GDALGetDriverShortName($0) }.map { String(cString: $0) } ?? ""
    }

    deinit { GDALClose(handle) }

    var layers: [OGRLayerH] {
        (0..<GDALDatasetGetLayerCount(handle)).compactMap { GDALDatasetGetLayer(handle, $0) }
    }

    static func name(of layer: OGRLayerH) -> String {
        OGR_L_GetName(layer).map { String(cString: $0) } ?? ""
    }

    /// Whether a layer's declared type may hold lines (lines, or unknown / mixed).
    static func mayHoldLines(_ layer: OGRLayerH) -> Bool {
        let t = OGR_GT_Flatten(OGR_L_GetGeomType(layer))
        return t == wkbLineString || t == wkbMultiLineString || t == wkbUnknown || t == wkbGeometryCollection
    }

    /// The field names of a layer.
    static func fields(of layer: OGRLayerH) -> [String] {
        guard let defn = OGR_L_GetLayerDefn(layer) else { return [] }
        return (0..<OGR_FD_GetFieldCount(defn)).compactMap { i in
            OGR_FD_GetFieldDefn(defn, i).flatMap { OGR_Fld_GetNameRef($0) }.map { String(cString: $0) }
        }
    }

    /// The calling thread's last GDAL error, or `fallback`.
    static func lastError(or fallback: String) -> String {
        guard let message = CPLGetLastErrorMsg() else { return fallback }
        let text = String(cString: message).trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty ? fallback : text
    }

    /// Every feature of `layers` (in the file's order for OSM, whose driver reads layers interleaved).
    func forEachFeature(of layers: [OGRLayerH], _ body: (OGRLayerH, OGRFeatureH) throws(TrailIngestError) -> Void) throws(TrailIngestError)
    {
        if driver == "OSM" {
            let wanted = Set(layers.map { UnsafeRawPointer($0) })
            GDALDatasetResetReading(handle)
            while true {
                var layer: OGRLayerH?
                guard let f = GDALDatasetGetNextFeature(handle, &layer, nil, nil, nil) else { break }
                defer { OGR_F_Destroy(f) }
                if let layer, wanted.contains(UnsafeRawPointer(layer)) { try body(layer, f) }
            }
            return
        }
        for layer in layers {
            OGR_L_ResetReading(layer)
            while let f = OGR_L_GetNextFeature(layer) {
                defer { OGR_F_Destroy(f) }
                try body(layer, f)
            }
        }
    }
}

/// Transforms a layer's coordinates to WGS 84 longitude/latitude (nil transform: already there).
final class ToWGS84 {
    private let transform: OGRCoordinateTransformationH?

    init(layer: OGRLayerH, fallbackCRS: String?, path: String) throws(TrailIngestError) {
        let name = VectorFile.name(of: layer)
        let source: OGRSpatialReferenceH
        if let srs = OGR_L_GetSpatialRef(layer), let clone = OSRClone(srs) {
            source = clone
        } else if let fallbackCRS {
            guard let srs = OSRNewSpatialReference(nil) else { throw .badCRS(input: fallbackCRS, reason: "out of memory") }
            CPLErrorReset()
            guard !fallbackCRS.hasPrefix("/"), !fallbackCRS.contains("://"), OSRSetFromUserInput(srs, fallbackCRS) == OGRERR_NONE else {
                OSRDestroySpatialReference(srs)
                throw .badCRS(input: fallbackCRS, reason: VectorFile.lastError(or: "not an EPSG code, WKT or PROJ string"))
            }
            source = srs
        } else {
            throw .noCRS(path: path, layer: name)
        }
        defer { OSRDestroySpatialReference(source) }
        guard let target = OSRNewSpatialReference(nil) else { throw .transformFailed(path: path, layer: name, reason: "out of memory") }
        defer { OSRDestroySpatialReference(target) }
        _ = OSRImportFromEPSG(target, 4326)
        OSRSetAxisMappingStrategy(source, OAMS_TRADITIONAL_GIS_ORDER)
        OSRSetAxisMappingStrategy(target, OAMS_TRADITIONAL_GIS_ORDER)
        if OSRIsSame(source, target) != 0 {
            transform = nil
            return
        }
        CPLErrorReset()
        guard let t = OCTNewCoordinateTransformation(source, target) else {
            throw .transformFailed(path: path, layer: name, reason: VectorFile.lastError(or: "PROJ has no transformation"))
        }
        transform = t
    }

    deinit { if let transform { OCTDestroyCoordinateTransformation(transform) } }

    /// Transforms in place; false when a point cannot be transformed.
    func apply(xs: inout [Double], ys: inout [Double]) -> Bool {
        guard let transform, !xs.isEmpty else { return true }
        var ok = [Int32](repeating: 0, count: xs.count)
        let n = Int32(xs.count)
        _ = OCTTransformEx(transform, n, &xs, &ys, nil, &ok)
        return !ok.contains(0)
    }
}
