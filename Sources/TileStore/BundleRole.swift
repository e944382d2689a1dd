/// What a bundle is, for a map page choosing how to draw it, recorded by the builder under
/// `trailmap:role`. A bundle without the key is an ordinary picture (MBTiles `type`
/// `baselayer` or `overlay` says the rest).
public enum BundleRole: String, Sendable, CaseIterable {
    /// Drawn relief made from a DEM (hillshade, colour relief or both): shown over the maps
    /// below it with an opacity.
    case hillshade
    /// Elevations encoded in the pixels (Terrarium, Terrain-RGB): data, never a picture.
    case terrain
    /// A transparent overlay of trails only.
    case trails

    /// The metadata key.
    public static let metadataKey = "trailmap:role"
}
