import Foundation
import GRDB

/// Something wrong in a bundle's trails tables.
public enum TrailProblem: Hashable, Sendable, CustomStringConvertible {
    /// `trails_info` counts another number of trails than `trails` holds.
    case countMismatch(recorded: Int, found: Int)
    /// The R*Tree does not index exactly the trails (missing or extra ids).
    case spatialIndexMismatch(trails: Int, indexed: Int)
    /// A trail's geometry does not decode.
    case badGeometry(id: TrailID)
    /// A trail's difficulty is not on the ladder.
    case badDifficulty(id: TrailID, value: String)
    /// A trail's stored box, start or end disagrees with its geometry.
    case boundsMismatch(id: TrailID)
    /// A trail's length is negative or not a number.
    case badLength(id: TrailID)

    public var description: String {
        switch self {
        case let .countMismatch(recorded, found): "trails_info counts \(recorded) trails, trails holds \(found)"
        case let .spatialIndexMismatch(trails, indexed): "trails_rtree indexes \(indexed) of \(trails) trails"
        case let .badGeometry(id): "trail \(id): damaged geometry"
        case let .badDifficulty(id, value): "trail \(id): difficulty \"\(value)\" is not easy, moderate, hard, expert or unknown"
        case let .boundsMismatch(id): "trail \(id): stored box, start or end disagree with its geometry"
        case let .badLength(id): "trail \(id): length is not a non-negative number"
        }
    }
}

extension TrailIndex {
    /// Checks the trails tables: counts, the R*Tree against `trails`, and every row against its
    /// geometry. Returns at most `maxReported` row problems (counts always).
    public func verify(maxReported: Int = 50) throws(TrailStoreError) -> [TrailProblem] {
        try read { db in
            var problems = [TrailProblem]()
            let count = try Int.fetchOne(db, sql: "SELECT count(*) FROM trails") ?? 0
            let recorded = try String.fetchOne(db, sql: "SELECT value FROM trails_info WHERE name = 'count'").flatMap { Int($0) } ?? -1
            if recorded != count { problems.append(.countMismatch(recorded: recorded, found: count)) }
            let indexed = try Int.fetchOne(db, sql: "SELECT count(*) FROM trails_rtree r JOIN trails t ON t.id = r.id") ?? 0
            let rtreeRows = try Int.fetchOne(db, sql: "SELECT count(*) FROM trails_rtree") ?? 0
            if indexed != count || rtreeRows != count { problems.append(.spatialIndexMismatch(trails: count, indexed: indexed)) }
            var rowProblems = 0
            func report(_ p: TrailProblem) {
                rowProblems += 1
                if rowProblems <= maxReported { problems.append(p) }
            }
            let rows = try Row.fetchCursor(
                db,
                sql: """
                    SELECT id, difficulty, length_m, min_lon, min_lat, max_lon, max_lat, start_lon, start_lat, end_lon, end_lat,
                    geometry FROM trails
                    """)
            while let row = try rows.next() {
                let id = TrailID(value: row.int64(0))
                let difficulty = row.text(1) ?? ""
                if TrailDifficulty(rawValue: difficulty) == nil { report(.badDifficulty(id: id, value: difficulty)) }
                let length = row.real(2)
                if !(length.isFinite && length >= 0) { report(.badLength(id: id)) }
                guard let g = GeometryCodec.decode(row.bytes(11)), let b = g.bounds, let s = g.start, let e = g.end else {
                    report(.badGeometry(id: id))
                    continue
                }
                let stored = [row.real(3), row.real(4), row.real(5), row.real(6), row.real(7), row.real(8), row.real(9), row.real(10)]
                let actual = [b.west, b.south, b.east, b.north, s.lon, s.lat, e.lon, e.lat]
                // The geometry is stored to a microdegree; the columns hold the source's doubles.
                if zip(stored, actual).contains(where: { abs($0 - $1) > 1e-6 }) { report(.boundsMismatch(id: id)) }
            }
            return problems
        }
    }
}
