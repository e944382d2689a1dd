import Essentials
import Foundation
@testable import TileStore

/// Hand-made PMTiles archives, well-formed or not: header, root directory, metadata, leaf
/// directories and tile data in that order, with directory bytes given as they are.
struct CraftedArchive {
    /// The root directory's bytes (already serialized; compressed with `gzip`).
    var root: [UInt8]
    /// The leaf directories section, as it is.
    var leaves: [UInt8] = []
    var metadata: [UInt8] = Array(#"{"name":"Crafted","attribution":"tests"}"#.utf8)
    var data: [UInt8]
    var gzip = false
    var tileType: UInt8 = 2
    var tileCompression: UInt8 = 1
    var minZoom: UInt8 = 0
    var maxZoom: UInt8 = 5

    /// The archive's bytes.
    var bytes: [UInt8] {
        let root = gzip ? Gzip.compress(self.root) ?? [] : self.root
        let metadata = gzip ? Gzip.compress(self.metadata) ?? [] : self.metadata
        var h = [UInt8]("PMTiles".utf8) + [3]
        let rootOffset = UInt64(PMTilesFormat.headerSize)
        let metaOffset = rootOffset + UInt64(root.count)
        let leafOffset = metaOffset + UInt64(metadata.count)
        let dataOffset = leafOffset + UInt64(leaves.count)
        for v in [
            rootOffset, UInt64(root.count), metaOffset, UInt64(metadata.count), leafOffset, UInt64(leaves.count),
            dataOffset, UInt64(data.count), 0, 0, 0
        ] {
            for i in 0..<8 { h.append(UInt8((v >> (8 * UInt64(i))) & 0xff)) }
        }
        h += [1, gzip ? 2 : 1, tileCompression, tileType, minZoom, maxZoom]
        // Bounds -110,36,-101,42; center -105,39 at zoom 3.
        for degrees in [-110.0, 36, -101, 42] { h += le32(degrees) }
        h.append(3)
        h += le32(-105) + le32(39)
        return h + root + metadata + leaves + data
    }

    private func le32(_ degrees: Double) -> [UInt8] {
        let u = UInt32(bitPattern: Int32(degrees * 10_000_000))
        return (0..<4).map { UInt8((u >> (8 * UInt32($0))) & 0xff) }
    }

    /// Writes the archive to `path`; returns `path`.
    @discardableResult
    func write(to path: String) throws -> String {
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// A directory's bytes.
    static func directory(_ entries: [PMTilesFormat.Entry]) -> [UInt8] { PMTilesFormat.serialize(entries) }

    /// A varint's bytes.
    static func varint(_ v: UInt64) -> [UInt8] {
        var out = [UInt8]()
        PMTilesFormat.varint(v, into: &out)
        return out
    }
}
