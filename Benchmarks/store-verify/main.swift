// Verified App Store transactions per second, with the chain cache (TrailMap's default, as Apple's
// library does) against the named reference: the same verifier with the cache off, which validates
// the X.509 chain on every call. Usage: store-verify-bench [SECONDS_PER_RUN] [ROUNDS]
import StoreVerification
import Foundation

let seconds = CommandLine.arguments.count > 1 ? Double(CommandLine.arguments[1]) ?? 3 : 3
let rounds = CommandLine.arguments.count > 2 ? Int(CommandLine.arguments[2]) ?? 3 : 3

let dir = FileManager.default.temporaryDirectory.appendingPathComponent("store-verify-bench-\(UUID().uuidString)")
defer { try? FileManager.default.removeItem(at: dir) }
let store = try SandboxStore.initialize(directory: dir, bundleId: "com.trailmap.app")
let signed = try (0..<256).map { i in
    try store.signTransaction(productId: "com.trailmap.region.r\(i)", appAccountToken: UUID(), price: 4990, currency: "USD").jws
}

/// Verifies for `seconds` on one task; returns verified transactions per second.
func measure(cached: Bool) async throws -> Double {
    let verifier = try store.verifier(cachesVerifiedChains: cached)
    _ = try await verifier.verifyTransaction(signed[0]) // warm up (fills the cache when on)
    let start = ContinuousClock.now
    var count = 0
    while ContinuousClock.now - start < .seconds(seconds) {
        for jws in signed.prefix(32) {
            _ = try await verifier.verifyTransaction(jws)
            count += 1
        }
    }
    let elapsed = ContinuousClock.now - start
    return Double(count) / (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
}

var uncachedRates: [Double] = []
var cachedRates: [Double] = []
for round in 1...rounds {
    let uncached = try await measure(cached: false)
    let cached = try await measure(cached: true)
    uncachedRates.append(uncached)
    cachedRates.append(cached)
    print(
        String(
            format: "round %d: no cache (reference) %8.0f tx/s   chain cache %8.0f tx/s   ratio %.2fx",
            round, uncached, cached, cached / uncached))
}
let medianUncached = uncachedRates.sorted()[rounds / 2]
let medianCached = cachedRates.sorted()[rounds / 2]
print(
    String(
        format: "median: no cache (reference) %.0f tx/s, chain cache %.0f tx/s, ratio %.2fx (one task, %gs runs)",
        medianUncached, medianCached, medianCached / medianUncached, seconds))
