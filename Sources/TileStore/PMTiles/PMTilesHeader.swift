import TileGeometry

/// The 127-byte header of a PMTiles v3 archive, checked against the size of its file: every
/// section inside the file, a supported compression, a sane zoom range.
public struct PMTilesHeader: Sendable, Equatable {
    public var rootOffset: UInt64
    public var rootLength: UInt64
    public var metadataOffset: UInt64
    public var metadataLength: UInt64
    public var leafOffset: UInt64
    public var leafLength: UInt64
    public var tileDataOffset: UInt64
    public var tileDataLength: UInt64
    /// Counts the writer recorded (0: unknown).
    public var addressedTiles: UInt64
    public var tileEntries: UInt64
    public var tileContents: UInt64
    public var clustered: Bool
    public var internalCompression: PMTilesCompression
    public var tileCompression: PMTilesCompression
    public var tileType: PMTilesTileType
    public var minZoom: Int
    public var maxZoom: Int
    /// In degrees, from the header's 10⁻⁷-degree integers.
    public var bounds: GeoBounds
    public var centerZoom: Int
    public var centerLon: Double
    public var centerLat: Double

    /// Parses and checks a header; `fileSize` is the size of the whole file.
    /// Throws the `PMTilesProblem` that makes the archive unreadable.
    public init(_ bytes: [UInt8], fileSize: Int64) throws(PMTilesProblem) {
        guard bytes.count >= PMTilesFormat.headerSize, fileSize >= Int64(PMTilesFormat.headerSize) else {
            throw .tooShort(size: min(fileSize, Int64(bytes.count)))
        }
        guard bytes[0..<7].elementsEqual("PMTiles".utf8) else {
            // Versions 1 and 2: "PM" and a little-endian 16-bit version.
            if bytes[0] == 0x50, bytes[1] == 0x4D, bytes[3] == 0, (1...2).contains(bytes[2]) { throw .unsupportedVersion(Int(bytes[2])) }
            throw .badMagic
        }
        guard bytes[7] == 3 else { throw .unsupportedVersion(Int(bytes[7])) }
        func u64(_ at: Int) -> UInt64 { (0..<8).reduce(0) { $0 | UInt64(bytes[at + $1]) << (8 * UInt64($1)) } }
        func degrees(_ at: Int) -> Double {
            let u = (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[at + $1]) << (8 * UInt32($1)) }
            return Double(Int32(bitPattern: u)) / 10_000_000
        }
        rootOffset = u64(8)
        rootLength = u64(16)
        metadataOffset = u64(24)
        metadataLength = u64(32)
        leafOffset = u64(40)
        leafLength = u64(48)
        tileDataOffset = u64(56)
        tileDataLength = u64(64)
        addressedTiles = u64(72)
        tileEntries = u64(80)
        tileContents = u64(88)
        clustered = bytes[96] == 1
        internalCompression = PMTilesCompression(bytes[97])
        tileCompression = PMTilesCompression(bytes[98])
        tileType = PMTilesTileType(bytes[99])
        minZoom = Int(bytes[100])
        maxZoom = Int(bytes[101])
        bounds = GeoBounds(west: degrees(102), south: degrees(106), east: degrees(110), north: degrees(114))
        centerZoom = Int(bytes[118])
        centerLon = degrees(119)
        centerLat = degrees(123)

        for (name, offset, length) in sections {
            let (end, overflow) = offset.addingReportingOverflow(length)
            guard !overflow, end <= UInt64(fileSize) else {
                throw .sectionOutsideFile(section: name, offset: offset, length: length, fileSize: fileSize)
            }
        }
        guard rootLength > 0 else { throw .absurdEntryCount(directory: "root directory", count: 0, bytes: 0) }
        switch internalCompression {
        case .gzip, .none: break
        default: throw .unsupportedInternalCompression(internalCompression)
        }
        switch tileCompression {
        case .none, .unknown: break
        default: throw .unsupportedTileCompression(tileCompression)
        }
        guard minZoom <= maxZoom else { throw .zoomRange(min: minZoom, max: maxZoom) }
    }

    /// The four sections: name, offset, length.
    public var sections: [(name: String, offset: UInt64, length: UInt64)] {
        [
            ("root directory", rootOffset, rootLength), ("JSON metadata", metadataOffset, metadataLength),
            ("leaf directories section", leafOffset, leafLength), ("tile data section", tileDataOffset, tileDataLength)
        ]
    }
}
