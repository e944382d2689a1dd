/// An encoded tile ready to send: its bytes and its strong ETag (quotes included).
public struct CachedTile: Sendable, Equatable {
    public let bytes: [UInt8]
    public let etag: String

    public init(bytes: [UInt8], etag: String) {
        self.bytes = bytes
        self.etag = etag
    }

    /// Bytes an entry costs beside its payload, estimated from the layout of what the cache keeps:
    /// the entry in the cache's table (key, value, flags, at 3/4 load: ~110 B), the policy's node
    /// and table slot (~130 B), the array's heap header and malloc rounding (~48 B) and the ETag's
    /// heap storage header (~32 B). The memory benchmark (`scripts/bench/cache-memory`) checks the
    /// whole against the process's RSS.
    public static let entryOverhead = 320

    /// What this tile counts against the budget: payload (rounded up to malloc's 16-byte
    /// granules), ETag and `entryOverhead`.
    public var cost: Int { (bytes.count + 15) & ~15 + etag.utf8.count + Self.entryOverhead }
}
