import TileGeometry

/// A decoded source image and where it lies on the globe.
public struct GeoreferencedSource: Sendable {
    public let pyramid: SourcePyramid
    public let georeference: PixelGrid
    /// The source's extent in degrees (unclipped).
    public let bounds: GeoBounds
    /// The source's extent in Web Mercator metres (clipped to the Mercator square).
    public let mercatorBounds: MercatorBounds

    public init(pyramid: SourcePyramid, georeference: PixelGrid) {
        self.pyramid = pyramid
        self.georeference = georeference
        bounds = georeference.geoBounds(width: pyramid.width, height: pyramid.height)
        mercatorBounds = (bounds.clippedToMercator ?? bounds).mercator
    }

    /// The source as a rendering layer (the pyramid is safe to share between threads).
    public var layer: SourceLayer {
        SourceLayer(reader: pyramid, mapping: .separable(georeference), mercatorBounds: mercatorBounds)
    }
}
