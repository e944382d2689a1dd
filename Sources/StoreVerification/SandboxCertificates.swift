import Crypto
import Foundation
import SwiftASN1
import X509

/// The three certificates of a sandbox store, shaped like Apple's App Store chain
/// (root CA, WWDR-like intermediate CA, StoreKit signing leaf), all P-256 / ECDSA-SHA256.
struct SandboxCertificates {
    let root: Certificate
    let intermediate: Certificate
    let leaf: Certificate
    let leafKey: P256.Signing.PrivateKey

    /// The value Apple puts in its marker extensions: an ASN.1 NULL.
    static let asn1Null: ArraySlice<UInt8> = [0x05, 0x00]

    /// Generates fresh keys and certificates.
    static func generate(options: SandboxStoreOptions, now: Date = Date()) throws -> SandboxCertificates {
        let rootKey = P256.Signing.PrivateKey()
        let intermediateKey = P256.Signing.PrivateKey()
        let leafKey = P256.Signing.PrivateKey()
        let notBefore = options.notValidBefore ?? now.addingTimeInterval(-3600)
        let caNotAfter = now.addingTimeInterval(20 * 365 * 86400)
        let leafNotAfter = options.leafNotValidAfter ?? now.addingTimeInterval(10 * 365 * 86400)

        let rootName = try DistinguishedName {
            CommonName("TrailMap Sandbox Root CA - G3")
            OrganizationalUnitName("TrailMap Sandbox Certification Authority")
            OrganizationName("TrailMap")
            CountryName("US")
        }
        let intermediateName = try DistinguishedName {
            CommonName("TrailMap Sandbox Worldwide Developer Relations Certification Authority")
            OrganizationalUnitName("G6")
            OrganizationName("TrailMap")
            CountryName("US")
        }
        let leafName = try DistinguishedName {
            CommonName("TrailMap Sandbox StoreKit Signing")
            OrganizationName("TrailMap")
            CountryName("US")
        }

        let root = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(rootKey.publicKey),
            notValidBefore: notBefore, notValidAfter: caNotAfter,
            issuer: rootName, subject: rootName, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
                SubjectKeyIdentifier(hash: .init(rootKey.publicKey))
            },
            issuerPrivateKey: .init(rootKey))

        var intermediateExtensions = try Certificate.Extensions {
            Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
            Critical(KeyUsage(keyCertSign: true, cRLSign: true))
            SubjectKeyIdentifier(hash: .init(intermediateKey.publicKey))
            AuthorityKeyIdentifier(keyIdentifier: SubjectKeyIdentifier(hash: .init(rootKey.publicKey)).keyIdentifier)
        }
        if options.intermediateAppleOID {
            try intermediateExtensions.append(
                Certificate.Extension(oid: AppStoreOIDPolicy.intermediateOID, critical: false, value: asn1Null))
        }
        let intermediate = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(intermediateKey.publicKey),
            notValidBefore: notBefore, notValidAfter: caNotAfter,
            issuer: rootName, subject: intermediateName, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: intermediateExtensions, issuerPrivateKey: .init(rootKey))

        var leafExtensions = try Certificate.Extensions {
            Critical(BasicConstraints.notCertificateAuthority)
            Critical(KeyUsage(digitalSignature: true))
            AuthorityKeyIdentifier(keyIdentifier: SubjectKeyIdentifier(hash: .init(intermediateKey.publicKey)).keyIdentifier)
        }
        if options.leafAppleOID {
            try leafExtensions.append(Certificate.Extension(oid: AppStoreOIDPolicy.leafOID, critical: false, value: asn1Null))
        }
        let leaf = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(leafKey.publicKey),
            notValidBefore: notBefore, notValidAfter: leafNotAfter,
            issuer: intermediateName, subject: leafName, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: leafExtensions, issuerPrivateKey: .init(intermediateKey))

        return SandboxCertificates(root: root, intermediate: intermediate, leaf: leaf, leafKey: leafKey)
    }

    /// The DER bytes of `certificate`.
    static func der(_ certificate: Certificate) throws -> Data {
        var serializer = DER.Serializer()
        try serializer.serialize(certificate)
        return Data(serializer.serializedBytes)
    }
}
