import Foundation
import NIOCore
import Terrain
import TileCache
import TileGeometry
import TileStore

/// The published terrain tilesets (those whose metadata names an `encoding`), read through the
/// server's tile cache, with one memo of decoded tiles shared by every request.
final class TerrainShelf: Sendable {
    let memo = TerrainTileMemo(capacity: 256)

    /// The tilesets of `registry` that are terrain and can be served.
    func tilesets(in registry: TilesetRegistry) -> [ServedTerrain] {
        registry.all.compactMap { t in
            guard t.failure == nil, let value = t.metadataPairs[TerrainEncoding.metadataKey],
                let encoding = TerrainEncoding(metadataValue: value)
            else { return nil }
            return ServedTerrain(tileset: t, registry: registry, encoding: encoding)
        }
    }
}

/// A served tileset as terrain tiles: tiles come through the registry's cache.
struct ServedTerrain: TerrainTiles {
    let tileset: Tileset
    let registry: TilesetRegistry
    let encoding: TerrainEncoding

    var name: String { tileset.id }
    /// The tileset object's identity too: a replaced file is another tileset.
    var memoKey: String { "\(tileset.id)#\(ObjectIdentifier(tileset).hashValue)" }
    var zooms: ClosedRange<Int> {
        let lo = max(0, min(tileset.metadata.minZoom, TileID.maxZoom))
        return lo...max(lo, min(tileset.metadata.maxZoom, TileID.maxZoom))
    }

    func tileData(_ tile: TileID) throws(ElevationError) -> [UInt8]? {
        do {
            return try registry.cachedTile(tileset, tile, client: nil).map { Array($0.buffer.readableBytesView) }
        } catch {
            throw .unreadable(path: tileset.id, reason: "tile \(tile) cannot be read")
        }
    }
}
