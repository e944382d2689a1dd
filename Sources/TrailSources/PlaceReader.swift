import CGDAL
import Foundation
import Trails

/// Reads place lists for the `Gazetteer`: a GeoNames text file (tab-separated, as GeoNames
/// publishes them) or any point layer GDAL reads with a `name` field.
public enum PlaceReader {
    /// The places of a GeoNames text file (`.txt`, tab-separated, 15 or more columns) or of a
    /// point layer GDAL reads (its `name` field, any CRS).
    public static func read(path: String) throws(GazetteerError) -> [Place] {
        guard FileManager.default.fileExists(atPath: path) else { throw .cannotOpen(path: path, reason: "no such file") }
        if ["txt", "tsv"].contains((path as NSString).pathExtension.lowercased()) { return try readGeoNames(path: path) }
        return try readPoints(path: path)
    }

    /// GeoNames' format: geonameid, name, asciiname, alternatenames, latitude, longitude, feature
    /// class, feature code, country code, cc2, admin1..4, population, ...
    static func readGeoNames(path: String) throws(GazetteerError) -> [Place] {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch { throw .cannotOpen(path: path, reason: "\(error)") }
        guard let text = String(data: data, encoding: .utf8) else { throw .badLine(path: path, line: 0, reason: "not UTF-8 text") }
        var places = [Place]()
        for (i, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let row = line.hasSuffix("\r") ? line.dropLast() : line
            if row.isEmpty || row.hasPrefix("#") { continue }
            let cols = row.split(separator: "\t", omittingEmptySubsequences: false)
            guard cols.count >= 15 else {
                throw .badLine(path: path, line: i + 1, reason: "\(cols.count) tab-separated columns; GeoNames has 19")
            }
            let name = String(cols[1]).trimmingCharacters(in: .whitespaces)
            guard !name.isEmpty, name.unicodeScalars.allSatisfy({ $0.value >= 0x20 }) else {
                throw .badLine(path: path, line: i + 1, reason: "no name")
            }
            guard let lat = Double(cols[4]), let lon = Double(cols[5]), (-90...90).contains(lat), (-180...180).contains(lon) else {
                throw .badLine(path: path, line: i + 1, reason: "latitude and longitude must be numbers within ±90 and ±180")
            }
            places.append(Place(name: name, lon: lon, lat: lat, population: Int64(cols[14]) ?? 0))
        }
        guard !places.isEmpty else { throw .noPlaces(path: path, reason: "no lines") }
        return places
    }

    /// The named points of the first layer holding points.
    static func readPoints(path: String) throws(GazetteerError) -> [Place] {
        CPLErrorReset()
        guard let ds = GDALOpenEx(path, UInt32(GDAL_OF_VECTOR | GDAL_OF_READONLY), nil, nil, nil) else {
            throw .cannotOpen(path: path, reason: "not a place list (GeoNames text) or a vector format GDAL reads")
        }
        defer { GDALClose(ds) }
        for i in 0..<GDALDatasetGetLayerCount(ds) {
            guard let layer = GDALDatasetGetLayer(ds, i) else { continue }
            let type = OGR_GT_Flatten(OGR_L_GetGeomType(layer))
            guard type == wkbPoint || type == wkbMultiPoint || type == wkbUnknown else { continue }
            guard let defn = OGR_L_GetLayerDefn(layer) else { continue }
            let nameField = (0..<OGR_FD_GetFieldCount(defn)).first { j in
                OGR_FD_GetFieldDefn(defn, j).flatMap { OGR_Fld_GetNameRef($0) }.map { String(cString: $0).lowercased() == "name" } ?? false
            }
            guard let nameField else { throw .noPlaces(path: path, reason: "its point layer has no 'name' field") }
            let transform = try Self.toWGS84(layer, path: path)
            defer { if let transform { OCTDestroyCoordinateTransformation(transform) } }
            var places = [Place]()
            OGR_L_ResetReading(layer)
            while let f = OGR_L_GetNextFeature(layer) {
                defer { OGR_F_Destroy(f) }
                guard OGR_F_IsFieldSetAndNotNull(f, nameField) != 0, let raw = OGR_F_GetFieldAsString(f, nameField),
                    let g = OGR_F_GetGeometryRef(f), OGR_G_GetPointCount(g) > 0 || OGR_G_GetGeometryCount(g) > 0
                else { continue }
                let point = OGR_G_GetGeometryCount(g) > 0 ? OGR_G_GetGeometryRef(g, 0) ?? g : g
                var x = OGR_G_GetX(point, 0), y = OGR_G_GetY(point, 0), z = 0.0
                if let transform, OCTTransform(transform, 1, &x, &y, &z) == 0 { continue }
                let name = String(cString: raw).trimmingCharacters(in: .whitespaces)
                guard !name.isEmpty, x.isFinite, y.isFinite, (-180...180).contains(x), (-90...90).contains(y) else { continue }
                places.append(Place(name: name, lon: x, lat: y))
            }
            guard !places.isEmpty else { throw .noPlaces(path: path, reason: "its point layer has no named points") }
            return places
        }
        throw .noPlaces(path: path, reason: "no point layer")
    }

    private static func toWGS84(_ layer: OGRLayerH, path: String) throws(GazetteerError) -> OGRCoordinateTransformationH? {
        guard let srs = OGR_L_GetSpatialRef(layer), let source = OSRClone(srs) else {
            throw .noPlaces(path: path, reason: "its point layer has no CRS")
        }
        defer { OSRDestroySpatialReference(source) }
        guard let target = OSRNewSpatialReference(nil) else { throw .noPlaces(path: path, reason: "out of memory") }
        defer { OSRDestroySpatialReference(target) }
        _ = OSRImportFromEPSG(target, 4326)
        OSRSetAxisMappingStrategy(source, OAMS_TRADITIONAL_GIS_ORDER)
        OSRSetAxisMappingStrategy(target, OAMS_TRADITIONAL_GIS_ORDER)
        if OSRIsSame(source, target) != 0 { return nil }
        guard let t = OCTNewCoordinateTransformation(source, target) else {
            throw .noPlaces(path: path, reason: "no transformation to WGS 84")
        }
        return t
    }
}
