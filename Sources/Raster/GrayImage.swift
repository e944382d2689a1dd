/// An 8-bit grey image with an optional alpha channel (straight, not premultiplied), rows top to
/// bottom, no padding: what a grey layer (a hillshade) is drawn as, encoded without being spread
/// into four channels first. Its RGBA form has R = G = B = the grey value.
public struct GrayImage: Sendable, Equatable {
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// `width * height` grey values.
    public let gray: [UInt8]
    /// `width * height` alpha values; nil when every pixel is opaque.
    public let alpha: [UInt8]?

    /// Wraps grey (and alpha) bytes; each must hold `width * height` values.
    public init(width: Int, height: Int, gray: [UInt8], alpha: [UInt8]? = nil) {
        precondition(width >= 0 && height >= 0, "negative image size")
        precondition(gray.count == width * height, "grey buffer does not match the image size")
        precondition(alpha.map { $0.count == width * height } ?? true, "alpha buffer does not match the image size")
        self.width = width
        self.height = height
        self.gray = gray
        self.alpha = alpha
    }

    /// The image as RGBA: each pixel's grey in R, G and B.
    public var rgba: RGBAImage {
        let count = width * height
        let pixels = [UInt8](unsafeUninitializedCapacity: count * 4) { out, initialized in
            gray.withUnsafeBufferPointer { g in
                for i in 0..<count {
                    let v = g[i]
                    out[i &* 4] = v
                    out[i &* 4 &+ 1] = v
                    out[i &* 4 &+ 2] = v
                    out[i &* 4 &+ 3] = 255
                }
            }
            if let alpha {
                for i in 0..<count { out[i &* 4 &+ 3] = alpha[i] }
            }
            initialized = count * 4
        }
        return RGBAImage(width: width, height: height, pixels: pixels)
    }

    /// True when every pixel has alpha 255.
    public var isOpaque: Bool { alpha?.allSatisfy { $0 == 255 } ?? true }

    /// True when every pixel has alpha 0.
    public var isFullyTransparent: Bool { width * height == 0 || (alpha?.allSatisfy { $0 == 0 } ?? false) }
}
