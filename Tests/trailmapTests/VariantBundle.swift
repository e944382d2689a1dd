import Raster
import TileGeometry
import TileStore
import TrailMapTestSupport

/// Writes a bundle of `variant`'s tiles (`VariantTiles`) to `path`, with `replace` swapped in and
/// `metadata` rows overriding (`format` among them); returns the tiles written.
@discardableResult
func writeVariantBundle(_ variant: TileVariant, to path: String, replace: [TileID: [UInt8]] = [:],
                        metadata: [String: String] = [:]) throws -> [TileID: [UInt8]] {
    let tiles = try VariantTiles.tiles(variant).merging(replace) { _, new in new }
    let writer = try BundleWriter(path: path)
    try writer.add(tiles.map { (tile: $0.key, data: $0.value) })
    var meta = BundleMetadata(name: "Variant \(variant)", bounds: VariantTiles.box,
                              minZoom: VariantTiles.zooms.lowerBound, maxZoom: VariantTiles.zooms.upperBound)
    meta.format = variant.format.rawValue
    meta.extra["trailmap:tilesize"] = String(variant.tileSize)
    meta.extra["trailmap:builder"] = "test"
    for (key, value) in metadata {
        if key == "format" { meta.format = value } else { meta.extra[key] = value }
    }
    _ = try writer.finish(metadata: meta)
    return tiles
}
