@testable import Raster

/// Test images of each kind the encoder distinguishes.
enum PNGFixtures {
    static func uniform(_ size: Int = 256) -> RGBAImage {
        RGBAImage(width: size, height: size, fill: (10, 120, 200, 255))
    }

    /// Five colours, two of them translucent, two fully transparent with different RGB.
    static func fewColorsWithAlpha(width: Int = 256, height: Int = 256) -> RGBAImage {
        let colors: [[UInt8]] = [[255, 0, 0, 255], [1, 2, 3, 0], [0, 255, 0, 128], [9, 9, 9, 0], [0, 0, 255, 255]]
        var pixels: [UInt8] = []
        pixels.reserveCapacity(width * height * 4)
        for y in 0..<height {
            for x in 0..<width { pixels += colors[(x / 7 + y / 5) % colors.count] }
        }
        return RGBAImage(width: width, height: height, pixels: pixels)
    }

    /// Opaque gray gradient with noise: more than 16 levels, so 8-bit gray.
    static func gray(width: Int = 256, height: Int = 256, seed: UInt64 = 1) -> RGBAImage {
        var rng = SplitMix64(seed: seed)
        var pixels: [UInt8] = []
        for y in 0..<height {
            for x in 0..<width {
                let v = UInt8(truncatingIfNeeded: x + y / 2 + Int(rng.next() % 8))
                pixels += [v, v, v, 255]
            }
        }
        return RGBAImage(width: width, height: height, pixels: pixels)
    }

    /// Gray with varied alpha: many distinct colours, so gray+alpha.
    static func grayAlpha(width: Int = 256, height: Int = 256) -> RGBAImage {
        var pixels: [UInt8] = []
        for y in 0..<height {
            for x in 0..<width {
                let v = UInt8(truncatingIfNeeded: x)
                pixels += [v, v, v, UInt8(truncatingIfNeeded: y * 3 + x)]
            }
        }
        return RGBAImage(width: width, height: height, pixels: pixels)
    }

    /// Photo-like opaque RGB: smooth gradients plus noise.
    static func photo(width: Int = 256, height: Int = 256, seed: UInt64 = 2) -> RGBAImage {
        var rng = SplitMix64(seed: seed)
        var pixels: [UInt8] = []
        pixels.reserveCapacity(width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let n = Int(rng.next() % 16)
                pixels += [
                    UInt8(truncatingIfNeeded: x / 2 + n), UInt8(truncatingIfNeeded: y / 2 + 40 + n),
                    UInt8(truncatingIfNeeded: (x + y) / 4 + 80 + n / 2), 255
                ]
            }
        }
        return RGBAImage(width: width, height: height, pixels: pixels)
    }

    /// Photo-like RGB with varied alpha, including fully transparent pixels with colour.
    static func rgbaVaried(width: Int = 256, height: Int = 256, seed: UInt64 = 3) -> RGBAImage {
        var image = photo(width: width, height: height, seed: seed)
        for i in 0..<(width * height) {
            image.pixels[i * 4 + 3] = i % 11 == 0 ? 0 : UInt8(truncatingIfNeeded: i / 3)
        }
        return image
    }
}
