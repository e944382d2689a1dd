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

/// The operator's place names (read by `PlaceReader`), kept in a small SQLite file beside the
/// bundles, and looked up by name regardless of case and accents.
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
                let prefix =
                    "SELECT name, lon, lat, population FROM places WHERE key >= ? AND key < ? ORDER BY population DESC, name LIMIT 1"
                let row =
                    try Row.fetchOne(db, sql: exact, arguments: [key])
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
                try db.execute(
                    sql:
                        """
                        CREATE TABLE places (name TEXT NOT NULL, key TEXT NOT NULL, lon REAL NOT NULL, lat REAL NOT NULL, population \
                        INTEGER NOT NULL)
                        """
                )
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
}
