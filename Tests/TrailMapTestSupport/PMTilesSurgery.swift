import Essentials
import Foundation
import TileStore

/// Damages PMTiles archives on purpose, by editing their bytes: the header, and the root or a
/// leaf directory (decoded, changed, re-encoded and compressed as the header says).
public enum PMTilesSurgery {
    /// Header field offsets (spec §3).
    public static let rootOffsetField = 8, rootLengthField = 16, leafOffsetField = 40, leafLengthField = 48
    public static let tileDataOffsetField = 56, tileDataLengthField = 64

    public static func bytes(_ path: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) }
    public static func write(_ bytes: [UInt8], _ path: String) throws { try Data(bytes).write(to: URL(fileURLWithPath: path)) }

    public static func u64(_ b: [UInt8], _ at: Int) -> UInt64 { (0..<8).reduce(0) { $0 | UInt64(b[at + $1]) << (8 * UInt64($1)) } }
    public static func setU64(_ b: inout [UInt8], _ at: Int, _ v: UInt64) {
        for i in 0..<8 { b[at + i] = UInt8((v >> (8 * UInt64(i))) & 0xff) }
    }

    /// Keeps the first `count` bytes.
    public static func truncate(_ path: String, to count: Int) throws { try write(Array(bytes(path).prefix(count)), path) }

    /// Sets one byte.
    public static func setByte(_ path: String, at offset: Int, _ value: UInt8) throws {
        var b = try bytes(path)
        b[offset] = value
        try write(b, path)
    }

    /// The root directory's entries.
    public static func rootEntries(_ path: String) throws -> [PMTilesFormat.Entry] {
        try PMTilesReader(path: path).rootEntries
    }

    /// Rewrites the root directory with `edit` applied: in place when the new one fits in the old
    /// one's bytes, else appended at the end of the file (the header points to it either way).
    public static func editRoot(_ path: String, _ edit: (inout [PMTilesFormat.Entry]) -> Void) throws {
        var entries = try rootEntries(path)
        edit(&entries)
        var b = try bytes(path)
        let encoded = try encode(entries, like: b)
        let offset = Int(u64(b, rootOffsetField)), length = Int(u64(b, rootLengthField))
        if encoded.count <= length {
            b.replaceSubrange(offset..<(offset + encoded.count), with: encoded)
            setU64(&b, rootLengthField, UInt64(encoded.count))
        } else {
            setU64(&b, rootOffsetField, UInt64(b.count))
            setU64(&b, rootLengthField, UInt64(encoded.count))
            b += encoded
        }
        try write(b, path)
    }

    /// Rewrites the leaf directory of root entry `index` with `edit` applied, appended at the end of
    /// the file (the leaf section grows to reach it; the root entry points to it).
    public static func editLeaf(_ path: String, rootIndex index: Int, _ edit: (inout [PMTilesFormat.Entry]) -> Void) throws {
        let reader = try PMTilesReader(path: path)
        let leafEntry = reader.rootEntries[index]
        let h = reader.header
        var b = try bytes(path)
        let start = Int(h.leafOffset + leafEntry.offset)
        var raw = Array(b[start..<(start + Int(leafEntry.length))])
        if h.internalCompression == .gzip { raw = try Gzip.decompress(raw, limit: 64 << 20) }
        var entries = try PMTilesDirectory.decode(raw, bounds: .init(tileDataLength: h.tileDataLength, leafLength: .max), name: "leaf")
        edit(&entries)
        let encoded = try encode(entries, like: b)
        let newOffset = UInt64(b.count) - h.leafOffset
        b += encoded
        setU64(&b, leafLengthField, UInt64(b.count) - h.leafOffset)
        try write(b, path)
        try editRoot(path) { root in
            root[index].offset = newOffset
            root[index].length = UInt32(encoded.count)
        }
    }

    /// Moves the root directory's entries into `parts` leaf directories (appended at the end of
    /// the file, which becomes the leaf section); the root then holds one leaf entry per part.
    public static func splitIntoLeaves(_ path: String, parts: Int) throws {
        let entries = try rootEntries(path)
        var b = try bytes(path)
        let leafOffset = UInt64(b.count)
        var leafEntries = [PMTilesFormat.Entry]()
        let size = (entries.count + parts - 1) / parts
        for start in stride(from: 0, to: entries.count, by: size) {
            let chunk = Array(entries[start..<min(entries.count, start + size)])
            let encoded = try encode(chunk, like: b)
            leafEntries.append(
                PMTilesFormat.Entry(
                    tileID: chunk[0].tileID, offset: UInt64(b.count) - leafOffset,
                    length: UInt32(encoded.count), runLength: 0))
            b += encoded
        }
        setU64(&b, leafOffsetField, leafOffset)
        setU64(&b, leafLengthField, UInt64(b.count) - leafOffset)
        try write(b, path)
        try editRoot(path) { $0 = leafEntries }
    }

    /// A directory serialized and compressed as the archive `header` says.
    static func encode(_ entries: [PMTilesFormat.Entry], like header: [UInt8]) throws -> [UInt8] {
        let raw = PMTilesFormat.serialize(entries)
        guard header[97] == 2 else { return raw }
        guard let packed = Gzip.compress(raw, level: 9) else { throw CocoaError(.fileWriteUnknown) }
        return packed
    }
}
