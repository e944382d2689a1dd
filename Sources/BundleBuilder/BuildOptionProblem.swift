import TileGeometry

/// A build option that is not valid, with the facts to word it: the value given and the limit.
/// `description` names each option by what it sets, never by a command-line flag.
public enum BuildOptionProblem: Sendable, Equatable, CustomStringConvertible {
    /// `clipBounds` is not west, south, east, north with west < east and south < north.
    case clipBounds(GeoBounds)
    /// `threads` is below 1.
    case threads(Int)
    /// `memoryLimit` (bytes) is below `BuildOptions.minimumMemoryLimit`.
    case memoryLimit(Int)
    /// `tileSize` is not 256 or 512.
    case tileSize(Int)
    /// `name` is empty or blank.
    case emptyName
    /// `quality` given for PNG tiles, which are lossless.
    case qualityForPNG
    /// `quality` outside 1-100.
    case quality(Int)
    /// `quality` and `lossless` both given.
    case qualityWithLossless
    /// `lossless` given for tiles that are not WebP.
    case losslessNotWebP
    /// `update` and `shard` both given.
    case updateWithShard
    /// `read.scale` whose minimum is not below its maximum (or not finite).
    case scale(min: Double, max: Double)
    /// A shard K/N whose N is below 1.
    case shardCount(Int)
    /// A shard K/N whose K is not 1 to N.
    case shardIndex(Int, count: Int)
    /// A shard that is not written K/N (the text).
    case shardSyntax(String)

    public var description: String {
        switch self {
        case let .clipBounds(b): "bounds \(b) must be west,south,east,north with west < east and south < north"
        case .threads: "the number of threads must be at least 1"
        case .memoryLimit: "the memory limit must be at least 64MB"
        case .tileSize: "tile size must be 256 or 512"
        case .emptyName: "the region's name must not be empty"
        case .qualityForPNG: "a quality applies to webp and jpeg tiles, not png (lossless)"
        case let .quality(q): "the quality must be 1-100, not \(q)"
        case .qualityWithLossless: "a quality and lossless tiles exclude each other: lossless WebP keeps every pixel"
        case .losslessNotWebP: "lossless applies to webp tiles only (png is always lossless, jpeg never)"
        case .updateWithShard: "an update and a shard exclude each other: update the merged bundle"
        case let .scale(min, max): "the value range to scale \(min),\(max): its minimum must be less than its maximum"
        case let .shardCount(n): "shard K/N: N must be at least 1, not \(n)"
        case let .shardIndex(k, n): "shard K/N: K must be 1 to N (\(n)), not \(k)"
        case let .shardSyntax(text): "a shard must be K/N, e.g. 2/5 for the second of five parts, not \(text)"
        }
    }
}
