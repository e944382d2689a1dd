import Foundation
import Testing
import TrailMapAPI
@testable import TrailMapServer

/// The elevation answer written by hand is byte for byte what the API's JSON encoder writes, and
/// gives way to the encoder (whose error is the answer) for a number JSON cannot hold.
@Suite struct ElevationJSONTests {
    /// `count` points with every kind of value the encoder formats its own way: integral,
    /// negative, tiny, large, negative zero and unknown (null) elevations, as the route rounds
    /// them (to the centimetre) and not.
    static func answer(count: Int, seed: UInt64) -> ElevationAnswer {
        var rng = ProfileJSONTests.Seeded(state: seed)
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
        return ElevationAnswer(
            points: (0..<count).map { _ in
                let e = rng.next() % 5 == 0 ? nil : value(3000)
                return ElevationPoint(
                    lat: value(90), lon: value(-180), elevationM: rng.next() % 2 == 0 ? e : e.map { ($0 * 100).rounded() / 100 })
            })
    }

    @Test(arguments: [(0, UInt64(11)), (1, 12), (1000, 13), (2500, 14)])
    func theSameBytesAsTheEncoder(_ count: Int, _ seed: UInt64) throws {
        let a = Self.answer(count: count, seed: seed)
        let ours = try #require(ElevationJSON.bytes(a))
        let theirs = try JSONReply.bytes(a)
        #expect(
            ours == theirs,
            "\(String(decoding: ours.prefix(300), as: UTF8.self))\nvs\n\(String(decoding: theirs.prefix(300), as: UTF8.self))")
        #expect(try JSONDecoder().decode(ElevationAnswer.self, from: Data(ours)) == a)
    }

    @Test func aNumberJSONCannotHoldIsLeftToTheEncoder() {
        for bad in [Double.nan, .infinity, -.infinity] {
            var a = Self.answer(count: 3, seed: 15)
            a.points[1].elevationM = bad
            #expect(ElevationJSON.bytes(a) == nil)
            #expect(throws: (any Error).self) { try JSONReply.bytes(a) }
        }
    }
}
