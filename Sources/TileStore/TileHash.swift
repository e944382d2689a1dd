import Crypto
import Foundation

/// Content hashes of tiles: the dedup key in `images` and the HTTP ETag.
public enum TileHash {
    /// Hex of the first 16 bytes of the SHA-256 of the data (32 characters).
    public static func id<D: DataProtocol>(_ data: D) -> String {
        let digest = SHA256.hash(data: data)
        var out = ""
        out.reserveCapacity(32)
        for (i, byte) in digest.enumerated() where i < 16 {
            out += String(byte, radix: 16, uppercase: false).leftPadded()
        }
        return out
    }

    /// True when `id` has the shape `id(_:)` gives (32 lowercase hex digits): safe to put in a
    /// header as it is. A bundle's stored `tile_id` is only trusted as an ETag when it is.
    public static func isWellFormed(_ id: String) -> Bool {
        id.utf8.count == 32 && id.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }
}

private extension String {
    func leftPadded() -> String { count == 1 ? "0" + self : self }
}
