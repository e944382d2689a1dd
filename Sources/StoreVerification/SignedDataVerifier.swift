import Crypto
import Foundation
import SwiftASN1
@_spi(FixedExpiryValidationTime) import X509

/// Verifies App Store signed data (transactions and Server Notifications V2) the way Apple's
/// App Store Server Library does, offline:
///
/// 1. a compact JWS of three base64url parts, header `alg` `ES256`, `x5c` of exactly three
///    certificates (leaf, intermediate, root);
/// 2. the root byte-for-byte equal to a configured root, the intermediate carrying
///    1.2.840.113635.100.6.2.1 and the leaf 1.2.840.113635.100.6.11.1;
/// 3. the chain validated by swift-certificates' `Verifier` (RFC 5280 plus Apple's OID policy)
///    with the configured roots as the only trust anchors, at the payload's `signedDate` (Apple
///    validates at `signedDate` unless online OCSP checks are on; those need HTTP and are not done here);
/// 4. the ES256 signature over `header.payload` under the leaf's key;
/// 5. `bundleId`, `environment` (and for notifications in production `appAppleId`, when configured).
///
/// Unlike Apple's library it never skips verification for `Xcode` or `LocalTesting` data.
/// Validated chains are cached by their exact bytes for 15 minutes (at most 32 entries), as
/// Apple's library caches them.
public struct SignedDataVerifier: Sendable {
    /// The app's bundle identifier every payload must name.
    public let bundleId: String
    /// The environment every payload must come from.
    public let environment: StoreEnvironment
    /// The app's Apple ID notifications must name in production, when set.
    public let appAppleId: Int64?

    private let rootDER: [Data]
    private let roots: CertificateStore
    private let clock: @Sendable () -> Date
    private let cache: VerifiedChainCache?

    /// Creates a verifier trusting `rootCertificates` (DER) only.
    ///
    /// - Parameters:
    ///   - cachesVerifiedChains: keep validated chains for 15 minutes (Apple's behaviour); off only to measure.
    ///   - clock: the current time, for the cache and for payloads without `signedDate`.
    /// - Throws: `StoreVerificationError.invalidConfiguration` when a root is not a DER certificate.
    public init(
        rootCertificates: [Data], bundleId: String, environment: StoreEnvironment,
        appAppleId: Int64? = nil, cachesVerifiedChains: Bool = true,
        clock: @escaping @Sendable () -> Date = Date.init
    ) throws(StoreVerificationError) {
        guard !rootCertificates.isEmpty else { throw .invalidConfiguration("no root certificates are configured") }
        var parsed: [Certificate] = []
        for (index, der) in rootCertificates.enumerated() {
            guard let certificate = try? Certificate(derEncoded: Array(der)) else {
                throw .invalidConfiguration("root certificate \(index + 1) is not a DER X.509 certificate")
            }
            parsed.append(certificate)
        }
        self.rootDER = rootCertificates
        self.roots = CertificateStore(parsed)
        self.bundleId = bundleId
        self.environment = environment
        self.appAppleId = appAppleId
        self.clock = clock
        self.cache = cachesVerifiedChains ? VerifiedChainCache() : nil
    }

    /// Verifies a signed transaction of a non-consumable purchase and returns it decoded.
    public func verifyTransaction(_ jws: String) async throws(StoreVerificationError) -> JWSTransaction {
        let transaction = try await decodeTransaction(jws)
        guard transaction.type == JWSTransaction.nonConsumable else {
            throw .notNonConsumable(type: transaction.type)
        }
        return transaction
    }

    /// Verifies a signed transaction of a consumable purchase (an area) and returns it decoded.
    public func verifyConsumableTransaction(_ jws: String) async throws(StoreVerificationError) -> JWSTransaction {
        let transaction = try await decodeTransaction(jws)
        guard transaction.type == JWSTransaction.consumable else { throw .notConsumable(type: transaction.type) }
        return transaction
    }

    /// Verifies a signed transaction of any `type` (signature, chain, bundle id, environment).
    public func decodeTransaction(_ jws: String) async throws(StoreVerificationError) -> JWSTransaction {
        let transaction = try await verifiedPayload(jws, as: JWSTransaction.self, signedDate: \.signedDate)
        try check(bundleId: transaction.bundleId, environment: transaction.environment)
        return transaction
    }

    /// Verifies a notification's `signedPayload` and the signed transaction inside it.
    public func verifyNotification(_ signedPayload: String) async throws(StoreVerificationError) -> VerifiedNotification {
        let notification = try await verifiedPayload(signedPayload, as: StoreNotification.self, signedDate: \.signedDate)
        guard let data = notification.data else {
            throw .malformedPayload("the notification has no 'data' (summary notifications are not supported)")
        }
        try check(bundleId: data.bundleId, environment: data.environment)
        if let appAppleId, environment == .production, data.appAppleId != appAppleId {
            throw .wrongAppAppleId(expected: appAppleId, got: data.appAppleId)
        }
        let transaction: JWSTransaction?
        if let inner = data.signedTransactionInfo {
            transaction = try await decodeTransaction(inner)
        } else {
            transaction = nil
        }
        return VerifiedNotification(notification: notification, transaction: transaction)
    }

    /// The number of chains in the cache (for tests and diagnostics).
    public var cachedChainCount: Int { cache?.count ?? 0 }

    private func check(bundleId got: String, environment gotEnvironment: String) throws(StoreVerificationError) {
        guard got == bundleId else { throw .wrongBundleId(expected: bundleId, got: got) }
        guard gotEnvironment == environment.rawValue else {
            throw .wrongEnvironment(expected: environment, got: gotEnvironment)
        }
    }

    /// Steps 1–4 for any payload type.
    private func verifiedPayload<T: Decodable>(
        _ text: String, as type: T.Type, signedDate: KeyPath<T, Int64>
    ) async throws(StoreVerificationError) -> T {
        let jws = try CompactJWS(text)
        guard jws.header.alg == "ES256" else { throw .unsupportedAlgorithm(jws.header.alg) }
        guard let x5c = jws.header.x5c, x5c.count == 3 else {
            throw .missingCertificateChain(count: jws.header.x5c?.count ?? 0)
        }
        var chain: [Data] = []
        for (index, entry) in x5c.enumerated() {
            guard let der = Data(base64Encoded: entry) else {
                throw .malformedCertificate("x5c[\(index)] is not base64")
            }
            chain.append(der)
        }
        let payload = try jws.decodePayload(type)
        let validationTime = Date(timeIntervalSince1970: Double(payload[keyPath: signedDate]) / 1000)
        let key = try await leafKey(chain: chain, validationTime: validationTime)
        guard jws.signature.count == 64,
            let signature = try? P256.Signing.ECDSASignature(rawRepresentation: jws.signature),
            key.isValidSignature(signature, for: jws.signingInput)
        else { throw .badSignature }
        return payload
    }

    /// Step 2 and 3: the leaf's public key of a chain that validates, from the cache when possible.
    private func leafKey(chain: [Data], validationTime: Date) async throws(StoreVerificationError) -> P256.Signing.PublicKey {
        let cacheKey = Self.cacheKey(chain)
        let now = clock()
        if let cache, let key = cache.publicKey(for: cacheKey, now: now, validationTime: validationTime) {
            return key
        }
        guard rootDER.contains(chain[2]) else { throw .untrustedRoot }
        let certificates: [Certificate]
        do {
            certificates = try chain.map { try Certificate(derEncoded: Array($0)) }
        } catch {
            throw .malformedCertificate("\(error)")
        }
        let (leaf, intermediate) = (certificates[0], certificates[1])
        if let missing = AppStoreOIDPolicy.missingOID(leaf: leaf, intermediate: intermediate) {
            throw .missingAppleOID(missing)
        }
        var verifier = Verifier(rootCertificates: roots) {
            RFC5280Policy(fixedExpiryValidationTime: validationTime)
            AppStoreOIDPolicy()
        }
        let result = await verifier.validate(leaf: leaf, intermediates: CertificateStore([intermediate]))
        guard case .validCertificate(let validated) = result else {
            if case .couldNotValidate(let failures) = result, let first = failures.first {
                throw .invalidChain(first.policyFailureReason.description)
            }
            throw .invalidChain("the certificates do not chain to the configured root (issuer or certificate signature mismatch)")
        }
        guard validated.count == 3, let key = P256.Signing.PublicKey(validated.leaf.publicKey) else {
            throw .invalidChain("the leaf certificate's key is not a P-256 key")
        }
        let validFrom = certificates.map(\.notValidBefore).max() ?? validationTime
        let validUntil = certificates.map(\.notValidAfter).min() ?? validationTime
        cache?.insert(key, for: cacheKey, validFrom: validFrom, validUntil: validUntil, now: now)
        return key
    }

    /// The exact bytes of the chain, each certificate length-prefixed.
    private static func cacheKey(_ chain: [Data]) -> Data {
        var key = Data(capacity: chain.reduce(0) { $0 + $1.count + 4 })
        for der in chain {
            withUnsafeBytes(of: UInt32(der.count).bigEndian) { key.append(contentsOf: $0) }
            key.append(der)
        }
        return key
    }
}
