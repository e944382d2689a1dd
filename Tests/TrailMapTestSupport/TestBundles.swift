import Foundation
import Raster
import TileGeometry
import TileStore

/// The one place tests write bundles: every fixture (server, catalog, cache, CLI, formats) chooses
/// its tiles and metadata and calls `TestBundle.write`.
public enum TestBundle {
    /// Writes `tiles` and `metadata` as a new bundle at `path` (through `BundleWriter`: the
    /// TrailMap layout, written to a temporary file and renamed); returns `path`.
    @discardableResult
    public static func write<S: Sequence>(_ tiles: S, to path: String, metadata: BundleMetadata) throws -> String
    where S.Element == (tile: TileID, data: [UInt8]) {
        let writer = try BundleWriter(path: path)
        try writer.add(Array(tiles))
        _ = try writer.finish(metadata: metadata)
        return path
    }

    /// Every tile of the bundle at `path`, by address (to compare two bundles tile by tile).
    public static func tiles(_ path: String) throws -> [TileID: Data] {
        var out = [TileID: Data]()
        try BundleReader(path: path).forEachTile { t, data in
            out[t] = data
            return true
        }
        return out
    }

    /// Writes `tiles` (a dictionary) and `metadata` as a new bundle at `path`; returns `path`.
    @discardableResult
    public static func write(_ tiles: [TileID: [UInt8]], to path: String, metadata: BundleMetadata) throws -> String {
        try write(tiles.map { (tile: $0.key, data: $0.value) }, to: path, metadata: metadata)
    }

    /// Writes a variant's bundle (`VariantTiles`; `format` and `trailmap:tilesize` set), with
    /// `replace` swapped in and `metadata` rows overriding (`format` among them); returns its tiles.
    @discardableResult
    public static func variant(
        _ variant: TileVariant, to path: String, replace: [TileID: [UInt8]] = [:],
        metadata: [String: String] = [:]
    ) throws -> [TileID: [UInt8]] {
        let tiles = try VariantTiles.tiles(variant).merging(replace) { _, new in new }
        var meta = BundleMetadata(
            name: "Variant \(variant)", bounds: VariantTiles.box,
            minZoom: VariantTiles.zooms.lowerBound, maxZoom: VariantTiles.zooms.upperBound)
        meta.format = variant.format.rawValue
        meta.extra["trailmap:tilesize"] = String(variant.tileSize)
        meta.extra["trailmap:builder"] = "test"
        for (key, value) in metadata {
            if key == "format" { meta.format = value } else { meta.extra[key] = value }
        }
        try write(tiles, to: path, metadata: meta)
        return tiles
    }
}
