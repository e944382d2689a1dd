import Testing
@testable import TileGeometry

@Suite struct AntimeridianTests {
    @Test func wrapsIntoTheHalfOpenRange() {
        #expect(Antimeridian.wrap(181) == -179)
        #expect(Antimeridian.wrap(-181) == 179)
        #expect(Antimeridian.wrap(180) == -180)
        #expect(Antimeridian.wrap(-180) == -180)
        #expect(Antimeridian.wrap(540.5) == -179.5)
        #expect(Antimeridian.wrap(12.25) == 12.25)
    }

    @Test func aSpanAcrossTheAntimeridianIsFoundNarrowest() throws {
        // Fiji: 177E to 178W.
        let span = try #require(Antimeridian.crossingSpan([177, 179.5, -179.9, -178]))
        #expect(span.west == 177 && span.east == 182)
        // Alaska: 172E (Attu) to 130W.
        let alaska = try #require(Antimeridian.crossingSpan([172.4, -179, -150, -130]))
        #expect(abs(alaska.west - 172.4) < 1e-9 && abs(alaska.east - 230) < 1e-9)
    }

    @Test func spansThatDoNotCrossAreLeftAlone() {
        #expect(Antimeridian.crossingSpan([-106, -105, -104.5]) == nil)
        #expect(Antimeridian.crossingSpan([-170, 0, 170]) == nil, "the plain span, 340 degrees, is no wider than the wrapped one")
        // Around a pole every longitude occurs: no span narrower than 180 degrees covers them.
        #expect(Antimeridian.crossingSpan(stride(from: -180.0, to: 180, by: 15).map { $0 }) == nil)
    }

    @Test func aCrossingBoxSplitsInTwo() {
        let parts = Antimeridian.parts(GeoBounds(west: 177, south: -19, east: 182, north: -16))
        #expect(
            parts == [
                GeoBounds(west: 177, south: -19, east: 180, north: -16),
                GeoBounds(west: -180, south: -19, east: -178, north: -16)
            ])
        let plain = GeoBounds(west: -106, south: 39, east: -105, north: 40)
        #expect(Antimeridian.parts(plain) == [plain])
    }

    @Test func boxesEitherSideCentreNearTheAntimeridian() throws {
        let east = GeoBounds(west: 177, south: -19, east: 180, north: -16)
        let west = GeoBounds(west: -180, south: -19, east: -178, north: -16)
        let c = try #require(Antimeridian.centerLongitude([east, west]))
        #expect(abs(c - 179.5) < 1e-9)
        #expect(Antimeridian.centerLongitude([GeoBounds(west: -106, south: 39, east: -104, north: 40)]) == -105)
        // Two boxes far apart on one side: the gap across the antimeridian is the widest.
        let spread = [GeoBounds(west: -170, south: 0, east: -160, north: 1), GeoBounds(west: 160, south: 0, east: 170, north: 1)]
        #expect(try #require(Antimeridian.centerLongitude(spread)).magnitude > 179)
        let apart = [GeoBounds(west: -20, south: 0, east: -10, north: 1), GeoBounds(west: 10, south: 0, east: 20, north: 1)]
        #expect(Antimeridian.centerLongitude(apart) == 0)
    }

    @Test func boxesSpanTheNarrowWayAround() throws {
        let east = GeoBounds(west: 177, south: -19, east: 180, north: -16)
        let west = GeoBounds(west: -180, south: -19, east: -178, north: -16)
        #expect(abs(try #require(Antimeridian.spannedLongitudes([east, west])) - 5) < 1e-9, "across 180°: 5°, not 358°")
        let apart = [GeoBounds(west: -20, south: 0, east: -10, north: 1), GeoBounds(west: 10, south: 0, east: 20, north: 1)]
        #expect(Antimeridian.spannedLongitudes(apart) == 40, "the gap between them counts, the way round is wider")
        #expect(Antimeridian.spannedLongitudes([GeoBounds(west: -106, south: 39, east: -104, north: 40)]) == 2)
        #expect(Antimeridian.spannedLongitudes([]) == nil)
    }
}
