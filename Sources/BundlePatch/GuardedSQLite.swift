import CSQLiteConfig
import GRDB

/// How a device opens SQLite files a server sent (patches) and the files it writes from them:
/// SQLite's defensive mode (no writable schema, no writes to shadow tables) and
/// `trusted_schema = OFF` (functions with side effects are refused in views, triggers and
/// generated columns of the schema), on the connection and every database attached to it.
enum GuardedSQLite {
    static func configuration(readonly: Bool) -> Configuration {
        var config = Configuration()
        config.readonly = readonly
        config.prepareDatabase { db in
            let rc = trailmap_sqlite_defensive(db.sqliteConnection)
            guard rc == 0 /* SQLITE_OK */ else {
                throw DatabaseError(resultCode: ResultCode(rawValue: rc), message: "cannot enable SQLite's defensive mode")
            }
            try db.execute(sql: "PRAGMA trusted_schema = OFF")
        }
        return config
    }
}
