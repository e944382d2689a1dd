import Essentials
import Foundation
import TileGeometry

/// What an export to PMTiles wrote.
public struct PMTilesExportStats: Sendable, Equatable {
    /// Tiles addressed, directory entries (after run-length encoding), distinct tile contents.
    public var addressedTiles = 0
    public var entries = 0
    public var contents = 0
    public var leafDirectories = 0
    public var bytes: Int64 = 0
}

/// Writes a bundle as one PMTiles v3 archive: tiles in Hilbert tile-id order (clustered),
/// identical tiles stored once, consecutive tile ids with the same bytes one run-length entry,
/// gzip-compressed directories (leaf directories when the root would not fit in the first
/// 16 KiB), the header's bounds, zooms, center and tile type from the bundle's metadata. The
/// directory entries are held in memory (24 bytes a tile); tile bytes are streamed.
public enum PMTilesExporter {
    public static func export(from bundle: String, to output: String) throws(TileStoreError) -> PMTilesExportStats {
        let reader = try BundleReader(path: bundle)
        let pairs = try reader.metadataPairs()
        var problems = [String]()
        let metadata = BundleMetadata(pairs: pairs, problems: &problems)
        let tileType: UInt8 =
            switch metadata.format {
            case "png": 2;
            case "jpg", "jpeg": 3;
            case "webp": 4;
            default: 0
            }

        // Every tile, by tile id.
        var tiles = [(id: UInt64, key: String, length: Int)]()
        try reader.forEachTileKey { t, key, length in tiles.append((PMTilesFormat.tileID(t), key, length)) }
        tiles.sort { $0.id < $1.id }
        guard !tiles.isEmpty else { throw .invalidArgument("\(bundle) holds no tiles: nothing to export") }

        // Offsets: each content once, in the order of its first tile; runs of the same content.
        var offsets = [String: UInt64]()
        var entries = [PMTilesFormat.Entry]()
        var dataLength: UInt64 = 0
        var order = [String]()
        for t in tiles {
            let offset: UInt64
            if let known = offsets[t.key] {
                offset = known
            } else {
                offset = dataLength
                offsets[t.key] = offset
                order.append(t.key)
                dataLength += UInt64(t.length)
            }
            if var last = entries.last, last.tileID + UInt64(last.runLength) == t.id, last.offset == offset, last.length == UInt32(t.length)
            {
                last.runLength += 1
                entries[entries.count - 1] = last
            } else {
                entries.append(PMTilesFormat.Entry(tileID: t.id, offset: offset, length: UInt32(t.length), runLength: 1))
            }
        }
        let (root, leaves, leafCount) = try directories(entries)
        // The JSON metadata: the bundle's metadata rows as strings (name, description, attribution, ...).
        let json: Data
        do { json = try JSONSerialization.data(withJSONObject: pairs, options: [.sortedKeys]) } catch {
            throw .invalidArgument("metadata: \(error)")
        }
        guard let meta = Gzip.compress(Array(json)) else { throw .invalidArgument("gzip failed") }

        let rootOffset = UInt64(PMTilesFormat.headerSize)
        let metaOffset = rootOffset + UInt64(root.count)
        let leafOffset = metaOffset + UInt64(meta.count)
        let dataOffset = leafOffset + UInt64(leaves.count)
        var header = [UInt8]("PMTiles".utf8) + [3]
        for v in [
            rootOffset, UInt64(root.count), metaOffset, UInt64(meta.count), leafOffset, UInt64(leaves.count),
            dataOffset, dataLength, UInt64(tiles.count), UInt64(entries.count), UInt64(order.count)
        ] { le64(v, &header) }
        header += [1, 2, 1, tileType, UInt8(metadata.minZoom), UInt8(metadata.maxZoom)]
        let b = metadata.bounds
        for v in [b.west, b.south, b.east, b.north] { le32(e7(v), &header) }
        header.append(UInt8(max(0, min(255, metadata.center.zoom))))
        le32(e7(metadata.center.lon), &header)
        le32(e7(metadata.center.lat), &header)
        precondition(header.count == PMTilesFormat.headerSize)

        let temporary = output + ".tmp"
        guard FileManager.default.createFile(atPath: temporary, contents: nil), let handle = FileHandle(forWritingAtPath: temporary) else {
            throw .cannotCreate(path: output, reason: "cannot write \(temporary)")
        }
        do {
            try handle.write(contentsOf: Data(header + root + meta + leaves))
            for key in order {
                guard let data = try reader.tileBytes(key: key) else {
                    throw TileStoreError.unreadable(path: bundle, reason: "a tile's bytes vanished while exporting")
                }
                try handle.write(contentsOf: data)
            }
            try handle.synchronize()
            try handle.close()
            guard rename(temporary, output) == 0 else {
                throw TileStoreError.cannotCreate(path: output, reason: String(cString: strerror(errno)))
            }
        } catch {
            try? handle.close()
            try? FileManager.default.removeItem(atPath: temporary)
            if let e = error as? TileStoreError { throw e }
            throw .cannotCreate(path: output, reason: "\(error)")
        }
        return PMTilesExportStats(
            addressedTiles: tiles.count, entries: entries.count, contents: order.count, leafDirectories: leafCount,
            bytes: Int64(dataOffset + dataLength))
    }

    /// The root directory and the leaf section: all entries in the root when it fits with the
    /// header in 16 KiB, else leaves of N entries (N from 4,096, grown until the root fits).
    static func directories(_ entries: [PMTilesFormat.Entry]) throws(TileStoreError) -> ([UInt8], [UInt8], Int) {
        guard let whole = Gzip.compress(PMTilesFormat.serialize(entries)) else { throw .invalidArgument("gzip failed") }
        if PMTilesFormat.headerSize + whole.count <= PMTilesFormat.rootLimit { return (whole, [], 0) }
        var leafSize = 4096
        while true {
            var leaves = [UInt8](), rootEntries = [PMTilesFormat.Entry]()
            for start in stride(from: 0, to: entries.count, by: leafSize) {
                let chunk = Array(entries[start..<min(entries.count, start + leafSize)])
                guard let leaf = Gzip.compress(PMTilesFormat.serialize(chunk)) else { throw .invalidArgument("gzip failed") }
                rootEntries.append(
                    PMTilesFormat.Entry(tileID: chunk[0].tileID, offset: UInt64(leaves.count), length: UInt32(leaf.count), runLength: 0))
                leaves += leaf
            }
            guard let root = Gzip.compress(PMTilesFormat.serialize(rootEntries)) else { throw .invalidArgument("gzip failed") }
            if PMTilesFormat.headerSize + root.count <= PMTilesFormat.rootLimit { return (root, leaves, rootEntries.count) }
            leafSize += leafSize / 5
        }
    }

    private static func le64(_ v: UInt64, _ out: inout [UInt8]) { for i in 0..<8 { out.append(UInt8((v >> (8 * UInt64(i))) & 0xff)) } }
    private static func le32(_ v: Int32, _ out: inout [UInt8]) {
        let u = UInt32(bitPattern: v)
        for i in 0..<4 { out.append(UInt8((u >> (8 * UInt32(i))) & 0xff)) }
    }
    private static func e7(_ degrees: Double) -> Int32 { Int32(max(-2_147_483_648, min(2_147_483_647, (degrees * 10_000_000).rounded()))) }
}
