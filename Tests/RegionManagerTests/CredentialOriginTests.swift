import Foundation
import RegionManager
import Testing

/// Hardening finding 1: the account's token only ever goes to the configured server's origin.
@Suite struct CredentialOriginTests {
    let client = StoreClient(server: URL(string: "http://127.0.0.1:8080")!, token: "secret")
    let own = "http://127.0.0.1:8080/api/v1/downloads/p"

    // Hardening finding 1 (docs/notes/hardening.md).
    @Test func anAdvertisedURLOnAnotherOriginIsIgnored() {
        for foreign in [
            "http://evil.example/steal", "https://127.0.0.1:8080/api/v1/downloads/p", "http://127.0.0.1:9999/x",
            "//evil.example/x", "http://127.0.0.1:8080@evil.example/x", "ftp://127.0.0.1:8080/x"
        ] {
            #expect(client.downloadURL("p", advertised: foreign).absoluteString == own, "\(foreign)")
        }
    }

    // Hardening finding 1 (docs/notes/hardening.md).
    @Test func relativeAndSameOriginURLsAreFollowed() {
        #expect(client.downloadURL("p", advertised: "/api/v1/downloads/p").absoluteString == own)
        #expect(
            client.downloadURL("p", advertised: "http://127.0.0.1:8080/api/v1/downloads/q?v=2").absoluteString
                == "http://127.0.0.1:8080/api/v1/downloads/q?v=2")
        #expect(client.downloadURL("p").absoluteString == own)
    }
}
