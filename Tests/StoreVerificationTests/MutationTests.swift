import Foundation
import Testing
import TrailMapTestSupport
@testable import StoreVerification

/// Random edits of a valid JWS never verify as anything but the original.
@Suite(.computeThreads) struct MutationTests {
    @Test func randomEditsNeverPass() async throws {
        let fixture = try StoreFixture()
        let verifier = try fixture.verifier()
        let (jws, original) = try fixture.purchase()
        _ = try await verifier.verifyTransaction(jws)
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.=+/")
        var characters = Array(jws)
        var accepted = 0
        for _ in 0..<400 {
            let saved = characters
            let edits = Int.random(in: 1...3, using: &generator)
            for _ in 0..<edits {
                let index = Int.random(in: 0..<characters.count, using: &generator)
                switch Int.random(in: 0..<3, using: &generator) {
                case 0: characters[index] = alphabet.randomElement(using: &generator) ?? "A"
                case 1: characters.remove(at: index)
                default: characters.insert(alphabet.randomElement(using: &generator) ?? "A", at: index)
                }
            }
            do {
                let transaction = try await verifier.verifyTransaction(String(characters))
                // Only an edit that decodes to the same bytes (base64 padding bits) may pass.
                #expect(transaction == original)
                accepted += 1
            } catch {
                #expect(error is StoreVerificationError)
            }
            characters = saved
        }
        #expect(accepted < 40)
    }
}
