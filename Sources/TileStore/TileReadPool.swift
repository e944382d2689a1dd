import Foundation
import GRDBSQLite
import Synchronization
import TileGeometry

/// Fast concurrent tile lookups for serving: a pool of raw read-only SQLite connections on one
/// bundle file, each with its lookup statement prepared once.
///
/// The pool holds a file descriptor of the bundle from the start and opens every connection
/// through `/proc/self/fd/N`, so a bundle replaced on disk (renamed over) keeps being read from the
/// file the pool was made for until the pool is released: requests in flight never mix two files.
/// Connections are opened `immutable`: no locks or journal checks per read. Bundles changed in
/// place must be reopened (the server watches size and mtime and makes a new pool).
public final class TileReadPool: Sendable {
    /// Page cache of each connection, in KiB. Tiles are cached above the pool, so SQLite's own
    /// cache only needs the B-trees' upper pages; SQLite's default (2,000 KiB a connection) held
    /// 6.5 MB on four busy connections, three times what the tile cache reserves per open bundle.
    public static let pageCacheKiB = 256
    public let path: String
    public let layout: BundleLayout
    private let fd: Int32
    private let idle = Mutex<[TileConnection]>([])
    private let maxIdle: Int

    /// Opens the file and checks that one connection works.
    public init(path: String, layout: BundleLayout, maxIdle: Int = 16) throws(TileStoreError) {
        self.path = path
        self.layout = layout
        self.maxIdle = maxIdle
        fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw errno == ENOENT ? .notFound(path: path) : .sqlite(path: path, message: String(cString: strerror(errno)))
        }
        let first: TileConnection
        do { first = try TileConnection(uri: "file:/proc/self/fd/\(fd)?immutable=1", layout: layout, path: path) } catch {
            close(fd)
            throw error
        }
        idle.withLock { $0.append(first) }
    }

    deinit {
        idle.withLock { $0.removeAll() }
        close(fd)
    }

    /// Looks up a tile and passes its bytes and stored id (the content hash in TrailMap bundles,
    /// nil in the plain layout) to `body`; returns nil when the bundle has no such tile.
    /// The bytes are valid only inside `body`.
    public func withTile<R>(_ tile: TileID, _ body: (UnsafeRawBufferPointer, String?) throws -> R) throws -> R? {
        let connection = try checkout()
        defer { checkin(connection) }
        return try connection.withTile(tile, body)
    }

    func checkout() throws(TileStoreError) -> TileConnection {
        if let c = idle.withLock({ $0.popLast() }) { return c }
        return try TileConnection(uri: "file:/proc/self/fd/\(fd)?immutable=1", layout: layout, path: path)
    }

    func checkin(_ c: TileConnection) {
        idle.withLock { if $0.count < maxIdle { $0.append(c) } }
    }
}

/// One SQLite connection with its prepared lookup; used by one thread at a time.
final class TileConnection: @unchecked Sendable {
    private var db: OpaquePointer?
    private var statement: OpaquePointer?
    private let path: String

    init(uri: String, layout: BundleLayout, path: String) throws(TileStoreError) {
        self.path = path
        let flags = SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX
        guard sqlite3_open_v2(uri, &db, flags, nil) == SQLITE_OK else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            sqlite3_close(db)
            throw .sqlite(path: path, message: message)
        }
        sqlite3_exec(db, "PRAGMA cache_size = -\(TileReadPool.pageCacheKiB)", nil, nil, nil)
        // A bundle is untrusted input: its schema (views, triggers) may not call functions with side effects.
        sqlite3_exec(db, "PRAGMA trusted_schema = OFF", nil, nil, nil)
        let sql =
            layout == .deduplicated
            ? """
            SELECT map.tile_id, images.tile_data FROM map JOIN images ON images.tile_id = map.tile_id WHERE map.zoom_level = ?1 AND \
            map.tile_column = ?2 AND map.tile_row = ?3
            """
            : "SELECT NULL, tile_data FROM tiles WHERE zoom_level = ?1 AND tile_column = ?2 AND tile_row = ?3"
        guard sqlite3_prepare_v3(db, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil) == SQLITE_OK else {
            let message = String(cString: sqlite3_errmsg(db))
            sqlite3_close(db)
            throw .notMBTiles(path: path, reason: message)
        }
    }

    /// `PRAGMA trusted_schema` of this connection (0: off).
    func trustedSchema() -> Int32 {
        var st: OpaquePointer?
        defer { sqlite3_finalize(st) }
        guard sqlite3_prepare_v2(db, "PRAGMA trusted_schema", -1, &st, nil) == SQLITE_OK, sqlite3_step(st) == SQLITE_ROW else { return -1 }
        return sqlite3_column_int(st, 0)
    }

    deinit {
        sqlite3_finalize(statement)
        sqlite3_close(db)
    }

    func withTile<R>(_ tile: TileID, _ body: (UnsafeRawBufferPointer, String?) throws -> R) throws -> R? {
        defer { sqlite3_reset(statement) }
        sqlite3_bind_int64(statement, 1, Int64(tile.z))
        sqlite3_bind_int64(statement, 2, Int64(tile.x))
        sqlite3_bind_int64(statement, 3, Int64(tile.tmsY))
        switch sqlite3_step(statement) {
        case SQLITE_ROW:
            let id = sqlite3_column_text(statement, 0).map { String(cString: $0) }
            let bytes = sqlite3_column_blob(statement, 1)
            let count = Int(sqlite3_column_bytes(statement, 1))
            return try body(UnsafeRawBufferPointer(start: bytes, count: count), id)
        case SQLITE_DONE:
            return nil
        default:
            throw TileStoreError.sqlite(path: path, message: String(cString: sqlite3_errmsg(db)))
        }
    }
}
