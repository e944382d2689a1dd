/// An 8-bit RGBA image with straight (non-premultiplied) alpha, rows top to bottom, no padding.
public struct RGBAImage: Sendable, Equatable {
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// `width * height * 4` bytes: R, G, B, A per pixel.
    public var pixels: [UInt8]

    /// An image of the given size filled with one colour (transparent black by default).
    public init(width: Int, height: Int, fill: (UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 0)) {
        precondition(width >= 0 && height >= 0, "negative image size")
        self.width = width
        self.height = height
        if fill == (0, 0, 0, 0) {
            pixels = [UInt8](repeating: 0, count: width * height * 4)
        } else {
            pixels = [UInt8](unsafeUninitializedCapacity: width * height * 4) { buffer, count in
                for i in 0..<(width * height) {
                    buffer[i * 4] = fill.0
                    buffer[i * 4 + 1] = fill.1
                    buffer[i * 4 + 2] = fill.2
                    buffer[i * 4 + 3] = fill.3
                }
                count = width * height * 4
            }
        }
    }

    /// Wraps existing RGBA bytes; `pixels.count` must be `width * height * 4`.
    public init(width: Int, height: Int, pixels: [UInt8]) {
        precondition(pixels.count == width * height * 4, "pixel buffer does not match the image size")
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// True when every pixel has alpha 0.
    public var isFullyTransparent: Bool {
        var i = 3
        while i < pixels.count {
            if pixels[i] != 0 { return false }
            i += 4
        }
        return true
    }

    /// True when every pixel has alpha 255.
    public var isOpaque: Bool {
        var i = 3
        while i < pixels.count {
            if pixels[i] != 255 { return false }
            i += 4
        }
        return true
    }
}
