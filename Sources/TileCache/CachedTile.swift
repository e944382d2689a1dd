// `ByteBuffer(takingOwnershipOf:)`: a buffer of exactly the tile's size. NIO's own allocation
// rounds capacities up to a power of two, which doubled a cached tile's memory on average
// (measured with scripts/bench/cache-memory.sh: peak RSS 164 MB instead of 121 MB).
@_spi(CustomByteBufferAllocator) import NIOCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An encoded tile ready to send: its bytes and its strong ETag (quotes included).
/// The bytes are a `ByteBuffer` so that every response sends the cached storage itself, uncopied.
public struct CachedTile: Sendable, Equatable {
    public let buffer: ByteBuffer
    public let etag: String
    /// The tile's MIME type from its magic numbers, looked at once when it is made (a jpg
    /// bundle's transparent tiles are PNG): `image/png`, `image/jpeg`, `image/webp`, else
    /// `application/octet-stream`.
    public let contentType: String

    public init(buffer: ByteBuffer, etag: String) {
        self.buffer = buffer
        self.etag = etag
        contentType = buffer.withUnsafeReadableBytes { Self.mediaType(of: $0) }
    }

    /// The MIME type of encoded tile bytes from their magic numbers.
    public static func mediaType(of head: UnsafeRawBufferPointer) -> String {
        let n = head.count
        if n >= 8, head[0] == 0x89, head[1] == 0x50, head[2] == 0x4E, head[3] == 0x47,
            head[4] == 0x0D, head[5] == 0x0A, head[6] == 0x1A, head[7] == 0x0A
        {
            return "image/png"
        }
        if n >= 3, head[0] == 0xFF, head[1] == 0xD8, head[2] == 0xFF { return "image/jpeg" }
        if n >= 12, head[0] == 0x52, head[1] == 0x49, head[2] == 0x46, head[3] == 0x46,
            head[8] == 0x57, head[9] == 0x45, head[10] == 0x42, head[11] == 0x50
        {
            return "image/webp"
        }
        return "application/octet-stream"
    }

    /// Copies `bytes` into a buffer of exactly their size (malloc'd, freed by NIO's default allocator).
    public init<Bytes: Collection<UInt8>>(bytes: Bytes, etag: String) {
        let count = bytes.count
        guard count > 0, let memory = malloc(count) else {
            self.init(buffer: ByteBuffer(bytes: bytes), etag: etag)
            return
        }
        let storage = UnsafeMutableRawBufferPointer(start: memory, count: count)
        _ = storage.copyBytes(from: bytes)
        self.init(buffer: ByteBuffer(takingOwnershipOf: storage, allocator: ByteBufferAllocator()), etag: etag)
    }

    /// The tile's bytes (a copy).
    public var bytes: [UInt8] { Array(buffer.readableBytesView) }

    /// Bytes an entry costs beside its payload, estimated from the layout of what the cache keeps:
    /// the entry in the cache's table (key, value, flags, at 3/4 load: ~110 B), the policy's node
    /// and table slot (~130 B), the buffer's storage object and malloc rounding (~80 B) and the
    /// ETag's heap storage header (~32 B). GDSF's arrays take ~150 B an entry where the policy's
    /// share counts 130: its key, size, frequency, bonus, read count, the lazy update's due time
    /// and stale flag (9 B), its table slot and heap position. The memory benchmark
    /// (`scripts/bench/cache-memory.sh`) checks the whole against the process's RSS.
    public static let entryOverhead = 352

    /// What this tile counts against the budget: payload (rounded up to malloc's 16-byte
    /// granules), ETag and `entryOverhead`.
    public var cost: Int { (buffer.readableBytes + 15) & ~15 + etag.utf8.count + Self.entryOverhead }
}
