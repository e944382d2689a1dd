/// The trails tables of a bundle, beside MBTiles' `metadata` and `tiles` (GDAL and other MBTiles
/// readers ignore them):
///
/// - `trails`: one row a trail. `id` is the `TrailID` (also the rowid); `difficulty` one of
///   easy, moderate, hard, expert, unknown; `allowed_uses` / `forbidden_uses` bit masks
///   (`TrailUses`: foot 1, bicycle 2, horse 4, motor_vehicle 8, ski 16); `length_m` the geodesic
///   length on WGS 84; the box, start and end in degrees; `geometry` in `GeometryCodec`'s encoding.
/// - `trails_rtree`: an R*Tree of the boxes (same ids).
/// - `trails_fts`: FTS5 over `name` and `ref` (external content `trails`), tokenized by
///   unicode61 with diacritics removed, so searches ignore case and accents.
/// - `trails_info`: `schema` (the version, `1`) and `count`.
public enum TrailStoreSchema {
    public static let version = "1"

    static let create = """
        CREATE TABLE trails (
            id INTEGER PRIMARY KEY,
            name TEXT,
            ref TEXT,
            difficulty TEXT NOT NULL,
            allowed_uses INTEGER NOT NULL,
            forbidden_uses INTEGER NOT NULL,
            surface TEXT,
            length_m REAL NOT NULL,
            min_lon REAL NOT NULL, min_lat REAL NOT NULL, max_lon REAL NOT NULL, max_lat REAL NOT NULL,
            start_lon REAL NOT NULL, start_lat REAL NOT NULL, end_lon REAL NOT NULL, end_lat REAL NOT NULL,
            geometry BLOB NOT NULL,
            source TEXT NOT NULL
        );
        CREATE VIRTUAL TABLE trails_rtree USING rtree(id, min_lon, max_lon, min_lat, max_lat);
        CREATE VIRTUAL TABLE trails_fts USING fts5(name, ref, content='trails', content_rowid='id',
            tokenize='unicode61 remove_diacritics 2', columnsize=0);
        CREATE TABLE trails_info (name TEXT NOT NULL PRIMARY KEY, value TEXT NOT NULL);
        """

    /// Every table `create` makes (dropped before a rewrite; FTS5 and R*Tree shadow tables go with theirs).
    static let tables = ["trails_fts", "trails_rtree", "trails", "trails_info"]

    /// Every column of `trails`.
    static let allColumns = """
        id, name, ref, difficulty, allowed_uses, forbidden_uses, surface, length_m, min_lon, min_lat, max_lon, max_lat, \
        start_lon, start_lat, end_lon, end_lat, geometry, source
        """

    /// The columns `TrailIndex` reads, in the order `TrailIndex.record` decodes them.
    static let columns = """
        id, name, ref, difficulty, allowed_uses, forbidden_uses, surface, length_m, geometry, source
        """
}
