/// The App Store server environment that signed a transaction or notification,
/// spelled exactly as Apple writes it in the `environment` field.
public enum StoreEnvironment: String, Sendable, Codable, CaseIterable {
    /// The live App Store.
    case production = "Production"
    /// Apple's sandbox (TestFlight, sandbox accounts) and TrailMap's own sandbox store.
    case sandbox = "Sandbox"
    /// StoreKit testing in Xcode (locally signed, not by Apple).
    case xcode = "Xcode"
    /// Local testing with the App Store Server Library's test data.
    case localTesting = "LocalTesting"
}
