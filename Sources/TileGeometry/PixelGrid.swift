/// A grid of pixels laid axis-aligned in a closed-form CRS (`CRS`): the affine map from pixel
/// coordinates to the CRS that a world file describes. (`SourceReaders.Georeferencing` is the
/// general case: any affine transform, ground control points or a sensor model, in any CRS.)
///
/// Pixel (col, row) edges map to `x = originX + col * pixelWidth`, `y = originY - row * pixelHeight`,
/// where (originX, originY) is the outer top-left corner of the image.
public struct PixelGrid: Hashable, Sendable {
    public let crs: CRS
    /// X of the top-left corner of the top-left pixel (not its centre).
    public let originX: Double
    /// Y of the top-left corner of the top-left pixel.
    public let originY: Double
    /// Pixel width in CRS units (> 0).
    public let pixelWidth: Double
    /// Pixel height in CRS units (> 0; rows go south).
    public let pixelHeight: Double

    public init(crs: CRS, originX: Double, originY: Double, pixelWidth: Double, pixelHeight: Double) {
        self.crs = crs
        self.originX = originX
        self.originY = originY
        self.pixelWidth = pixelWidth
        self.pixelHeight = pixelHeight
    }

    /// The georeference that stretches an image of the given size over a box in `crs` units.
    public init(crs: CRS, bounds: (minX: Double, minY: Double, maxX: Double, maxY: Double), width: Int, height: Int) {
        self.init(
            crs: crs, originX: bounds.minX, originY: bounds.maxY,
            pixelWidth: (bounds.maxX - bounds.minX) / Double(width),
            pixelHeight: (bounds.maxY - bounds.minY) / Double(height))
    }

    /// Pixel coordinate (fractional, edges at integers) of a CRS x.
    @inline(__always) public func column(x: Double) -> Double { (x - originX) / pixelWidth }
    /// Pixel coordinate (fractional, edges at integers) of a CRS y.
    @inline(__always) public func row(y: Double) -> Double { (originY - y) / pixelHeight }

    /// The image's extent in degrees, for an image of the given size (not clipped).
    public func geoBounds(width: Int, height: Int) -> GeoBounds {
        let maxX = originX + Double(width) * pixelWidth
        let minY = originY - Double(height) * pixelHeight
        switch crs {
        case .epsg4326:
            return GeoBounds(west: originX, south: minY, east: maxX, north: originY)
        case .epsg3857:
            return MercatorBounds(minX: originX, minY: minY, maxX: maxX, maxY: originY).geoBounds
        }
    }
}
