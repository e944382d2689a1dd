// The Catalog module; see ../shared/DESIGN.md.
enum CatalogModule {}
