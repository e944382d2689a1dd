import NIOCore
import Raster
import Synchronization
import TileCache
import TileStore

/// Fully transparent tiles (for `--empty-tiles transparent`), encoded once per size.
final class EmptyTileCache: Sendable {
    private let tiles = Mutex<[Int: CachedTile]>([:])

    /// The transparent tile of a size with its ETag.
    func tile(size: Int) -> CachedTile? {
        if let t = tiles.withLock({ $0[size] }) { return t }
        guard let png = try? PNGEncoder.encode(RGBAImage(width: size, height: size)) else { return nil }
        let t = CachedTile(buffer: ByteBuffer(bytes: png), etag: "\"\(TileHash.id(png))\"")
        tiles.withLock { $0[size] = t }
        return t
    }
}
