import Foundation
import GRDB

/// Writes a new SQLite file (an index or a patch) beside `path` and renames it into place only
/// when `body` succeeded: a failure or a crash never leaves a half-written file under `path`.
enum NewSQLiteFile {
    static func create<T>(at path: String, _ body: (DatabaseQueue) throws -> T) throws(PatchError) -> T {
        let temporary = path + ".tmp"
        try? FileManager.default.removeItem(atPath: temporary)
        do {
            // The file is new, but a patch reads the published bundle (attached) while servers
            // have it open: a lock held for a moment by another connection is waited for, not
            // reported as "database is locked".
            var configuration = Configuration()
            configuration.busyMode = .timeout(30)
            let db = try DatabaseQueue(path: temporary, configuration: configuration)
            try db.writeWithoutTransaction {
                try $0.execute(sql: "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA page_size = 4096;")
            }
            let value = try body(db)
            try db.close()
            guard rename(temporary, path) == 0 else { throw PatchError.file(path: path, reason: String(cString: strerror(errno))) }
            return value
        } catch let e as PatchError {
            try? FileManager.default.removeItem(atPath: temporary)
            throw e
        } catch {
            try? FileManager.default.removeItem(atPath: temporary)
            throw .file(path: path, reason: "\(error)")
        }
    }
}
