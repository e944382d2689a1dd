import Foundation
import GRDB

/// A trail's elevation figures, as a build with terrain stores them.
public struct TrailElevation: Sendable, Hashable, Codable {
    public var ascentMetres: Double
    public var descentMetres: Double
    /// The steepest grade in either direction, percent (positive).
    public var maxGradePercent: Double

    public init(ascentMetres: Double, descentMetres: Double, maxGradePercent: Double) {
        self.ascentMetres = ascentMetres
        self.descentMetres = descentMetres
        self.maxGradePercent = maxGradePercent
    }

    /// The figures as a bundle stores them (`ascent_m, descent_m, max_grade_pct`, from
    /// `column` on): nil when any is NULL, not finite or negative (a bundle is input; an
    /// infinite figure would not even encode as JSON).
    init?(row: Row, column: Int) {
        guard let a = row[column] as Double?, let d = row[column + 1] as Double?, let g = row[column + 2] as Double?,
            [a, d, g].allSatisfy({ $0.isFinite && $0 >= 0 })
        else { return nil }
        self.init(ascentMetres: a, descentMetres: d, maxGradePercent: g)
    }
}

/// The optional elevation columns of `trails` (`ascent_m`, `descent_m`, `max_grade_pct`): added
/// by `write` to a bundle that lacks them; a bundle without them stays readable, and its trails
/// have no elevation (they pass no elevation filter).
public enum TrailElevationStore {
    static let columns = ["ascent_m", "descent_m", "max_grade_pct"]

    /// Whether `db`'s `trails` table has the elevation columns.
    static func hasColumns(_ db: Database) throws -> Bool {
        let names = Set(try db.columns(in: "trails").map(\.name))
        return columns.allSatisfy(names.contains)
    }

    /// Stores `figures` in `db`'s trails table, adding the columns when it lacks them.
    static func store(_ figures: [TrailID: TrailElevation], in db: Database) throws {
        if try !hasColumns(db) {
            for c in columns { try db.execute(sql: "ALTER TABLE trails ADD COLUMN \(c) REAL") }
        }
        for (id, f) in figures {
            try db.execute(
                sql: "UPDATE trails SET ascent_m = ?, descent_m = ?, max_grade_pct = ? WHERE id = ?",
                arguments: [f.ascentMetres, f.descentMetres, f.maxGradePercent, id.value])
        }
    }

    /// The figures stored in `db`'s trails table, by trail (none when it lacks the columns).
    static func read(_ db: Database) throws -> [TrailID: TrailElevation] {
        guard try hasColumns(db) else { return [:] }
        var out = [TrailID: TrailElevation]()
        for row in try Row.fetchAll(db, sql: "SELECT id, ascent_m, descent_m, max_grade_pct FROM trails WHERE ascent_m IS NOT NULL") {
            guard let figures = TrailElevation(row: row, column: 1) else { continue }
            out[TrailID(value: row[0])] = figures
        }
        return out
    }

    /// Stores `figures` in the bundle at `path` (its trails tables must exist).
    public static func write(_ figures: [TrailID: TrailElevation], toBundle path: String) throws(TrailStoreError) {
        do {
            let db = try DatabaseQueue(path: path)
            try db.write { db in
                guard try db.tableExists("trails") else { throw TrailStoreError.noTrails(path: path) }
                try store(figures, in: db)
            }
        } catch let e as TrailStoreError {
            throw e
        } catch {
            throw .sqlite(path: path, message: "\(error)")
        }
    }
}

extension TrailIndex {
    /// A trail's elevation figures; nil when the bundle has none for it (or no elevation columns).
    public func elevation(_ id: TrailID) throws(TrailStoreError) -> TrailElevation? {
        try read { db in
            guard try TrailElevationStore.hasColumns(db),
                let row = try Row.fetchOne(
                    db, sql: "SELECT ascent_m, descent_m, max_grade_pct FROM trails WHERE id = ?", arguments: [id.value])
            else { return nil }
            return TrailElevation(row: row, column: 0)
        }
    }
}
