/// Why a signed App Store transaction or notification was refused.
public enum StoreVerificationError: Error, CustomStringConvertible, Sendable, Equatable {
    /// Not a compact JWS (three base64url parts with JSON header and payload).
    case malformedJWS(String)
    /// The header's `alg` is not `ES256`.
    case unsupportedAlgorithm(String?)
    /// The header has no `x5c`, or not exactly three certificates.
    case missingCertificateChain(count: Int)
    /// A certificate in `x5c` is not valid base64 DER.
    case malformedCertificate(String)
    /// The chain's root is none of the configured root certificates.
    case untrustedRoot
    /// The chain does not validate (expired, wrong issuer, bad certificate signature, …).
    case invalidChain(String)
    /// A certificate lacks Apple's marker extension.
    case missingAppleOID(AppleCertificateOID)
    /// The signature does not match the header and payload under the leaf certificate's key.
    case badSignature
    /// The payload names another app.
    case wrongBundleId(expected: String, got: String)
    /// The payload comes from another App Store environment.
    case wrongEnvironment(expected: StoreEnvironment, got: String)
    /// The notification names another app Apple ID.
    case wrongAppAppleId(expected: Int64, got: Int64?)
    /// The transaction is not a non-consumable purchase.
    case notNonConsumable(type: String)
    /// The transaction is not a consumable purchase (areas are bought with consumables).
    case notConsumable(type: String)
    /// The payload is valid JSON but not the expected App Store structure.
    case malformedPayload(String)
    /// The verifier's configuration is unusable (for example a root that is not a certificate).
    case invalidConfiguration(String)

    public var description: String {
        switch self {
        case .malformedJWS(let reason):
            return "Malformed signed data: \(reason). Send the JWS string exactly as StoreKit returned it."
        case .unsupportedAlgorithm(let alg):
            return "Unsupported signature algorithm \(alg.map { "'\($0)'" } ?? "(none)"); App Store data is signed with ES256."
        case .missingCertificateChain(let count):
            return "The JWS header must carry an x5c chain of exactly 3 certificates (leaf, intermediate, root); it has \(count)."
        case .malformedCertificate(let reason):
            return "A certificate in the x5c chain cannot be read: \(reason)."
        case .untrustedRoot:
            return
                """
                The certificate chain ends in a root that is not configured as trusted; check the store root certificates the server was \
                started with (Apple Root CA G3 in production, the sandbox root otherwise).
                """
        case .invalidChain(let reason):
            return "The certificate chain does not validate: \(reason)."
        case .missingAppleOID(let which):
            return
                """
                The \(which.certificateRole) certificate lacks Apple's extension \(which.rawValue); this data was not signed by the App \
                Store.
                """
        case .badSignature:
            return "The signature does not match the signed data; the transaction was altered or signed by another key."
        case .wrongBundleId(let expected, let got):
            return "The signed data is for app '\(got)', not '\(expected)'."
        case .wrongEnvironment(let expected, let got):
            return "The signed data comes from the '\(got)' App Store environment; this server accepts '\(expected.rawValue)'."
        case .wrongAppAppleId(let expected, let got):
            return "The notification is for app Apple ID \(got.map(String.init) ?? "(none)"), not \(expected)."
        case .notNonConsumable(let type):
            return
                """
                The transaction is of type '\(type)'; only Non-Consumable purchases unlock regions (areas are bought with POST \
                /api/v1/areas).
                """
        case .notConsumable(let type):
            return "The transaction is of type '\(type)'; an area is paid for by a Consumable purchase of its area product."
        case .malformedPayload(let reason):
            return "The signed payload is not a valid App Store payload: \(reason)."
        case .invalidConfiguration(let reason):
            return "The store verifier is misconfigured: \(reason)."
        }
    }
}

/// Apple's marker extensions on App Store signing certificates.
public enum AppleCertificateOID: String, Sendable, CaseIterable {
    /// On the leaf (App Store receipt signing): 1.2.840.113635.100.6.11.1.
    case leaf = "1.2.840.113635.100.6.11.1"
    /// On the intermediate (Apple WWDR): 1.2.840.113635.100.6.2.1.
    case intermediate = "1.2.840.113635.100.6.2.1"

    /// Which certificate of the chain must carry it.
    public var certificateRole: String {
        switch self {
        case .leaf: return "leaf"
        case .intermediate: return "intermediate"
        }
    }
}
