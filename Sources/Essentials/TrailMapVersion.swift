/// TrailMap's version: the one place it is written. `trailmap --version` prints it and every
/// bundle records it as its builder (`trailmap:builder`), so the two always agree.
public enum TrailMapVersion {
    /// The release number, e.g. `0.8.0`.
    public static let number = "0.8.0"

    /// What a bundle stores as `trailmap:builder`: `trailmap-builder NUMBER`.
    public static let builder = "trailmap-builder \(number)"
}
