import Crypto
import Essentials
import Foundation
import SwiftASN1
import X509

/// A local stand-in for the App Store, as StoreKit testing is: a folder with a root CA, an
/// intermediate and a leaf shaped like Apple's (same extensions), the leaf's private key and a
/// small config. It signs transactions and Server Notifications V2 that `SignedDataVerifier`
/// accepts when configured with `rootCertificateDER`.
///
/// Folder layout: `root.pem`, `intermediate.pem`, `leaf.pem`, `leaf-key.pem` (mode 0600), `store.json`.
public struct SandboxStore: Sendable {
    /// The bundle id written into every payload.
    public let bundleId: String
    /// The environment written into every payload (`Sandbox` unless created otherwise).
    public let environment: StoreEnvironment
    /// The sandbox root certificate (DER): the trust anchor a verifier needs.
    public let rootCertificateDER: Data
    /// The chain as DER: leaf, intermediate, root.
    public let chainDER: [Data]

    let leafKey: P256.Signing.PrivateKey
    private let encodedHeader: String

    static let files = (
        root: "root.pem", intermediate: "intermediate.pem", leaf: "leaf.pem",
        key: "leaf-key.pem", config: "store.json"
    )

    /// Creates a new store in `directory` (created if needed) and returns it.
    ///
    /// - Throws: `SandboxStoreError.alreadyExists` when the folder holds a store and `force` is false.
    @discardableResult
    public static func initialize(
        directory: String, bundleId: String, force: Bool = false,
        options: SandboxStoreOptions = SandboxStoreOptions()
    ) throws(SandboxStoreError) -> SandboxStore {
        let dir = URL(fileURLWithPath: directory)
        let fm = FileManager.default
        let existing = [files.root, files.intermediate, files.leaf, files.key, files.config]
            .filter { fm.fileExists(atPath: dir.appendingPathComponent($0).path) }
        if !existing.isEmpty && !force { throw .alreadyExists(directory) }
        let certificates: SandboxCertificates
        do {
            certificates = try SandboxCertificates.generate(options: options)
        } catch {
            throw .signingFailed("cannot generate certificates: \(error)")
        }
        let config = SandboxStoreConfiguration(bundleId: bundleId, environment: options.environment.rawValue, formatVersion: 1)
        do {
            try fm.createDirectory(at: dir, withIntermediateDirectories: true)
        } catch {
            throw .writeFailed(path: directory, reason: "\(error)")
        }
        try write(try pem(certificates.root), to: dir.appendingPathComponent(files.root))
        try write(try pem(certificates.intermediate), to: dir.appendingPathComponent(files.intermediate))
        try write(try pem(certificates.leaf), to: dir.appendingPathComponent(files.leaf))
        try write(certificates.leafKey.pemRepresentation + "\n", to: dir.appendingPathComponent(files.key), mode: 0o600)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        guard let json = try? encoder.encode(config) else { throw .signingFailed("cannot encode store.json") }
        try write(String(decoding: json, as: UTF8.self) + "\n", to: dir.appendingPathComponent(files.config))
        return try SandboxStore(directory: directory)
    }

    /// `initialize(directory:bundleId:force:options:)` for a file URL.
    @discardableResult
    public static func initialize(
        directory: URL, bundleId: String, force: Bool = false,
        options: SandboxStoreOptions = SandboxStoreOptions()
    ) throws(SandboxStoreError) -> SandboxStore {
        try initialize(directory: directory.path, bundleId: bundleId, force: force, options: options)
    }

    /// Loads the store in `directory`.
    public init(directory: String) throws(SandboxStoreError) {
        let dir = URL(fileURLWithPath: directory)
        let configPath = dir.appendingPathComponent(Self.files.config).path
        let configData = try Self.read(configPath)
        guard let config = try? JSONDecoder().decode(SandboxStoreConfiguration.self, from: configData),
            let environment = StoreEnvironment(rawValue: config.environment)
        else { throw .unreadable(path: configPath, reason: "not a sandbox store config (bundleId, environment)") }
        var chain: [Data] = []
        for name in [Self.files.leaf, Self.files.intermediate, Self.files.root] {
            let path = dir.appendingPathComponent(name).path
            let text = String(decoding: try Self.read(path), as: UTF8.self)
            guard let certificate = try? Certificate(pemEncoded: text), let der = try? SandboxCertificates.der(certificate) else {
                throw .unreadable(path: path, reason: "not a PEM certificate")
            }
            chain.append(der)
        }
        let keyPath = dir.appendingPathComponent(Self.files.key).path
        guard let key = try? P256.Signing.PrivateKey(pemRepresentation: String(decoding: try Self.read(keyPath), as: UTF8.self)) else {
            throw .unreadable(path: keyPath, reason: "not a PEM P-256 private key")
        }
        self.init(bundleId: config.bundleId, environment: environment, chainDER: chain, leafKey: key)
    }

    /// `init(directory:)` for a file URL.
    public init(directory: URL) throws(SandboxStoreError) {
        try self.init(directory: directory.path)
    }

    init(bundleId: String, environment: StoreEnvironment, chainDER: [Data], leafKey: P256.Signing.PrivateKey) {
        self.bundleId = bundleId
        self.environment = environment
        self.chainDER = chainDER
        self.rootCertificateDER = chainDER[chainDER.count - 1]
        self.leafKey = leafKey
        let header = JWSHeader(alg: "ES256", x5c: chainDER.map { $0.base64EncodedString() })
        let headerJSON = (try? JSONEncoder().encode(header)) ?? Data()
        self.encodedHeader = Base64URL.encode(headerJSON)
    }

    /// A verifier that trusts this store's root, for its bundle id and environment.
    public func verifier(cachesVerifiedChains: Bool = true) throws(StoreVerificationError) -> SignedDataVerifier {
        try SignedDataVerifier(
            rootCertificates: [rootCertificateDER], bundleId: bundleId, environment: environment,
            cachesVerifiedChains: cachesVerifiedChains)
    }

    /// Signs `payload` (JSON) as an App Store JWS: ES256 with this store's x5c chain.
    public func sign(payload: Data) throws(SandboxStoreError) -> String {
        let input = encodedHeader + "." + Base64URL.encode(payload)
        guard let signature = try? leafKey.signature(for: Data(input.utf8)) else {
            throw .signingFailed("ECDSA signing failed")
        }
        return input + "." + Base64URL.encode(signature.rawRepresentation)
    }

    /// Signs `value` encoded as JSON.
    public func sign<T: Encodable>(_ value: T) throws(SandboxStoreError) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        guard let data = try? encoder.encode(value) else { throw .signingFailed("cannot encode the payload as JSON") }
        return try sign(payload: data)
    }

    private static func pem(_ certificate: Certificate) throws(SandboxStoreError) -> String {
        guard let document = try? certificate.serializeAsPEM() else { throw .signingFailed("cannot encode a certificate") }
        return document.pemString + "\n"
    }

    /// Writes a file atomically, created with its final mode (a key is never a moment readable by others).
    private static func write(_ text: String, to url: URL, mode: Int? = nil) throws(SandboxStoreError) {
        do { try AtomicFile.write(Data(text.utf8), to: url.path, mode: mode_t(mode ?? 0o644)) } catch {
            throw .writeFailed(path: url.path, reason: error.description)
        }
    }

    private static func read(_ path: String) throws(SandboxStoreError) -> Data {
        guard FileManager.default.fileExists(atPath: path) else { throw .missingFile(path) }
        do {
            return try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw .unreadable(path: path, reason: "\(error)")
        }
    }
}
