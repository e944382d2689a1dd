import SwiftASN1
import X509

/// The chain policy of Apple's App Store Server Library: exactly three certificates, the
/// intermediate carrying 1.2.840.113635.100.6.2.1 and the leaf 1.2.840.113635.100.6.11.1.
struct AppStoreOIDPolicy: VerifierPolicy, Sendable {
    static let leafOID: ASN1ObjectIdentifier = [1, 2, 840, 113635, 100, 6, 11, 1]
    static let intermediateOID: ASN1ObjectIdentifier = [1, 2, 840, 113635, 100, 6, 2, 1]

    let verifyingCriticalExtensions: [ASN1ObjectIdentifier] = []

    /// The first Apple extension `leaf`/`intermediate` lack, if any.
    static func missingOID(leaf: Certificate, intermediate: Certificate) -> AppleCertificateOID? {
        if !intermediate.extensions.contains(where: { $0.oid == intermediateOID }) { return .intermediate }
        if !leaf.extensions.contains(where: { $0.oid == leafOID }) { return .leaf }
        return nil
    }

    func chainMeetsPolicyRequirements(chain: UnverifiedCertificateChain) async -> PolicyEvaluationResult {
        guard chain.count == 3 else {
            return .failsToMeetPolicy(reason: "the chain has \(chain.count) certificates, not 3")
        }
        if let missing = Self.missingOID(leaf: chain[0], intermediate: chain[1]) {
            return .failsToMeetPolicy(reason: "the \(missing.certificateRole) lacks \(missing.rawValue)")
        }
        return .meetsPolicy
    }
}
