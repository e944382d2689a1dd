/// The preview of a paid tileset: its lowest zoom levels, which anyone may read (the store's and
/// the viewer's picture of what is for sale), never its top zoom, so the preview never gives the
/// product away. Above the preview, tiles need an entitlement as before.
public enum PreviewZooms {
    /// Zoom levels open by default: the bundle's minzoom and the two above it.
    public static let defaultLevels = 3

    /// The highest preview zoom of a tileset with zooms `minZoom...maxZoom`, or nil when it has
    /// none (`levels` 0, or a tileset of one zoom level, whose every tile is the product).
    public static func maxZoom(minZoom: Int, maxZoom: Int, levels: Int) -> Int? {
        guard levels > 0, maxZoom > minZoom else { return nil }
        return min(minZoom + levels - 1, maxZoom - 1)
    }
}
