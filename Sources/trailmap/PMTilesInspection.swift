import Foundation
import TileStore

/// The PMTiles part of `bundle inspect --json` for an archive (`pmtiles`): the header's
/// fields and what the directories really hold.
struct PMTilesInspection: Encodable {
    var specVersion = 3
    var addressedTiles: Int
    var tileEntries: Int
    var tileContents: Int
    /// The counts as the header records them (0: unknown).
    var headerAddressedTiles: UInt64
    var headerTileEntries: UInt64
    var headerTileContents: UInt64
    var clustered: Bool
    var leafDirectories: Int
    var internalCompression: String
    var tileCompression: String
    var tileType: String
    var rootDirectoryBytes: UInt64
    var metadataBytes: UInt64
    var leafDirectoriesBytes: UInt64
    var tileDataBytes: UInt64
    /// Problems met walking the directories (`bundle verify` checks more).
    var problems: [String]

    init(_ s: PMTilesSummary) {
        let h = s.header
        addressedTiles = s.addressedTiles
        tileEntries = s.tileEntries
        tileContents = s.contents.count
        headerAddressedTiles = h.addressedTiles
        headerTileEntries = h.tileEntries
        headerTileContents = h.tileContents
        clustered = h.clustered
        leafDirectories = s.leafDirectories
        internalCompression = h.internalCompression.description
        tileCompression = h.tileCompression.description
        tileType = h.tileType.description
        rootDirectoryBytes = h.rootLength
        metadataBytes = h.metadataLength
        leafDirectoriesBytes = h.leafLength
        tileDataBytes = h.tileDataLength
        problems = s.problems
    }
}
