import Raster

/// One decoded terrain tile: its elevations in metres, row by row from the north-west corner,
/// NaN for voids (alpha 0).
struct ElevationTile: Sendable {
    /// Tile sizes a terrain tile may have, in pixels.
    static let acceptedSizes: Set<Int> = [256, 512]

    let size: Int
    let values: [Float]

    /// Decodes an encoded tile; `name` and `tile` only label errors.
    init(data: [UInt8], encoding: TerrainEncoding, name: String, tile: String) throws(ElevationError) {
        let image: RGBAImage
        do { image = try TileDecoder.decode(data, maxPixels: 512 * 512) } catch {
            throw .badTile(path: name, tile: tile, detail: "cannot be decoded: \(error)")
        }
        guard image.width == image.height, Self.acceptedSizes.contains(image.width) else {
            throw .badTile(
                path: name, tile: tile, detail: "\(image.width)x\(image.height) pixels is not a square terrain tile of 256 or 512")
        }
        size = image.width
        let pixels = image.pixels
        var out = [Float](repeating: .nan, count: size * size)
        for i in 0..<(size * size) where pixels[i * 4 + 3] != 0 {
            out[i] = Float(encoding.decode(red: pixels[i * 4], green: pixels[i * 4 + 1], blue: pixels[i * 4 + 2]))
        }
        values = out
    }

    /// The elevation of a pixel, nil for a void.
    @inline(__always) func value(column: Int, row: Int) -> Float? {
        let v = values[row * size + column]
        return v.isNaN ? nil : v
    }
}
