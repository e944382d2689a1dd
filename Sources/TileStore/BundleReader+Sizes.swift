import Foundation
import GRDB
import TileGeometry

extension BundleReader {
    /// The tiles of a range: address, a key naming the bytes (equal keys, equal bytes, as
    /// `forEachTileKey` gives) and length, without reading the bytes. Rows with impossible
    /// addresses are left out.
    public func tileSizes(range r: TileRange) throws(TileStoreError) -> [(tile: TileID, key: String, length: Int)] {
        let n = 1 << r.z
        let sql =
            layout == .deduplicated
            ? """
            SELECT m.tile_column, m.tile_row, m.tile_id, LENGTH(i.tile_data) FROM map m JOIN images i ON i.tile_id = m.tile_id
            WHERE m.zoom_level = ? AND m.tile_column BETWEEN ? AND ? AND m.tile_row BETWEEN ? AND ?
            """
            : """
            SELECT tile_column, tile_row, 'r' || rowid, LENGTH(tile_data) FROM tiles
            WHERE zoom_level = ? AND tile_column BETWEEN ? AND ? AND tile_row BETWEEN ? AND ?
            """
        return try read { db in
            var out = [(tile: TileID, key: String, length: Int)]()
            let cursor = try Row.fetchCursor(db, sql: sql, arguments: [r.z, r.minX, r.maxX, n - 1 - r.maxY, n - 1 - r.minY])
            while let row = try cursor.next() {
                guard let x = row.int(0), let tms = row.int(1), let t = TileID(z: r.z, x: x, y: TileID.xyzRow(fromTMS: tms, zoom: r.z)),
                    let key = String.fromDatabaseValue(row[2] as DatabaseValue), let length = row.int(3)
                else { continue }
                out.append((t, key, length))
            }
            return out
        }
    }
}
