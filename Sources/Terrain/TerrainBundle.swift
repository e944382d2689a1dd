import Foundation
import TileGeometry
import TileStore

/// A terrain bundle file (MBTiles with `encoding` metadata), validated when opened: the
/// encoding must be one MapLibre knows, and its zoom levels within TrailMap's range.
public final class TerrainBundle: TerrainTiles {
    public let name: String
    public let encoding: TerrainEncoding
    public let zooms: ClosedRange<Int>
    private let reader: BundleReader

    /// Opens the terrain bundle at `path`.
    public init(path: String) throws(ElevationError) {
        name = path
        do {
            reader = try BundleReader(path: path)
            let pairs = try reader.metadataPairs()
            let found = pairs[TerrainEncoding.metadataKey]
            guard let value = found, let encoding = TerrainEncoding(metadataValue: value) else {
                throw ElevationError.unknownEncoding(path: path, found: found)
            }
            self.encoding = encoding
            guard let range = try reader.zoomRange(declaredIn: pairs) else {
                throw ElevationError.badZooms(path: path, detail: "no zoom levels declared and no tiles")
            }
            guard range.lowerBound >= 0, range.upperBound <= TileID.maxZoom else {
                throw ElevationError.badZooms(path: path, detail: "\(range.lowerBound)-\(range.upperBound) is outside 0-\(TileID.maxZoom)")
            }
            zooms = range
        } catch let e as ElevationError {
            throw e
        } catch {
            throw .unreadable(path: path, reason: "\(error)")
        }
    }

    public func tileData(_ tile: TileID) throws(ElevationError) -> [UInt8]? {
        do { return try reader.tile(tile).map { [UInt8]($0) } } catch { throw .unreadable(path: name, reason: "\(error)") }
    }
}
