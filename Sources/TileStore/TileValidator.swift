/// The HTTP validator (ETag) of a tile that has no stored content hash (bundles written by other
/// tools, PMTiles archives): XXH64 of its bytes and their length, as hex. A fingerprint for
/// revalidation, computed on every cache miss, so it is a fast non-cryptographic hash; content
/// addresses (`TileHash.id`, SHA-256) stay for deduplication and patches.
public enum TileValidator {
    /// 16 hex digits of XXH64 (seed 0), `-`, and the length in hex.
    public static func etag(_ bytes: UnsafeRawBufferPointer) -> String {
        let h = xxh64(bytes)
        var out = String(h, radix: 16)
        if out.utf8.count < 16 { out = String(repeating: "0", count: 16 - out.utf8.count) + out }
        return out + "-" + String(bytes.count, radix: 16)
    }

    /// The ETag of an array of bytes.
    public static func etag(_ bytes: [UInt8]) -> String { bytes.withUnsafeBytes { etag($0) } }

    private static let p1: UInt64 = 0x9E37_79B1_85EB_CA87
    private static let p2: UInt64 = 0xC2B2_AE3D_27D4_EB4F
    private static let p3: UInt64 = 0x1656_67B1_9E37_79F9
    private static let p4: UInt64 = 0x85EB_CA77_C2B2_AE63
    private static let p5: UInt64 = 0x27D4_EB2F_1656_67C5

    @inline(__always) private static func rotl(_ x: UInt64, _ r: UInt64) -> UInt64 { (x << r) | (x >> (64 - r)) }
    @inline(__always) private static func round(_ acc: UInt64, _ input: UInt64) -> UInt64 {
        rotl(acc &+ input &* p2, 31) &* p1
    }
    @inline(__always) private static func merge(_ acc: UInt64, _ v: UInt64) -> UInt64 {
        (acc ^ round(0, v)) &* p1 &+ p4
    }

    /// XXH64 as specified by xxHash (https://github.com/Cyan4973/xxHash/blob/dev/doc/xxhash_spec.md).
    static func xxh64(_ b: UnsafeRawBufferPointer, seed: UInt64 = 0) -> UInt64 {
        let n = b.count
        var i = 0
        var h: UInt64
        if n >= 32 {
            var v1 = seed &+ p1 &+ p2, v2 = seed &+ p2, v3 = seed, v4 = seed &- p1
            while i + 32 <= n {
                v1 = round(v1, UInt64(littleEndian: b.loadUnaligned(fromByteOffset: i, as: UInt64.self)))
                v2 = round(v2, UInt64(littleEndian: b.loadUnaligned(fromByteOffset: i + 8, as: UInt64.self)))
                v3 = round(v3, UInt64(littleEndian: b.loadUnaligned(fromByteOffset: i + 16, as: UInt64.self)))
                v4 = round(v4, UInt64(littleEndian: b.loadUnaligned(fromByteOffset: i + 24, as: UInt64.self)))
                i += 32
            }
            h = rotl(v1, 1) &+ rotl(v2, 7) &+ rotl(v3, 12) &+ rotl(v4, 18)
            h = merge(h, v1)
            h = merge(h, v2)
            h = merge(h, v3)
            h = merge(h, v4)
        } else {
            h = seed &+ p5
        }
        h = h &+ UInt64(n)
        while i + 8 <= n {
            h ^= round(0, UInt64(littleEndian: b.loadUnaligned(fromByteOffset: i, as: UInt64.self)))
            h = rotl(h, 27) &* p1 &+ p4
            i += 8
        }
        if i + 4 <= n {
            h ^= UInt64(UInt32(littleEndian: b.loadUnaligned(fromByteOffset: i, as: UInt32.self))) &* p1
            h = rotl(h, 23) &* p2 &+ p3
            i += 4
        }
        while i < n {
            h ^= UInt64(b[i]) &* p5
            h = rotl(h, 11) &* p1
            i += 1
        }
        h ^= h >> 33
        h = h &* p2
        h ^= h >> 29
        h = h &* p3
        h ^= h >> 32
        return h
    }
}
