import Terrain
import TileStore

/// How a page draws a tileset, from its metadata (`GET /tiles`' `layer`): the base map under
/// everything, regions over it, drawn relief over both with an opacity, overlays and trails on
/// top. Terrain tiles carry elevations in their colours: pages never draw them as a picture.
enum TilesetLayer: String, Codable, Sendable, CaseIterable {
    case base, region, overlay, hillshade, terrain, trails

    /// The class of a tileset whose metadata is `pairs` (the base map is chosen among regions
    /// afterwards): a valid `encoding` is terrain; the builder's `trailmap:role` says hillshade or
    /// trails (bundles built before the key: a `trailmap:terrain` record is drawn relief); MBTiles
    /// `type` `overlay` is an overlay; anything else a region.
    static func of(_ pairs: [String: String]) -> TilesetLayer {
        if pairs[TerrainEncoding.metadataKey].flatMap(TerrainEncoding.init(metadataValue:)) != nil { return .terrain }
        switch pairs[BundleRole.metadataKey].flatMap(BundleRole.init(rawValue:)) {
        case .terrain?: return .terrain
        case .hillshade?: return .hillshade
        case .trails?: return .trails
        case nil: break
        }
        if pairs["trailmap:terrain"] != nil { return .hillshade }
        return pairs["type"] == "overlay" ? .overlay : .region
    }
}
