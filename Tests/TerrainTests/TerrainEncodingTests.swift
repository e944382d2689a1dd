import Testing
import TrailMapTestSupport
import Terrain

@Suite(.computeThreads) struct TerrainEncodingTests {
    /// Values from the encodings' published definitions: Terrarium 0 m is (128, 0, 0); Mapbox 0 m is
    /// 100,000 tenths above −10,000 m, i.e. (1, 134, 160).
    @Test func publishedReferencePixels() {
        #expect(TerrainEncoding.terrarium.decode(red: 128, green: 0, blue: 0) == 0)
        #expect(TerrainEncoding.mapbox.decode(red: 1, green: 134, blue: 160) == 0)
        let t = TerrainEncoding.terrarium.encode(0)
        #expect(t.red == 128 && t.green == 0 && t.blue == 0)
        let m = TerrainEncoding.mapbox.encode(0)
        #expect(m.red == 1 && m.green == 134 && m.blue == 160)
    }

    @Test(arguments: TerrainEncoding.allCases)
    func roundTripWithinHalfAStep(encoding: TerrainEncoding) {
        var value = -430.37
        while value < 8848.86 {
            let p = encoding.encode(value)
            let back = encoding.decode(red: p.red, green: p.green, blue: p.blue)
            #expect(abs(back - value) <= encoding.step / 2 + 1e-9, "\(encoding) \(value) -> \(back)")
            value += 17.131
        }
    }

    @Test(arguments: TerrainEncoding.allCases)
    func clampsOutsideTheRange(encoding: TerrainEncoding) {
        let low = encoding.encode(-1e9)
        #expect(encoding.decode(red: low.red, green: low.green, blue: low.blue) == encoding.representableRange.lowerBound)
        let high = encoding.encode(1e9)
        let top = encoding.decode(red: high.red, green: high.green, blue: high.blue)
        #expect(abs(top - encoding.representableRange.upperBound) < 1e-6)
    }

    @Test func metadataNames() {
        #expect(TerrainEncoding(metadataValue: "terrarium") == .terrarium)
        #expect(TerrainEncoding(metadataValue: "mapbox") == .mapbox)
        #expect(TerrainEncoding(metadataValue: "terrain-rgb") == nil)
        #expect(TerrainEncoding.metadataKey == "encoding")
    }
}
