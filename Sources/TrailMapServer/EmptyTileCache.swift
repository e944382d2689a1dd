import NIOCore
import Raster
import Synchronization
import TileStore

/// Fully transparent tiles (for `--empty-tiles transparent`), encoded once per size.
final class EmptyTileCache: Sendable {
    private let tiles = Mutex<[Int: (ByteBuffer, String)]>([:])

    /// The transparent tile of a size and its ETag.
    func tile(size: Int) -> (ByteBuffer, String)? {
        if let t = tiles.withLock({ $0[size] }) { return t }
        guard let png = try? PNGEncoder.encode(RGBAImage(width: size, height: size)) else { return nil }
        let t = (ByteBuffer(bytes: png), "\"\(TileHash.id(png))\"")
        tiles.withLock { $0[size] = t }
        return t
    }
}
