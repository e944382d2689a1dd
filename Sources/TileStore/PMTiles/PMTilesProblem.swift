import Essentials

/// What is wrong with a PMTiles archive that TrailMap cannot read (`TileStoreError.pmtiles`).
/// `directory` names a directory as "the root directory" or "the leaf directory at offset N".
public enum PMTilesProblem: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file is shorter than the 127-byte header.
    case tooShort(size: Int64)
    /// The file does not start with `PMTiles`.
    case badMagic
    /// A spec version other than 3 (version 1 and 2 archives start with `PM` and a 16-bit version).
    case unsupportedVersion(Int)
    /// A section of the header (root directory, metadata, leaf directories, tile data) reaches past
    /// the end of the file: the file is truncated or the header damaged.
    case sectionOutsideFile(section: String, offset: UInt64, length: UInt64, fileSize: Int64)
    /// A section larger than TrailMap reads into memory.
    case sectionTooLarge(section: String, length: UInt64, limit: Int)
    /// Internal compression other than gzip or none.
    case unsupportedInternalCompression(PMTilesCompression)
    /// Tiles stored compressed (gzip, brotli, zstd): raster tiles are served as they are stored.
    case unsupportedTileCompression(PMTilesCompression)
    /// min zoom above max zoom.
    case zoomRange(min: Int, max: Int)
    /// A compressed section (directory or metadata) does not decompress.
    case compressedData(section: String, GzipError)
    /// A varint longer than 64 bits.
    case varintOverflow(directory: String)
    /// The directory ends before all its entries are read.
    case truncatedDirectory(directory: String)
    /// An entry count that the directory's bytes cannot hold (each entry takes at least 4 bytes), or 0.
    case absurdEntryCount(directory: String, count: UInt64, bytes: Int)
    /// Tile ids not strictly ascending, or past the largest tile id.
    case unsortedEntries(directory: String, index: Int)
    /// An entry whose length is 0, or whose length or run length does not fit its field.
    case badEntry(directory: String, index: Int, reason: String)
    /// An entry that points past the end of its section (tile data or leaf directories).
    case entryOutsideSection(directory: String, index: Int, section: String, end: UInt64, sectionLength: UInt64)
    /// Leaf directories that nest deeper than the reader follows, or point back at one on the path (a cycle).
    case leafCycle(offset: UInt64, depth: Int)
    /// A tile larger than TrailMap serves.
    case tileTooLarge(length: UInt32, limit: Int)
    /// The JSON metadata is not a JSON object.
    case metadata(String)
    /// Reading the file failed (I/O error, or the file shrank after it was opened).
    case readFailed(String)

    public var description: String {
        switch self {
        case let .tooShort(size): "the file is \(size) bytes, shorter than the 127-byte PMTiles header"
        case .badMagic: "the file does not start with \"PMTiles\": not a PMTiles archive"
        case let .unsupportedVersion(v): "PMTiles spec version \(v): TrailMap reads version 3 (convert it with `pmtiles convert`)"
        case let .sectionOutsideFile(section, offset, length, size):
            """
            the \(section) (\(length) bytes at offset \(offset)) reaches past the end of the file (\(size) bytes): the file is truncated \
            or its header damaged
            """
        case let .sectionTooLarge(section, length, limit): "the \(section) is \(length) bytes, more than the \(limit) TrailMap reads"
        case let .unsupportedInternalCompression(c): "directories and metadata compressed with \(c): TrailMap reads gzip or none"
        case let .unsupportedTileCompression(c):
            "tiles compressed with \(c): TrailMap serves raster tiles stored uncompressed (tile compression none)"
        case let .zoomRange(lo, hi): "min zoom \(lo) is above max zoom \(hi)"
        case let .compressedData(section, error): "the \(section): \(error)"
        case let .varintOverflow(directory): "the \(directory) holds a varint longer than 64 bits"
        case let .truncatedDirectory(directory): "the \(directory) ends before its last entry"
        case let .absurdEntryCount(directory, count, bytes): "the \(directory) claims \(count) entries in \(bytes) bytes"
        case let .unsortedEntries(directory, index): "the \(directory)'s tile ids are not ascending at entry \(index)"
        case let .badEntry(directory, index, reason): "entry \(index) of the \(directory): \(reason)"
        case let .entryOutsideSection(directory, index, section, end, length):
            "entry \(index) of the \(directory) points to byte \(end) of the \(section), which has \(length) bytes"
        case let .leafCycle(offset, depth):
            "the leaf directory at offset \(offset) is reached again or nests deeper than \(depth) levels (a cycle in the directories)"
        case let .tileTooLarge(length, limit): "a tile of \(length) bytes, more than the \(limit) TrailMap serves"
        case let .metadata(reason): "the JSON metadata \(reason)"
        case let .readFailed(reason): "reading failed: \(reason)"
        }
    }
}
