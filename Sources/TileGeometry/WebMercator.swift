import Foundation

/// Spherical Web Mercator (EPSG:3857) conversions.
public enum WebMercator {
    /// Earth radius used by EPSG:3857, in metres.
    public static let radius = 6_378_137.0
    /// Half the width of the projected world, in metres.
    public static let originShift = Double.pi * radius
    /// The latitude where the projected square ends, in degrees.
    public static let maxLatitude = 85.051_128_779_806_59

    /// Projects degrees to metres; latitude is clipped to ±maxLatitude.
    public static func project(lon: Double, lat: Double) -> (x: Double, y: Double) {
        let clipped = min(max(lat, -maxLatitude), maxLatitude)
        let x = lon * originShift / 180
        let y = log(tan((90 + clipped) * Double.pi / 360)) * radius
        return (x, y)
    }

    /// Unprojects metres to degrees.
    public static func unproject(x: Double, y: Double) -> (lon: Double, lat: Double) {
        let lon = x / originShift * 180
        let lat = (2 * atan(exp(y / radius)) - Double.pi / 2) * 180 / Double.pi
        return (lon, lat)
    }

    /// Latitude in degrees for a Mercator y in metres.
    public static func latitude(y: Double) -> Double {
        (2 * atan(exp(y / radius)) - Double.pi / 2) * 180 / Double.pi
    }

    /// Mercator y in metres for a latitude in degrees (clipped to ±maxLatitude).
    public static func y(latitude lat: Double) -> Double { project(lon: 0, lat: lat).y }

    /// Size of one tile side in metres at zoom z.
    public static func tileSpan(zoom z: Int) -> Double { 2 * originShift / Double(1 << z) }

    /// Metres per pixel at zoom z for tiles of `tileSize` pixels.
    public static func resolution(zoom z: Int, tileSize: Int = 256) -> Double {
        tileSpan(zoom: z) / Double(tileSize)
    }

    /// The extent of a tile in metres.
    public static func tileBounds(_ t: TileID) -> MercatorBounds {
        let span = tileSpan(zoom: t.z)
        let minX = -originShift + Double(t.x) * span
        let maxY = originShift - Double(t.y) * span
        return MercatorBounds(minX: minX, minY: maxY - span, maxX: minX + span, maxY: maxY)
    }

    /// The tile holding a point at zoom z (points on the far edges fall in the last tile).
    public static func tile(lon: Double, lat: Double, zoom z: Int) -> TileID {
        let (mx, my) = project(lon: lon, lat: lat)
        return tile(x: mx, y: my, zoom: z)
    }

    /// The tile holding a point in metres at zoom z.
    public static func tile(x mx: Double, y my: Double, zoom z: Int) -> TileID {
        let n = 1 << z
        let span = tileSpan(zoom: z)
        let tx = Int(((mx + originShift) / span).rounded(.down))
        let ty = Int(((originShift - my) / span).rounded(.down))
        return TileID(unchecked: z, min(max(tx, 0), n - 1), min(max(ty, 0), n - 1))
    }
}
