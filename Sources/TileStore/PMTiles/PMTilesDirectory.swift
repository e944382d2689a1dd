/// Decoding and searching PMTiles v3 directories (spec §4): a varint entry count, then the
/// entries' tile id deltas, run lengths, lengths and offsets, column by column.
public enum PMTilesDirectory {
    /// Where a directory's entries may point: the lengths of the tile data and leaf sections.
    public struct Bounds: Sendable, Equatable {
        public var tileDataLength: UInt64
        public var leafLength: UInt64

        public init(tileDataLength: UInt64, leafLength: UInt64) {
            self.tileDataLength = tileDataLength
            self.leafLength = leafLength
        }
    }

    /// The largest tile id (the last tile of zoom 31); anything beyond it is damage.
    static let maxTileID: UInt64 = UInt64.max / 3 - 1 // 4^0 + ... + 4^31 = (2^64 - 1) / 3 tiles

    /// Decodes an uncompressed directory. Checks everything a lookup relies on: a sane entry count,
    /// varints of at most 64 bits, strictly ascending tile ids, nonzero lengths, and every entry
    /// inside its section (tile data for tiles, leaf directories for leaves). `name` names the
    /// directory in errors.
    public static func decode(_ bytes: [UInt8], bounds: Bounds, name: String) throws(PMTilesProblem) -> [PMTilesFormat.Entry] {
        var reader = VarintReader(bytes: bytes, name: name)
        let count = try reader.next()
        // Each entry takes at least one byte in each of the four columns.
        guard count > 0, count <= UInt64(bytes.count / 4) else {
            throw .absurdEntryCount(directory: name, count: count, bytes: bytes.count)
        }
        let n = Int(count)
        var entries = [PMTilesFormat.Entry](repeating: PMTilesFormat.Entry(tileID: 0, offset: 0, length: 0, runLength: 0), count: n)
        var last: UInt64 = 0
        for i in 0..<n {
            let delta = try reader.next()
            let (id, overflow) = last.addingReportingOverflow(delta)
            guard !overflow, id <= maxTileID, i == 0 || delta > 0 else { throw .unsortedEntries(directory: name, index: i) }
            entries[i].tileID = id
            last = id
        }
        for i in 0..<n {
            let run = try reader.next()
            guard run <= UInt64(UInt32.max) else {
                throw .badEntry(directory: name, index: i, reason: "run length \(run) does not fit 32 bits")
            }
            // A run may not reach past the next entry's first tile (or the last tile id).
            let limit = i + 1 < n ? entries[i + 1].tileID : maxTileID + 1
            guard run <= limit - entries[i].tileID else {
                throw .badEntry(directory: name, index: i, reason: "its run of \(run) tiles overlaps the next entry")
            }
            entries[i].runLength = UInt32(run)
        }
        for i in 0..<n {
            let length = try reader.next()
            guard length > 0, length <= UInt64(UInt32.max) else {
                throw .badEntry(directory: name, index: i, reason: "length \(length) is not between 1 and 2^32 - 1")
            }
            entries[i].length = UInt32(length)
        }
        for i in 0..<n {
            let value = try reader.next()
            if value == 0, i > 0 {
                // The previous entry's end, which was checked to lie inside its section.
                entries[i].offset = entries[i - 1].offset + UInt64(entries[i - 1].length)
            } else {
                guard value > 0 else { throw .badEntry(directory: name, index: i, reason: "the first entry's offset is encoded as 0") }
                entries[i].offset = value - 1
            }
            let e = entries[i]
            let (section, length) =
                e.runLength == 0 ? ("leaf directories section", bounds.leafLength) : ("tile data section", bounds.tileDataLength)
            let (end, overflow) = e.offset.addingReportingOverflow(UInt64(e.length))
            guard !overflow, end <= length else {
                throw .entryOutsideSection(directory: name, index: i, section: section, end: overflow ? .max : end, sectionLength: length)
            }
        }
        return entries
    }

    /// The entry that holds `tileID` (a tile entry whose run covers it), or the leaf entry whose
    /// range may hold it; nil when the directory has neither. Binary search for the last entry at
    /// or before the id, as the specification's readers do.
    public static func find(_ tileID: UInt64, in entries: [PMTilesFormat.Entry]) -> PMTilesFormat.Entry? {
        var lo = 0, hi = entries.count - 1
        while lo <= hi {
            let mid = (lo + hi) >> 1
            let id = entries[mid].tileID
            if id < tileID { lo = mid + 1 } else if id > tileID { hi = mid - 1 } else { return entries[mid] }
        }
        guard hi >= 0 else { return nil }
        let e = entries[hi]
        if e.runLength == 0 || tileID - e.tileID < UInt64(e.runLength) { return e }
        return nil
    }
}
