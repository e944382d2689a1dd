/// SQL of the deduplicated MBTiles layout TrailMap writes.
enum BundleSchema {
    static let create = """
        CREATE TABLE metadata (name TEXT NOT NULL PRIMARY KEY, value TEXT);
        CREATE TABLE images (tile_id TEXT NOT NULL PRIMARY KEY, tile_data BLOB NOT NULL);
        CREATE TABLE map (
            zoom_level INTEGER NOT NULL,
            tile_column INTEGER NOT NULL,
            tile_row INTEGER NOT NULL,
            tile_id TEXT NOT NULL,
            PRIMARY KEY (zoom_level, tile_column, tile_row)
        );
        CREATE VIEW tiles AS
            SELECT map.zoom_level AS zoom_level, map.tile_column AS tile_column,
                   map.tile_row AS tile_row, images.tile_data AS tile_data
            FROM map JOIN images ON images.tile_id = map.tile_id;
        """
}
