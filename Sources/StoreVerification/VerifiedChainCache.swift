import Crypto
import Foundation

/// Leaf public keys of chains that validated, keyed by the exact DER bytes of leaf, intermediate
/// and root, like the `CacheManager` of Apple's App Store Server Library: entries live 15 minutes
/// and the cache sheds expired entries when it grows past 32.
///
/// An entry records the period in which every certificate of its chain is valid; a lookup at a
/// validation time outside it misses, so the cache never accepts what a full validation would refuse.
final class VerifiedChainCache: @unchecked Sendable {
    struct Entry {
        let publicKey: P256.Signing.PublicKey
        let validFrom: Date
        let validUntil: Date
        let expires: Date
    }

    static let lifetime: TimeInterval = 15 * 60
    static let maximumCount = 32

    private let lock = NSLock()
    private var entries: [Data: Entry] = [:]

    /// The number of entries, expired ones included.
    var count: Int { lock.withLock { entries.count } }

    /// The cached leaf key for `key`, if it is fresh at `now` and the chain is valid at `validationTime`.
    func publicKey(for key: Data, now: Date, validationTime: Date) -> P256.Signing.PublicKey? {
        lock.withLock {
            guard let entry = entries[key] else { return nil }
            guard entry.expires > now else {
                entries[key] = nil
                return nil
            }
            guard entry.validFrom <= validationTime, validationTime <= entry.validUntil else { return nil }
            return entry.publicKey
        }
    }

    /// Records a chain that validated.
    func insert(_ publicKey: P256.Signing.PublicKey, for key: Data, validFrom: Date, validUntil: Date, now: Date) {
        lock.withLock {
            entries[key] = Entry(
                publicKey: publicKey, validFrom: validFrom, validUntil: validUntil,
                expires: now.addingTimeInterval(Self.lifetime))
            guard entries.count > Self.maximumCount else { return }
            entries = entries.filter { $0.value.expires > now }
            // Apple's cache stops at dropping expired entries; bound it for good by dropping the oldest.
            while entries.count > Self.maximumCount,
                let oldest = entries.min(by: { $0.value.expires < $1.value.expires })
            {
                entries[oldest.key] = nil
            }
        }
    }
}
