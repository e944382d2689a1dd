import TileGeometry

/// A resolution level of a source: full resolution (scale 1) or a reduced copy (an overview),
/// where one of its pixels spans `scaleX` × `scaleY` full-resolution pixels.
public struct SourceLevel: Sendable, Hashable {
    public let width: Int
    public let height: Int
    public let scaleX: Double
    public let scaleY: Double

    public init(width: Int, height: Int, scaleX: Double, scaleY: Double) {
        self.width = width
        self.height = height
        self.scaleX = scaleX
        self.scaleY = scaleY
    }
}

/// The pixels of one source as one rendering thread reads them (implementations need not be
/// thread-safe; each thread has its own).
public protocol SourceWindowReader: AnyObject {
    /// Level 0 is full resolution; the others are coarser, in increasing scale.
    var levels: [SourceLevel] { get }
    /// Reads a window of a level (inside its extent) as straight-alpha RGBA, `width * 4` bytes a row.
    func readWindow(level: Int, x0: Int, y0: Int, width: Int, height: Int, into buffer: UnsafeMutablePointer<UInt8>) throws
}

/// Maps Web Mercator metres to a source's full-resolution pixel coordinates (pixel k spans
/// [k, k+1)), in place; NaN where a point has no image. One per thread.
public protocol MercatorToPixel: AnyObject {
    func pixels(xs: UnsafeMutablePointer<Double>, ys: UnsafeMutablePointer<Double>, count: Int)
}

/// How tile pixels find their source pixels.
public enum PixelMapping {
    /// North-up EPSG:4326 or EPSG:3857: columns depend on x only, rows on y only (closed form).
    case separable(PixelGrid)
    /// Anything else (another CRS, a rotated or sheared geotransform): through a transform,
    /// approximated per tile by a grid of exact points.
    case general(any MercatorToPixel)
}

/// One source as a rendering thread sees it: where its pixels are and how tiles map onto them.
public struct SourceLayer {
    public let reader: any SourceWindowReader
    public let mapping: PixelMapping
    /// The source's footprint in Web Mercator metres (clipped to the Mercator square).
    public let mercatorBounds: MercatorBounds
    /// Whether its pixels are palette colours (a scanned or drawn map: line art in a few
    /// colours). `average` then takes each tile pixel as the mean of point samples (`Supersampling`).
    public let paletted: Bool

    public init(reader: any SourceWindowReader, mapping: PixelMapping, mercatorBounds: MercatorBounds, paletted: Bool = false) {
        self.reader = reader
        self.mapping = mapping
        self.mercatorBounds = mercatorBounds
        self.paletted = paletted
    }
}

extension SourcePyramid: SourceWindowReader {
    public func readWindow(level: Int, x0: Int, y0: Int, width: Int, height: Int, into buffer: UnsafeMutablePointer<UInt8>) throws {
        copyWindow(level: level, x0: x0, y0: y0, w: width, h: height, into: buffer)
    }
}
