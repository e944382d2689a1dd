/// Why a trails tile could not be drawn.
public enum TrailRenderingError: Error, Sendable, Equatable {
    /// The tile address is outside the zoom range or outside its zoom's grid.
    case invalidTile(z: Int, x: Int, y: Int)
    /// The tile size is not between 1 and `TrailTileRenderer.maxTileSize` pixels.
    case invalidTileSize(Int)
    /// The base image to draw over is not the tile's size.
    case baseSizeMismatch(width: Int, height: Int, tileSize: Int)
    /// Cairo could not make a drawing surface of this size.
    case surfaceUnavailable(width: Int, height: Int)
}
