/// The `store.json` of a sandbox store folder.
struct SandboxStoreConfiguration: Codable, Sendable {
    var bundleId: String
    var environment: String
    var formatVersion: Int
}
