import Foundation
import TileGeometry

/// PMTiles v3 (https://github.com/protomaps/PMTiles/blob/main/spec/v3/spec.md): tile ids on
/// Hilbert curves, varint directories, the 127-byte header.
public enum PMTilesFormat {
    /// The header's size.
    public static let headerSize = 127
    /// Header plus root directory must fit in this many bytes (clients fetch them at once).
    public static let rootLimit = 16_384

    /// Whether `path` names a PMTiles archive: it ends in `.pmtiles` or starts with `PMTiles`
    /// (the CLI's commands then read it as one, and report what is wrong with it as such).
    public static func isArchive(path: String) -> Bool {
        if path.hasSuffix(".pmtiles") { return true }
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        return (try? handle.read(upToCount: 7)) == Data("PMTiles".utf8)
    }

    /// The tile id of `t`: the tiles of every lower zoom, then the tile's position on this zoom's
    /// Hilbert curve.
    public static func tileID(_ t: TileID) -> UInt64 {
        var acc: UInt64 = 0
        for z in 0..<t.z { acc += UInt64(1) << (2 * z) }
        let n = UInt64(1) << t.z
        var x = UInt64(t.x), y = UInt64(t.y), d: UInt64 = 0
        var s = n / 2
        while s > 0 {
            let rx: UInt64 = (x & s) > 0 ? 1 : 0
            let ry: UInt64 = (y & s) > 0 ? 1 : 0
            d += s * s * ((3 * rx) ^ ry)
            if ry == 0 {
                if rx == 1 {
                    x = n - 1 - x
                    y = n - 1 - y
                }
                swap(&x, &y)
            }
            s /= 2
        }
        return acc + d
    }

    /// The tile of a tile id (the inverse of `tileID(_:)`); nil beyond zoom `TileID.maxZoom`.
    public static func tile(id: UInt64) -> TileID? {
        var z = 0
        var first: UInt64 = 0
        while true {
            guard z <= TileID.maxZoom else { return nil }
            let count = UInt64(1) << (2 * z)
            if id - first < count { break }
            first += count
            z += 1
        }
        let n = UInt64(1) << z
        var d = id - first, x: UInt64 = 0, y: UInt64 = 0
        var s: UInt64 = 1
        while s < n {
            let rx = 1 & (d / 2)
            let ry = 1 & (d ^ rx)
            if ry == 0 {
                if rx == 1 {
                    x = s - 1 - x
                    y = s - 1 - y
                }
                swap(&x, &y)
            }
            x += s * rx
            y += s * ry
            d /= 4
            s *= 2
        }
        return TileID(z: z, x: Int(x), y: Int(y))
    }

    /// One directory entry: `runLength` consecutive tile ids from `tileID` share the bytes at
    /// `offset` (relative to the tile data section), `length` long; run length 0 points to a leaf
    /// directory (offset relative to the leaf section).
    public struct Entry: Equatable, Sendable {
        public var tileID: UInt64
        public var offset: UInt64
        public var length: UInt32
        public var runLength: UInt32

        public init(tileID: UInt64, offset: UInt64, length: UInt32, runLength: UInt32) {
            self.tileID = tileID
            self.offset = offset
            self.length = length
            self.runLength = runLength
        }
    }

    static func varint(_ value: UInt64, into out: inout [UInt8]) {
        var v = value
        while v >= 0x80 {
            out.append(UInt8(v & 0x7f) | 0x80)
            v >>= 7
        }
        out.append(UInt8(v))
    }

    /// A directory, before compression: the count, then the tile id deltas, run lengths, lengths,
    /// and offsets (0 where an entry follows the previous one's bytes, else offset + 1).
    public static func serialize(_ entries: [Entry]) -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(entries.count * 6 + 8)
        varint(UInt64(entries.count), into: &out)
        var last: UInt64 = 0
        for e in entries {
            varint(e.tileID - last, into: &out)
            last = e.tileID
        }
        for e in entries { varint(UInt64(e.runLength), into: &out) }
        for e in entries { varint(UInt64(e.length), into: &out) }
        for (i, e) in entries.enumerated() {
            if i > 0, e.offset == entries[i - 1].offset + UInt64(entries[i - 1].length) {
                varint(0, into: &out)
            } else {
                varint(e.offset + 1, into: &out)
            }
        }
        return out
    }
}
