import TileGeometry

/// What a walk over every directory of a PMTiles archive finds (`bundle inspect`, `bundle verify`):
/// tiles per zoom level, the counts the header records (as they really are), leaf directories,
/// distinct contents, and the problems met on the way.
public struct PMTilesSummary: Sendable {
    /// One distinct tile content: where its bytes are and the first tile that uses them.
    public struct Content: Sendable, Equatable {
        public var offset: UInt64
        public var length: UInt32
        public var firstTile: TileID
        /// Tiles addressing these bytes.
        public var tiles: Int
    }

    public let header: PMTilesHeader
    /// Tiles, bytes (each tile counted at its address) and column/row ranges per zoom level.
    public private(set) var levels: [ZoomLevelSummary] = []
    /// Tiles addressed (the sum of run lengths), tile entries, leaf directories.
    public private(set) var addressedTiles = 0
    public private(set) var tileEntries = 0
    public private(set) var leafDirectories = 0
    /// Distinct contents (distinct offsets into the tile data), in the order of their first tile.
    public private(set) var contents: [Content] = []
    /// Bytes of the distinct contents.
    public private(set) var contentBytes = 0
    /// Whether the data really is clustered (each tile's bytes follow the previous ones or repeat earlier ones, starting at 0).
    public private(set) var clusteredOrder = true
    /// Directory problems and tile ids beyond zoom 22 (at most `maxReported`, then a count).
    public private(set) var problems: [String] = []

    /// Walks `reader`'s directories.
    public init(_ reader: PMTilesReader, maxReported: Int = 50) {
        header = reader.header
        var byZoom = [Int: ZoomLevelSummary]()
        var index = [UInt64: Int]()
        var contents = [Content]()
        var addressed = 0, entries = 0, leaves = 0, bytes = 0, beyond = 0
        var nextOffset: UInt64 = 0
        var clustered = true
        var found = [String]()
        reader.walk(
            tile: { e in
                entries += 1
                addressed += Int(e.runLength)
                // Clustered: each content follows the previous one, or repeats an earlier one.
                if e.offset == nextOffset { nextOffset += UInt64(e.length) } else if e.offset > nextOffset { clustered = false }
                let first = PMTilesFormat.tile(id: e.tileID)
                beyond += Self.add(e, to: &byZoom)
                if let i = index[e.offset] {
                    contents[i].tiles += Int(e.runLength)
                    if contents[i].length != e.length {
                        found.append(
                            """
                            tiles \(contents[i].firstTile) and \(first.map { "\($0)" } ?? "id \(e.tileID)") share offset \(e.offset) \
                            of the tile data with lengths \(contents[i].length) and \(e.length)
                            """
                        )
                    }
                } else if let first {
                    index[e.offset] = contents.count
                    contents.append(Content(offset: e.offset, length: e.length, firstTile: first, tiles: Int(e.runLength)))
                    bytes += Int(e.length)
                }
            }, leaf: { _, _ in leaves += 1 }, problem: { found.append($0) })
        if beyond > 0 { found.append("\(beyond) tile ids lie beyond zoom \(TileID.maxZoom)") }
        levels = byZoom.values.sorted { $0.zoom < $1.zoom }
        addressedTiles = addressed
        tileEntries = entries
        leafDirectories = leaves
        self.contents = contents
        contentBytes = bytes
        clusteredOrder = clustered
        problems = Array(found.prefix(maxReported))
        if found.count > maxReported { problems.append("... and \(found.count - maxReported) more directory problems") }
    }

    /// Adds an entry's run to the zoom levels it covers; returns how many of its tiles lie beyond zoom 22.
    /// A run is cut at zoom boundaries, then into aligned blocks of 4^k ids, each the 2^k × 2^k
    /// descendants of one tile k zooms up (Hilbert curves nest): long runs cost O(zoom), not O(tiles).
    static func add(_ e: PMTilesFormat.Entry, to levels: inout [Int: ZoomLevelSummary]) -> Int {
        var id = e.tileID
        let end = e.tileID + UInt64(e.runLength)
        var zoomStart: UInt64 = 0
        for z in 0...TileID.maxZoom {
            let zoomEnd = zoomStart + (UInt64(1) << (2 * UInt64(z)))
            defer { zoomStart = zoomEnd }
            guard id < zoomEnd, id < end else { continue }
            let stop = min(end, zoomEnd)
            var d = id - zoomStart
            var remaining = stop - id
            levels[z, default: ZoomLevelSummary(zoom: z, tiles: 0, bytes: 0, minX: .max, maxX: .min, minY: .max, maxY: .min)]
                .add(count: Int(remaining), bytes: Int(remaining) * Int(e.length))
            while remaining > 0 {
                var k = 0
                while k < z, d % (UInt64(1) << (2 * UInt64(k + 1))) == 0, UInt64(1) << (2 * UInt64(k + 1)) <= remaining { k += 1 }
                let block = UInt64(1) << (2 * UInt64(k))
                // The block's ancestor: tile id d / 4^k of zoom z - k.
                let upStart = ((UInt64(1) << (2 * UInt64(z - k))) - 1) / 3
                if let p = PMTilesFormat.tile(id: upStart + d / block) {
                    levels[z]?.cover(minX: p.x << k, maxX: ((p.x + 1) << k) - 1, minY: p.y << k, maxY: ((p.y + 1) << k) - 1)
                }
                d += block
                remaining -= block
            }
            id = stop
        }
        return Int(end - id)
    }

    /// Bytes the tiles take at their addresses (identical tiles counted each time).
    public var tileBytes: Int { levels.reduce(0) { $0 + $1.bytes } }
}

extension ZoomLevelSummary {
    mutating func add(count: Int, bytes b: Int) {
        tiles += count
        bytes += b
    }

    mutating func cover(minX x0: Int, maxX x1: Int, minY y0: Int, maxY y1: Int) {
        minX = min(minX, x0)
        maxX = max(maxX, x1)
        minY = min(minY, y0)
        maxY = max(maxY, y1)
    }
}
