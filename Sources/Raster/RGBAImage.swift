/// An 8-bit RGBA image with straight (non-premultiplied) alpha, rows top to bottom, no padding.
public struct RGBAImage: Sendable, Equatable {
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// `width * height * 4` bytes: R, G, B, A per pixel.
    public var pixels: [UInt8] {
        get { storage }
        // In place (a `didSet` made every `pixels[i] = v` copy the array in debug builds).
        _modify {
            roundingAlternates = nil
            yield &storage
        }
        set {
            roundingAlternates = nil
            storage = newValue
        }
    }
    private var storage: [UInt8]
    /// What a renderer knew of the exact values behind `pixels`, for `TileRounding.compact`: per
    /// byte of `pixels`, the other integer next to the exact (resampled, averaged) value the byte
    /// was rounded from — its floor where the byte was rounded up, its ceiling where rounded down,
    /// the byte itself where the value was whole, and for alpha. An encoder may store either and
    /// stays within one level of the exact value. Nil when unknown; changing `pixels` clears it.
    /// Not part of equality (two images are equal when their pixels are).
    public var roundingAlternates: [UInt8]?

    /// An image of the given size filled with one colour (transparent black by default).
    public init(width: Int, height: Int, fill: (UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 0)) {
        precondition(width >= 0 && height >= 0, "negative image size")
        self.width = width
        self.height = height
        if fill == (0, 0, 0, 0) {
            storage = [UInt8](repeating: 0, count: width * height * 4)
        } else {
            storage = [UInt8](unsafeUninitializedCapacity: width * height * 4) { buffer, count in
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

    /// Wraps existing RGBA bytes; `pixels.count` must be `width * height * 4`, and so must
    /// `roundingAlternates.count` when given.
    public init(width: Int, height: Int, pixels: [UInt8], roundingAlternates: [UInt8]? = nil) {
        precondition(pixels.count == width * height * 4, "pixel buffer does not match the image size")
        precondition(roundingAlternates.map { $0.count == pixels.count } ?? true, "alternates do not match the image size")
        self.width = width
        self.height = height
        self.storage = pixels
        self.roundingAlternates = roundingAlternates
    }

    public static func == (lhs: RGBAImage, rhs: RGBAImage) -> Bool {
        lhs.width == rhs.width && lhs.height == rhs.height && lhs.pixels == rhs.pixels
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
