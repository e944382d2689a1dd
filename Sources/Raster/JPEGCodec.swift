import CTurboJPEG

/// JPEG tiles through libjpeg-turbo's TurboJPEG API (opaque images only: JPEG has no alpha).
public enum JPEGCodec {
    /// Encodes an opaque `image` at `quality` 1–100, 4:2:0 chroma, accurate DCT.
    public static func encode(_ image: RGBAImage, quality: Int) throws(TileCodecError) -> [UInt8] {
        guard let handle = tjInitCompress() else { throw .encodeFailed(format: .jpg, "cannot start libjpeg-turbo") }
        defer { tjDestroy(handle) }
        var buffer: UnsafeMutablePointer<UInt8>?
        var size: UInt = 0
        let status = image.pixels.withUnsafeBufferPointer {
            tjCompress2(
                handle, $0.baseAddress, Int32(image.width), 0, Int32(image.height), Int32(TJPF_RGBA.rawValue),
                &buffer, &size, Int32(TJSAMP_420.rawValue), Int32(min(max(quality, 1), 100)), TJFLAG_ACCURATEDCT)
        }
        defer { if let buffer { tjFree(buffer) } }
        guard status == 0, let buffer else { throw .encodeFailed(format: .jpg, String(cString: tjGetErrorStr2(handle))) }
        return Array(UnsafeBufferPointer(start: buffer, count: Int(size)))
    }

    /// Decodes a JPEG tile to RGBA (alpha 255).
    public static func decode(_ data: [UInt8], maxPixels: Int = 1 << 26) throws(TileCodecError) -> RGBAImage {
        guard let handle = tjInitDecompress() else { throw .decodeFailed(format: .jpg, "cannot start libjpeg-turbo") }
        defer { tjDestroy(handle) }
        var width: Int32 = 0, height: Int32 = 0, subsampling: Int32 = 0, colorspace: Int32 = 0
        let header = data.withUnsafeBufferPointer {
            tjDecompressHeader3(handle, $0.baseAddress, UInt($0.count), &width, &height, &subsampling, &colorspace)
        }
        guard header == 0, width > 0, height > 0 else {
            throw .decodeFailed(format: .jpg, String(cString: tjGetErrorStr2(handle)))
        }
        guard Int(width) * Int(height) <= maxPixels else { throw .decodeFailed(format: .jpg, "\(width)x\(height) pixels is too large") }
        var pixels = [UInt8](repeating: 0, count: Int(width) * Int(height) * 4)
        let status = data.withUnsafeBufferPointer { src in
            pixels.withUnsafeMutableBufferPointer { dst in
                tjDecompress2(
                    handle, src.baseAddress, UInt(src.count), dst.baseAddress, width, 0, height,
                    Int32(TJPF_RGBA.rawValue), 0)
            }
        }
        // Warnings (status -1 with TJERR_WARNING) still give a full image; errors do not.
        if status != 0 && tjGetErrorCode(handle) != Int32(TJERR_WARNING.rawValue) {
            throw .decodeFailed(format: .jpg, String(cString: tjGetErrorStr2(handle)))
        }
        return RGBAImage(width: Int(width), height: Int(height), pixels: pixels)
    }
}
