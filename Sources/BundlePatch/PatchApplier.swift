import Foundation
import GRDB
import TileStore
import Trails

/// Applies patches to a copy of an installed bundle and proves the result is the published version.
public enum PatchApplier {
    /// Applies `patches` in order to a copy of `base` written at `output` (the caller renames it
    /// into place). Before anything is written: each patch is read and checked, the chain must be
    /// unbroken (each starts where the one before ends), and `base`'s content must be the first
    /// patch's starting content (a bundle changed locally is refused). After: the result's
    /// content hash must equal `expected` (the published version's); otherwise `output` is
    /// deleted and `resultMismatch` thrown. The result is vacuumed: no free pages are kept.
    /// Returns the result's content hash.
    ///
    /// Each patch must be a plain patch file (`PatchFile.check`: tables only, rows and bytes
    /// within its size); every connection is in SQLite's defensive mode with `trusted_schema =
    /// OFF`. `output` may grow to what the patches' sizes allow (`outputLimit`), and never past
    /// `maxOutputBytes` (the room the caller has: storage budget, free disk): beyond it SQLite
    /// stops writing and `tooLarge` is thrown, `output` deleted.
    @discardableResult
    public static func apply(
        _ patches: [String], to base: String, output: String, expected: String,
        maxOutputBytes: Int64? = nil
    ) throws(PatchError) -> String {
        guard !patches.isEmpty else { throw .corrupt(path: base, reason: "no patches to apply") }
        let checked = try patches.map { p throws(PatchError) in try PatchFile.checked(p) }
        let headers = checked.map { $0.header }, extents = checked.map { $0.extent }
        for (a, b) in zip(headers, headers.dropFirst()) where a.toContent != b.fromContent || a.toVersion != b.fromVersion {
            throw .corrupt(
                path: patches[headers.firstIndex(of: b)!],
                reason: "it does not start where the patch before it ends (version \(a.toVersion))")
        }
        let found = try ContentHash.of(bundle: base).hash
        guard found == headers[0].fromContent else { throw .wrongBase(path: base, expected: headers[0].fromContent, found: found) }
        let baseBytes = ((try? FileManager.default.attributesOfItem(atPath: base))?[.size] as? NSNumber)?.int64Value ?? 0
        let limit = min(outputLimit(baseBytes: baseBytes, extents), maxOutputBytes ?? .max)
        guard baseBytes <= limit else { throw .tooLarge(limit: limit) }
        try? FileManager.default.removeItem(atPath: output)
        do {
            try FileManager.default.copyItem(atPath: base, toPath: output)
            let db = try DatabaseQueue(path: output, configuration: GuardedSQLite.configuration(readonly: false))
            try db.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;")
                // SQLite refuses to grow the file past the limit (SQLITE_FULL).
                let pageSize = max(512, try Int64.fetchOne(db, sql: "PRAGMA page_size") ?? 4096)
                try db.execute(sql: "PRAGMA max_page_count = \(max(1, limit / pageSize))")
                let deduplicated = try db.tableExists("images") && db.tableExists("map")
                for path in patches {
                    try db.execute(sql: "ATTACH DATABASE ? AS p", arguments: [path])
                    do {
                        try db.inTransaction {
                            try applyOne(db, deduplicated: deduplicated, path: path)
                            return .commit
                        }
                    } catch {
                        try? db.execute(sql: "DETACH DATABASE p")
                        throw error
                    }
                    try db.execute(sql: "DETACH DATABASE p")
                }
                // Rows replaced and removed leave free pages: rewritten without them, and with the
                // images in an order that packs their pages, the file takes no more room than the
                // published one (the content, and its hash, unchanged).
                if deduplicated { try ImagePacking.pack(db) }
                try db.execute(sql: "VACUUM")
            }
            try db.close()
        } catch let e as PatchError {
            try? FileManager.default.removeItem(atPath: output)
            throw e
        } catch let e as DatabaseError where e.resultCode == .SQLITE_FULL {
            try? FileManager.default.removeItem(atPath: output)
            throw .tooLarge(limit: limit)
        } catch {
            try? FileManager.default.removeItem(atPath: output)
            throw .corrupt(path: patches.joined(separator: ", "), reason: "\(error)")
        }
        let result: String
        do { result = try ContentHash.of(bundle: output).hash } catch {
            try? FileManager.default.removeItem(atPath: output)
            throw error
        }
        guard result == expected, result == headers.last!.toContent else {
            try? FileManager.default.removeItem(atPath: output)
            throw .resultMismatch(expected: expected, found: result)
        }
        return result
    }

    /// Most bytes a bundle of `baseBytes` can have once patches of these extents are applied: the
    /// base, plus each patch's file and a generous 256 bytes of index and page overhead per row,
    /// plus 1 MiB. A patch of real tables stays far below it; what a server sends cannot pass it.
    public static func outputLimit(baseBytes: Int64, _ extents: [PatchFile.Extent]) -> Int64 {
        // Rows are at most a quarter of a checked file's bytes: no overflow.
        extents.reduce(baseBytes + (1 << 20)) { $0 + $1.fileBytes + $1.rows * 256 }
    }

    private static func applyOne(_ db: Database, deduplicated: Bool, path: String) throws {
        func same(_ t: String) -> String {
            "\(t).zoom_level = d.zoom_level AND \(t).tile_column = d.tile_column AND \(t).tile_row = d.tile_row"
        }
        if deduplicated {
            try db.execute(sql: "DELETE FROM map WHERE EXISTS (SELECT 1 FROM p.del d WHERE \(same("map")))")
            let image = try db.makeStatement(sql: "INSERT OR IGNORE INTO images (tile_id, tile_data) VALUES (?, ?)")
            let map = try db.makeStatement(
                sql: "INSERT OR REPLACE INTO map (zoom_level, tile_column, tile_row, tile_id) VALUES (?, ?, ?, ?)")
            let rows = try Row.fetchCursor(db, sql: "SELECT zoom_level, tile_column, tile_row, tile_data FROM p.put")
            while let row = try rows.next() {
                let data = Data.fromDatabaseValue(row[3] as DatabaseValue) ?? Data()
                let id = TileHash.id(data)
                try image.execute(arguments: [id, data])
                guard let z = Int.fromDatabaseValue(row[0] as DatabaseValue), let x = Int.fromDatabaseValue(row[1] as DatabaseValue),
                    let y = Int.fromDatabaseValue(row[2] as DatabaseValue)
                else {
                    throw PatchError.corrupt(path: path, reason: "a tile without a zoom, column or row")
                }
                try map.execute(arguments: [z, x, y, id])
            }
            try db.execute(sql: "DELETE FROM images WHERE NOT EXISTS (SELECT 1 FROM map WHERE map.tile_id = images.tile_id)")
        } else {
            for table in ["p.del", "p.put"] {
                try db.execute(sql: "DELETE FROM tiles WHERE EXISTS (SELECT 1 FROM \(table) d WHERE \(same("tiles")))")
            }
            try db.execute(
                sql:
                    """
                    INSERT INTO tiles (zoom_level, tile_column, tile_row, tile_data) SELECT zoom_level, tile_column, tile_row, tile_data \
                    FROM p.put
                    """
            )
        }
        try db.execute(sql: "DELETE FROM metadata WHERE name IN (SELECT name FROM p.meta_del) OR name IN (SELECT name FROM p.meta_put)")
        try db.execute(sql: "INSERT INTO metadata (name, value) SELECT name, value FROM p.meta_put")
        let tables = Set(try String.fetchAll(db, sql: "SELECT name FROM p.sqlite_master WHERE type = 'table'"))
        if tables.contains("trails_put") || tables.contains("trails_del") {
            let replace = try String.fetchOne(db, sql: "SELECT value FROM p.patch WHERE name = 'trails'") == "replace"
            try TrailStoreWriter.apply(
                db, put: tables.contains("trails_put") ? "p.trails_put" : nil,
                delete: tables.contains("trails_del") ? "p.trails_del" : nil, replaceAll: replace)
        }
    }
}
