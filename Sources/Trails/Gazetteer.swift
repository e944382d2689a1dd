import CGDAL
import Foundation
import GRDB

/// A named place trail searches can start from ("near Estes Park").
public struct Place: Sendable, Equatable {
    public var name: String
    public var lon: Double
    public var lat: Double
    /// Breaks ties between places of one name (the larger first); 0 when unknown.
    public var population: Int64

    public init(name: String, lon: Double, lat: Double, population: Int64 = 0) {
        self.name = name
        self.lon = lon
        self.lat = lat
        self.population = population
    }
}

/// Why a place list cannot be loaded or read.
public enum GazetteerError: Error, Equatable, Sendable {
    case cannotOpen(path: String, reason: String)
    /// A GeoNames line that is not one (its line number and why).
    case badLine(path: String, line: Int, reason: String)
    /// A vector file with no point layer, or a point layer without a name field.
    case noPlaces(path: String, reason: String)
    case store(path: String, message: String)
}

/// The operator's place names: read from a GeoNames text file (tab-separated, as GeoNames
/// publishes them) or any point layer GDAL reads with a `name` field, kept in a small SQLite
/// file beside the bundles, and looked up by name regardless of case and accents.
public final class Gazetteer: Sendable {
    public let path: String
    private let db: DatabaseQueue

    /// The place file of a tiles folder.
    public static func defaultPath(tilesDirectory: String) -> String {
        (tilesDirectory as NSString).appendingPathComponent(".trailmap-places.sqlite")
    }

    /// Opens a place file `write` made.
    public init(path: String) throws(GazetteerError) {
        guard FileManager.default.fileExists(atPath: path) else { throw .cannotOpen(path: path, reason: "no such file") }
        self.path = path
        do {
            var config = Configuration()
            config.readonly = true
            config.prepareDatabase { db in try db.execute(sql: "PRAGMA trusted_schema = OFF") }
            db = try DatabaseQueue(path: path, configuration: config)
            _ = try db.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM places") }
        } catch {
            throw .cannotOpen(path: path, reason: "not a place file: \(error)")
        }
    }

    /// The place called `name` (the most populous of that name), else the most populous whose
    /// name starts with it; "Estes Park, Colorado" is looked up as "Estes Park" when the whole is unknown.
    public func lookup(_ name: String) -> Place? {
        var candidates = [Self.key(name)]
        if let comma = name.firstIndex(of: ",") { candidates.append(Self.key(String(name[..<comma]))) }
        for key in candidates where !key.isEmpty {
            let found = try? db.read { db -> Place? in
                let exact = "SELECT name, lon, lat, population FROM places WHERE key = ? ORDER BY population DESC, name LIMIT 1"
                let prefix = "SELECT name, lon, lat, population FROM places WHERE key >= ? AND key < ? ORDER BY population DESC, name LIMIT 1"
                let row = try Row.fetchOne(db, sql: exact, arguments: [key])
                    ?? Row.fetchOne(db, sql: prefix, arguments: [key, key + "\u{10FFFF}"])
                return row.map { Place(name: $0["name"], lon: $0["lon"], lat: $0["lat"], population: $0["population"]) }
            }
            if let found = found ?? nil { return found }
        }
        return nil
    }

    /// Number of places.
    public func count() -> Int { (try? db.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM places") }) ?? 0 }

    /// A name as compared: folded case and accents, single spaces.
    static func key(_ name: String) -> String {
        name.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
            .split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
    }

    /// Writes `places` to a new place file at `path`, replacing any (atomically).
    public static func write(_ places: [Place], to path: String) throws(GazetteerError) {
        let staging = path + ".loading-\(getpid())"
        try? FileManager.default.removeItem(atPath: staging)
        do {
            let queue = try DatabaseQueue(path: staging)
            try queue.write { db in
                try db.execute(sql: "CREATE TABLE places (name TEXT NOT NULL, key TEXT NOT NULL, lon REAL NOT NULL, lat REAL NOT NULL, population INTEGER NOT NULL)")
                let insert = try db.makeStatement(sql: "INSERT INTO places VALUES (?, ?, ?, ?, ?)")
                for p in places { try insert.execute(arguments: [p.name, key(p.name), p.lon, p.lat, p.population]) }
                try db.execute(sql: "CREATE INDEX places_key ON places(key)")
            }
            try queue.close()
            guard rename(staging, path) == 0 else { throw GazetteerError.store(path: path, message: String(cString: strerror(errno))) }
        } catch let e as GazetteerError {
            try? FileManager.default.removeItem(atPath: staging)
            throw e
        } catch {
            try? FileManager.default.removeItem(atPath: staging)
            throw .store(path: path, message: "\(error)")
        }
    }

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
            guard cols.count >= 15 else { throw .badLine(path: path, line: i + 1, reason: "\(cols.count) tab-separated columns; GeoNames has 19") }
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
                      let g = OGR_F_GetGeometryRef(f), OGR_G_GetPointCount(g) > 0 || OGR_G_GetGeometryCount(g) > 0 else { continue }
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
        guard let t = OCTNewCoordinateTransformation(source, target) else { throw .noPlaces(path: path, reason: "no transformation to WGS 84") }
        return t
    }
}
