import Foundation
import GRDB
import TileGeometry

/// A unit of a build: the subtree of tiles under `tile` in zoom band `band`, rendered together.
/// Builds record each finished unit, so a killed build resumes after its last recorded unit and
/// shards of a build can be merged (the levels above the units are made from the units' roots).
public struct BuildUnit: Hashable, Sendable {
    public var band: Int
    public var tile: TileID

    public init(band: Int, tile: TileID) {
        self.band = band
        self.tile = tile
    }
}

/// A finished unit and its root tile's pixels, losslessly encoded (nil when transparent).
public struct BuildUnitRecord: Sendable {
    public var unit: BuildUnit
    public var root: [UInt8]?

    public init(unit: BuildUnit, root: [UInt8]?) {
        self.unit = unit
        self.root = root
    }
}

/// The tables a build keeps beside the tiles: `trailmap_build` (name/value: what was built from
/// what, kept in the finished bundle) and `trailmap_units` (finished units with their roots; kept
/// only in shard parts).
enum BuildJournalSchema {
    static let create = """
        CREATE TABLE IF NOT EXISTS trailmap_build (name TEXT NOT NULL PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE IF NOT EXISTS trailmap_units (
            band INTEGER NOT NULL, zoom_level INTEGER NOT NULL, x INTEGER NOT NULL, y INTEGER NOT NULL, root BLOB,
            PRIMARY KEY (band, zoom_level, x, y)
        );
        """

    static func units(_ db: Database) throws -> [BuildUnit] {
        guard try db.tableExists("trailmap_units") else { return [] }
        return try Row.fetchAll(db, sql: "SELECT band, zoom_level, x, y FROM trailmap_units ORDER BY band, zoom_level, x, y")
            .compactMap { row in
                guard let b = row.int(0), let z = row.int(1), let x = row.int(2), let y = row.int(3) else { return nil }
                return TileID(z: z, x: x, y: y).map { BuildUnit(band: b, tile: $0) }
            }
    }

    static func root(_ db: Database, _ unit: BuildUnit) throws -> [UInt8]? {
        let data = try Data.fetchOne(
            db, sql: "SELECT root FROM trailmap_units WHERE band = ? AND zoom_level = ? AND x = ? AND y = ?",
            arguments: [unit.band, unit.tile.z, unit.tile.x, unit.tile.y])
        return data.map { [UInt8]($0) }
    }

    static func record(_ db: Database) throws -> [String: String] {
        guard try db.tableExists("trailmap_build") else { return [:] }
        return try Row.fetchAll(db, sql: "SELECT name, value FROM trailmap_build").pairs()
    }
}

/// What a finished bundle or shard part records about its build, read like the rest of it.
extension BundleReader {
    /// The `trailmap_build` pairs (empty when the bundle records no build).
    public func buildRecord() throws(TileStoreError) -> [String: String] {
        try read { try BuildJournalSchema.record($0) }
    }

    /// The units the file records, by band and tile.
    public func buildUnits() throws(TileStoreError) -> [BuildUnit] {
        try read { try BuildJournalSchema.units($0) }
    }

    /// A unit's losslessly encoded root (nil when transparent or not recorded).
    public func unitRoot(_ unit: BuildUnit) throws(TileStoreError) -> [UInt8]? {
        try read { try BuildJournalSchema.root($0, unit) }
    }
}

extension Array where Element == Row {
    /// Name/value rows as a dictionary; rows with a NULL name are skipped, a NULL value reads as "".
    public func pairs() -> [String: String] {
        var out = [String: String]()
        for row in self {
            guard let name = String.fromDatabaseValue(row[0] as DatabaseValue) else { continue }
            if out[name] == nil { out[name] = String.fromDatabaseValue(row[1] as DatabaseValue) ?? "" }
        }
        return out
    }
}
