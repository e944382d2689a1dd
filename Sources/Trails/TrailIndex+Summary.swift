import Foundation
import GRDB

/// What a bundle's trails add up to (for a product's detail: how many, by difficulty, the longest).
public struct TrailCollectionSummary: Sendable, Equatable {
    public var count: Int
    /// Trails per difficulty (every difficulty of the ladder, 0 where none).
    public var byDifficulty: [TrailDifficulty: Int]
    public var totalLengthMetres: Double
    /// The longest trails, longest first.
    public var longest: [TrailSummary]
}

extension TrailIndex {
    /// Counts by difficulty, total length, and the `longest` longest named trails.
    public func summary(longest: Int = 5) throws(TrailStoreError) -> TrailCollectionSummary {
        try read { db in
            var byDifficulty = Dictionary(uniqueKeysWithValues: TrailDifficulty.allCases.map { ($0, 0) })
            for row in try Row.fetchAll(db, sql: "SELECT difficulty, count(*) FROM trails GROUP BY difficulty") {
                let d = row.text(0).flatMap(TrailDifficulty.init(rawValue:)) ?? .unknown
                byDifficulty[d, default: 0] += row.integer(1)
            }
            let total = try Double.fetchOne(db, sql: "SELECT total(length_m) FROM trails") ?? 0
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT id, name, ref, difficulty, allowed_uses, forbidden_uses, surface, length_m,
                           min_lon, min_lat, max_lon, max_lat, start_lon, start_lat, end_lon, end_lat
                    FROM trails WHERE name IS NOT NULL ORDER BY length_m DESC, id LIMIT ?
                    """, arguments: [max(0, longest)])
            return TrailCollectionSummary(
                count: byDifficulty.values.reduce(0, +), byDifficulty: byDifficulty, totalLengthMetres: total,
                longest: rows.map(TrailSummary.init(row:)))
        }
    }
}

extension TrailSummary {
    /// From a row of `id, name, ref, difficulty, allowed_uses, forbidden_uses, surface, length_m,
    /// min_lon, min_lat, max_lon, max_lat, start_lon, start_lat, end_lon, end_lat`.
    init(row: Row) {
        self.init(
            id: TrailID(value: row.int64(0)), name: row.text(1), ref: row.text(2),
            difficulty: row.text(3).flatMap(TrailDifficulty.init(rawValue:)) ?? .unknown,
            allowedUses: TrailUses(rawValue: row.integer(4)), forbiddenUses: TrailUses(rawValue: row.integer(5)), surface: row.text(6),
            lengthMetres: row.real(7), bounds: TrailBox(west: row.real(8), south: row.real(9), east: row.real(10), north: row.real(11)),
            start: LonLat(lon: row.real(12), lat: row.real(13)), end: LonLat(lon: row.real(14), lat: row.real(15)))
    }

    /// From such a row followed, at `elevationColumn`, by `ascent_m, descent_m, max_grade_pct`
    /// (NULL for a trail the build had no elevation under).
    init(row: Row, elevationColumn: Int) {
        self.init(row: row)
        elevation = TrailElevation(row: row, column: elevationColumn)
    }
}
