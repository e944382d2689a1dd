import Foundation
import Terrain
import Testing
import TrailMapAPI
@testable import TrailMapServer

/// The profile answer written by hand is byte for byte what the API's JSON encoder writes, and
/// gives way to the encoder (whose error is the answer) for a number JSON cannot hold.
@Suite struct ProfileJSONTests {
    /// A profile of `count` samples with every kind of value the encoder formats its own way:
    /// integral, negative, tiny, large, unknown (null) elevations and grades.
    static func answer(count: Int, seed: UInt64) -> ProfileAnswer {
        var rng = Seeded(state: seed)
        func value(_ scale: Double) -> Double {
            switch rng.next() % 6 {
            case 0: Double(Int(rng.next() % 4000)) - 200
            case 1: (Double(rng.next() % 10_000_000) / 100).rounded() / (rng.next() % 2 == 0 ? 1 : -100)
            case 2: Double(rng.next() % 1000) * 1e-7
            case 3: -0.0
            case 4: Double(rng.next() % 1_000_000_000_000) * 1e6
            default: (Double(rng.next() % UInt64(1e9)) / 1e9 * scale * 1e7).rounded() / 1e7
            }
        }
        let samples = (0..<count).map { i in
            ProfileSampleBody(
                distanceM: Double(i) * 12.5, elevationM: rng.next() % 7 == 0 ? nil : value(3000),
                gradePct: rng.next() % 5 == 0 ? nil : value(40), lat: value(90), lon: value(-180))
        }
        let low = ProfileExtreme(distanceM: 0, elevationM: value(100), lat: 46.1234567, lon: -9.5)
        let high = ProfileExtreme(distanceM: 1e-7, elevationM: 1000, lat: -0.0, lon: 179.9999999)
        return ProfileAnswer(
            lengthM: value(1e5), ascentM: 0, descentM: value(10), maxGradePct: seed % 2 == 0 ? nil : value(30),
            minGradePct: -12.25, lowest: low, highest: high, spacingM: 12.5, samples: samples)
    }

    @Test(arguments: [(0, UInt64(1)), (1, 2), (1000, 3), (2500, 4)])
    func theSameBytesAsTheEncoder(_ count: Int, _ seed: UInt64) throws {
        let a = Self.answer(count: count, seed: seed)
        let ours = try #require(ProfileJSON.bytes(a))
        let theirs = try JSONReply.bytes(a)
        #expect(
            ours == theirs,
            "\(String(decoding: ours.prefix(300), as: UTF8.self))\nvs\n\(String(decoding: theirs.prefix(300), as: UTF8.self))")
        #expect(try JSONDecoder().decode(ProfileAnswer.self, from: Data(ours)) == a)
    }

    @Test func aNumberJSONCannotHoldIsLeftToTheEncoder() {
        for bad in [Double.nan, .infinity, -.infinity] {
            var a = Self.answer(count: 3, seed: 5)
            a.samples[1].gradePct = bad
            #expect(ProfileJSON.bytes(a) == nil)
            #expect(throws: (any Error).self) { try JSONReply.bytes(a) }
        }
    }

    /// A fixed sequence of numbers (splitmix64).
    struct Seeded {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }
}
