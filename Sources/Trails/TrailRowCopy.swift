import Foundation
import GRDB
import Logging

/// What a copy does with a trail id that several source bundles hold with different rows.
public enum TrailDuplicatePolicy: Sendable {
    /// The first source's row is kept (sources in priority order, e.g. an area's bundles).
    case keepFirst
    /// The copy fails (`TrailStoreError.conflictingTrail`): the sources should agree (parts of one build).
    case reject
}

extension TrailStoreWriter {
    /// Copies whole trail rows, every column as stored (the elevation figures too, where a
    /// source has them), from the bundles `sources` (in order) into
    /// the bundle at `destination`, replacing its trails in one transaction, with the R*Tree, FTS
    /// and `trails_info` rebuilt: only trails whose lines cross `box` (nil: every trail). A trail
    /// several sources hold is copied once; rows that differ follow `duplicates`. Sources without
    /// trails tables are skipped; when none has any, nothing is written and the result is nil,
    /// else it is the number of trails copied.
    @discardableResult
    public static func copyRows(
        from sources: [String], to destination: String, within box: TrailBox?,
        duplicates: TrailDuplicatePolicy
    ) throws(TrailStoreError) -> Int? {
        var rows = [Int64: (values: [DatabaseValue], path: String)]()
        var figures = [TrailID: TrailElevation]()
        var anyTrails = false
        for source in sources {
            let index: TrailIndex
            do throws(TrailStoreError) { index = try TrailIndex(bundle: source) } catch .noTrails { continue }
            anyTrails = true
            // With a box, the R*Tree's candidates (its boxes are rounded outwards), then each line tested.
            let found: [Row] = try index.read { db in
                guard let box, box.west <= box.east else {
                    return try Row.fetchAll(db, sql: "SELECT \(TrailStoreSchema.allColumns) FROM trails ORDER BY id")
                }
                return try Row.fetchAll(
                    db,
                    sql: """
                        SELECT \(TrailStoreSchema.allColumns) FROM trails WHERE id IN
                            (SELECT id FROM trails_rtree WHERE max_lon >= ? AND min_lon <= ? AND max_lat >= ? AND min_lat <= ?)
                        ORDER BY id
                        """, arguments: [box.west, box.east, box.south, box.north])
            }
            let elevations = try index.read { db in try TrailElevationStore.read(db) }
            for row in found {
                let id = row.int64(0)
                if let box {
                    guard let geometry = GeometryCodec.decode(row.bytes(16)) else {
                        throw .badGeometry(path: source, id: TrailID(value: id))
                    }
                    guard SearchArea.intersects(geometry, box) else { continue }
                }
                let values = Array(row.databaseValues)
                if let earlier = rows[id] {
                    if duplicates == .reject, earlier.values != values {
                        throw .conflictingTrail(id: TrailID(value: id), paths: [earlier.path, source])
                    }
                    continue
                }
                rows[id] = (values, source)
                figures[TrailID(value: id)] = elevations[TrailID(value: id)]
            }
        }
        guard anyTrails else { return nil }
        try inBundle(destination) { db in
            try replaceTables(db)
            let columns = TrailStoreSchema.allColumns
            let insert = try db.makeStatement(
                sql: "INSERT INTO trails (\(columns)) VALUES (\(Array(repeating: "?", count: 18).joined(separator: ", ")))")
            for id in rows.keys.sorted() {
                try insert.execute(arguments: StatementArguments(rows[id]!.values.map { $0 as (any DatabaseValueConvertible)? }))
            }
            try db.execute(
                sql:
                    """
                    INSERT INTO trails_rtree (id, min_lon, max_lon, min_lat, max_lat) SELECT id, min_lon, max_lon, min_lat, max_lat FROM \
                    trails
                    """
            )
            try finishTables(db, count: rows.count)
            if !figures.isEmpty { try TrailElevationStore.store(figures, in: db) }
        }
        logger.info("trails copied", metadata: ["bundle": "\(destination)", "trails": "\(rows.count)", "sources": "\(sources.count)"])
        return rows.count
    }
}
