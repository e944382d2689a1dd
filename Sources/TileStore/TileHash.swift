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
}

private extension String {
    func leftPadded() -> String { count == 1 ? "0" + self : self }
}
