import Foundation
import GRDB

/// Writes a new SQLite file (an index or a patch) beside `path` and renames it into place only
/// when `body` succeeded: a failure or a crash never leaves a half-written file under `path`.
/// The file being written has a name of its own (`path`, `temporaryMarker`, the process and a
/// UUID), so two writers of the same `path` never share it; the last rename wins.
enum NewSQLiteFile {
    /// What the name of a file being written holds after its final name (`PatchStore` removes
    /// those a crash left behind).
    static let temporaryMarker = ".tmp-"

    static func create<T>(at path: String, _ body: (DatabaseQueue) throws -> T) throws(PatchError) -> T {
        let temporary = path + temporaryMarker + "\(getpid())-\(UUID().uuidString)"
        do {
            // No other connection opens the new file; the files a patch attaches are only read,
            // and one being written by another process at that moment is waited for (up to the
            // timeout), not reported as "database is locked".
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
