// The TileCache module; see ../shared/DESIGN.md.
enum TileCacheModule {}
