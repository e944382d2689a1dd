import Foundation

/// Whole-image PNG decoding (tiles, small images). Every colour type and bit depth comes out as
/// straight RGBA8. Thread-safe: call from any number of tasks at once.
public enum PNGDecoder: Sendable {
    /// Decodes PNG bytes. Images over `maxPixels` pixels throw `.tooLarge` before allocating.
    public static func decode(_ data: [UInt8], maxPixels: Int = 1 << 28) throws(PNGError) -> RGBAImage {
        let result = data.withUnsafeBytes { decode(bytes: $0, maxPixels: maxPixels) }
        return try result.get()
    }

    /// Decodes PNG bytes held in `Data`.
    public static func decode(_ data: Data, maxPixels: Int = 1 << 28) throws(PNGError) -> RGBAImage {
        let result = data.withUnsafeBytes { decode(bytes: $0, maxPixels: maxPixels) }
        return try result.get()
    }

    /// Decodes the PNG file at `path`; unreadable files throw `.io`.
    public static func decode(contentsOf path: String, maxPixels: Int = 1 << 28) throws(PNGError) -> RGBAImage {
        let reader = try PNGRowReader(
            path: path, maxPixels: maxPixels, maxInterlacedBytes: interlacedLimit(maxPixels))
        return try reader.readImage()
    }

    private static func decode(bytes: UnsafeRawBufferPointer, maxPixels: Int) -> Result<RGBAImage, PNGError> {
        do throws(PNGError) {
            let reader = try PNGRowReader(
                bytes: bytes, maxPixels: maxPixels, maxInterlacedBytes: interlacedLimit(maxPixels))
            return .success(try reader.readImage())
        } catch {
            return .failure(error)
        }
    }

    private static func interlacedLimit(_ maxPixels: Int) -> Int {
        let (bytes, overflow) = max(0, maxPixels).multipliedReportingOverflow(by: 4)
        return overflow ? Int.max : bytes
    }
}
