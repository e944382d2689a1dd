import CWebP

/// WebP tiles through libwebp: lossless (exact: pixels, transparent ones included, come back
/// unchanged) or lossy at a quality, alpha kept in both.
public enum WebPCodec {
    /// Encodes `image`. Lossless: `effort` is libwebp's lossless preset 0 (fastest) to 9
    /// (smallest). Lossy: `quality` 1–100 and `effort` is the method 0–6.
    public static func encode(_ image: RGBAImage, lossless: Bool, quality: Int, effort: Int) throws(TileCodecError) -> [UInt8] {
        var config = WebPConfig()
        guard WebPConfigInit(&config) != 0 else { throw .encodeFailed(format: .webp, "libwebp version mismatch") }
        if lossless {
            guard WebPConfigLosslessPreset(&config, Int32(min(max(effort, 0), 9))) != 0 else {
                throw .encodeFailed(format: .webp, "bad lossless preset \(effort)")
            }
            config.exact = 1
        } else {
            config.quality = Float(min(max(quality, 1), 100))
            config.method = Int32(min(max(effort, 0), 6))
        }
        guard WebPValidateConfig(&config) != 0 else { throw .encodeFailed(format: .webp, "invalid settings") }
        var picture = WebPPicture()
        guard WebPPictureInit(&picture) != 0 else { throw .encodeFailed(format: .webp, "libwebp version mismatch") }
        picture.use_argb = 1
        picture.width = Int32(image.width)
        picture.height = Int32(image.height)
        defer { WebPPictureFree(&picture) }
        let imported = image.pixels.withUnsafeBufferPointer {
            WebPPictureImportRGBA(&picture, $0.baseAddress, Int32(image.width * 4))
        }
        guard imported != 0 else { throw .encodeFailed(format: .webp, "out of memory importing \(image.width)x\(image.height) pixels") }
        var writer = WebPMemoryWriter()
        WebPMemoryWriterInit(&writer)
        defer { WebPMemoryWriterClear(&writer) }
        let ok = withUnsafeMutablePointer(to: &writer) { w -> Int32 in
            picture.writer = WebPMemoryWrite
            picture.custom_ptr = UnsafeMutableRawPointer(w)
            return WebPEncode(&config, &picture)
        }
        guard ok != 0, let mem = writer.mem else {
            throw .encodeFailed(format: .webp, "libwebp error \(picture.error_code.rawValue)")
        }
        return Array(UnsafeBufferPointer(start: mem, count: writer.size))
    }

    /// Decodes a WebP tile to straight-alpha RGBA; more than `maxPixels` pixels is refused from the header.
    public static func decode(_ data: [UInt8], maxPixels: Int = 1 << 26) throws(TileCodecError) -> RGBAImage {
        var width: Int32 = 0, height: Int32 = 0
        guard data.withUnsafeBufferPointer({ WebPGetInfo($0.baseAddress, $0.count, &width, &height) }) != 0 else {
            throw .decodeFailed(format: .webp, "libwebp cannot read the header of these \(data.count) bytes")
        }
        guard Int(width) * Int(height) <= maxPixels else {
            throw .decodeFailed(format: .webp, "\(width)x\(height) pixels, more than a tile may have (\(maxPixels))")
        }
        guard let out = data.withUnsafeBufferPointer({ WebPDecodeRGBA($0.baseAddress, $0.count, &width, &height) }) else {
            throw .decodeFailed(format: .webp, "libwebp cannot decode these \(data.count) bytes")
        }
        defer { WebPFree(out) }
        let count = Int(width) * Int(height) * 4
        return RGBAImage(width: Int(width), height: Int(height), pixels: Array(UnsafeBufferPointer(start: out, count: count)))
    }
}
