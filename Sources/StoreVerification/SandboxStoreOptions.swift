import Foundation

/// How `SandboxStore.initialize` shapes its certificates. The defaults mirror Apple's chain;
/// the other settings exist to build deliberately broken stores for tests.
public struct SandboxStoreOptions: Sendable {
    /// The environment written into signed payloads (`Sandbox` by default).
    public var environment: StoreEnvironment = .sandbox
    /// Put Apple's 1.2.840.113635.100.6.2.1 extension on the intermediate.
    public var intermediateAppleOID = true
    /// Put Apple's 1.2.840.113635.100.6.11.1 extension on the leaf.
    public var leafAppleOID = true
    /// When the certificates start being valid (default: one hour before creation).
    public var notValidBefore: Date?
    /// When the leaf stops being valid (default: ten years after creation).
    public var leafNotValidAfter: Date?

    /// Apple's shape.
    public init() {}
}
