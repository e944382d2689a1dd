// The RegionManager module; see ../shared/DESIGN.md.
enum RegionManagerModule {}
