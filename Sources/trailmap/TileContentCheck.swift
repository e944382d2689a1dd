import Foundation
import Raster
import TileStore

/// What `bundle verify` checks in each tile: that it decodes, in a format its bundle may hold (the
/// metadata `format`; a jpg bundle's tiles with transparency are PNG), at the bundle's tile size
/// (`trailmap:tilesize`; 256 or 512 px, square, when the bundle does not say).
struct TileContentCheck {
    /// The declared format; nil when the metadata has none or an unknown one (the verifier reports
    /// that, and tiles are then decoded as whatever they are).
    let declared: TileFormat?
    /// The declared tile size; nil when absent or not 256 or 512 (the verifier reports a bad
    /// value): 256 and 512 are then both accepted.
    let size: Int?

    /// No tile is larger than 512 x 512: a header claiming more is refused before anything is
    /// decoded (a decompression bomb).
    static let maxPixels = 512 * 512

    init(metadata pairs: [String: String]) {
        declared = pairs["format"].flatMap(TileFormat.init(metadata:))
        size = BundleMetadata.tileSize(pairs)
    }

    /// The problem with one tile's bytes, or nil.
    func problem(_ data: Data) -> String? {
        let image: RGBAImage
        do {
            image = try TileDecoder.decode([UInt8](data), declared: declared, maxPixels: Self.maxPixels)
        } catch .wrongFormat(let declared, let found) {
            return TileCodecError.wrongFormat(declared: declared, found: found).description
        } catch {
            return "does not decode: \(error)"
        }
        if let size {
            if image.width != size || image.height != size {
                return "is \(image.width)x\(image.height) px, but the bundle's tiles are \(size) px (\(BundleMetadata.tileSizeKey))"
            }
        } else if image.width != image.height || ![256, 512].contains(image.width) {
            return "unexpected tile size \(image.width)x\(image.height)"
        }
        return nil
    }
}
