/// The tile size a bundle declares.
extension BundleMetadata {
    /// The metadata key of the tiles' size in pixels, `256` or `512`.
    public static let tileSizeKey = "trailmap:tilesize"

    /// The tile size `pairs` declare: 256 or 512; nil when the key is absent or holds another value
    /// (bundles of other tools lack it: their tiles are usually 256 px, sometimes 512).
    public static func tileSize(_ pairs: [String: String]) -> Int? {
        guard let value = pairs[tileSizeKey], let size = Int(value), [256, 512].contains(size) else { return nil }
        return size
    }
}
