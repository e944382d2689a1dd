import Testing
@testable import TileGeometry

@Suite struct WebMercatorTests {
    @Test func projectsTheWorldCorners() {
        let (x, y) = WebMercator.project(lon: 180, lat: WebMercator.maxLatitude)
        #expect(abs(x - WebMercator.originShift) < 1e-6)
        #expect(abs(y - WebMercator.originShift) < 1e-3)
        let (x0, y0) = WebMercator.project(lon: 0, lat: 0)
        #expect(abs(x0) < 1e-9 && abs(y0) < 1e-9)
    }

    @Test func clipsLatitudeBeyondTheMercatorLimit() {
        #expect(WebMercator.project(lon: 0, lat: 89.9).y == WebMercator.project(lon: 0, lat: WebMercator.maxLatitude).y)
        #expect(abs(WebMercator.project(lon: 0, lat: -90).y + WebMercator.project(lon: 0, lat: WebMercator.maxLatitude).y) < 1e-6)
    }

    @Test(arguments: [(-104.99, 39.74), (151.2, -33.87), (0.0, 0.0), (-179.9, 84.0), (179.9, -84.0)])
    func roundTrips(lon: Double, lat: Double) {
        let (x, y) = WebMercator.project(lon: lon, lat: lat)
        let (lon2, lat2) = WebMercator.unproject(x: x, y: y)
        #expect(abs(lon - lon2) < 1e-9)
        #expect(abs(lat - lat2) < 1e-9)
    }

    @Test func findsKnownTiles() {
        // Denver at zoom 10 is tile 10/213/388 in every slippy-map tool.
        #expect(WebMercator.tile(lon: -104.99, lat: 39.74, zoom: 10) == TileID(z: 10, x: 213, y: 388))
        #expect(WebMercator.tile(lon: 0.1, lat: 0.1, zoom: 1) == TileID(z: 1, x: 1, y: 0))
        #expect(WebMercator.tile(lon: -0.1, lat: -0.1, zoom: 1) == TileID(z: 1, x: 0, y: 1))
        // The far east edge and the Mercator limit fall in the last tile, not past it.
        #expect(WebMercator.tile(lon: 180, lat: -90, zoom: 3) == TileID(z: 3, x: 7, y: 7))
    }

    @Test func tileBoundsContainTheirTiles() throws {
        let t = try #require(TileID(z: 12, x: 852, y: 1552))
        let b = t.geoBounds
        let c = WebMercator.tile(lon: (b.west + b.east) / 2, lat: (b.south + b.north) / 2, zoom: 12)
        #expect(c == t)
        #expect(abs(WebMercator.tileSpan(zoom: 0) - 2 * WebMercator.originShift) < 1e-6)
    }
}

@Suite struct TileIDTests {
    @Test func rejectsOutOfRangeAddresses() {
        #expect(TileID(z: 23, x: 0, y: 0) == nil)
        #expect(TileID(z: -1, x: 0, y: 0) == nil)
        #expect(TileID(z: 3, x: 8, y: 0) == nil)
        #expect(TileID(z: 3, x: 0, y: -1) == nil)
        #expect(TileID(z: 22, x: (1 << 22) - 1, y: 0) != nil)
    }

    @Test func convertsToTMSRows() throws {
        let t = try #require(TileID(z: 3, x: 2, y: 1))
        #expect(t.tmsY == 6)
        #expect(TileID.xyzRow(fromTMS: 6, zoom: 3) == 1)
        #expect(t.parent == TileID(z: 2, x: 1, y: 0))
        #expect(t.children.allSatisfy { $0.parent == t })
    }
}

@Suite struct TileRangeTests {
    @Test func coversTheWorld() {
        #expect(TileRange(bounds: .world, zoom: 0).count == 1)
        #expect(TileRange(bounds: .world, zoom: 3).count == 64)
    }

    @Test func boxOnTileEdgesDoesNotSpill() {
        // The north-west quarter of the world at zoom 1 is exactly tile 1/0/0.
        let box = GeoBounds(west: -180, south: 0, east: 0, north: WebMercator.maxLatitude)
        let r = TileRange(bounds: box, zoom: 1)
        #expect(r.count == 1)
        #expect(r.contains(TileID(z: 1, x: 0, y: 0)!))
        let r2 = TileRange(bounds: box, zoom: 2)
        #expect(r2.count == 4)
        #expect(Array(r2).count == 4)
    }

    @Test func smallBoxIsOneTile() {
        let box = GeoBounds(west: -105.0, south: 39.7, east: -104.98, north: 39.75)
        let r = TileRange(bounds: box, zoom: 10)
        #expect(r.count == 1)
        #expect(r.tile(at: 0) == TileID(z: 10, x: 213, y: 388))
    }

    @Test func intersectsTilesUnderATileAndGrows() throws {
        let t = try #require(TileID(z: 3, x: 2, y: 5))
        let under = TileRange(under: t, zoom: 5)
        #expect(under == TileRange(z: 5, minX: 8, maxX: 11, minY: 20, maxY: 23))
        #expect(under.allSatisfy { $0.z == 5 && $0.x >> 2 == 2 && $0.y >> 2 == 5 } && under.count == 16)
        #expect(TileRange(under: t, zoom: 3) == TileRange(z: 3, minX: 2, maxX: 2, minY: 5, maxY: 5))
        let other = TileRange(z: 5, minX: 10, maxX: 30, minY: 0, maxY: 21)
        #expect(under.intersection(other) == TileRange(z: 5, minX: 10, maxX: 11, minY: 20, maxY: 21))
        #expect(other.intersection(under) == under.intersection(other))
        #expect(under.intersection(TileRange(z: 5, minX: 12, maxX: 13, minY: 20, maxY: 23)) == nil, "side by side share nothing")
        let g = under.grown(by: 1)
        #expect(g.count == 36 && g.intersection(under) == under)
        // Grown past the grid's corner, then cut to the zoom's tiles.
        let corner = TileRange(z: 2, minX: 0, maxX: 0, minY: 3, maxY: 3).grown(by: 1)
        #expect(corner.intersection(TileRange(bounds: .world, zoom: 2)) == TileRange(z: 2, minX: 0, maxX: 1, minY: 2, maxY: 3))
    }
}

@Suite struct GeoBoundsTests {
    @Test func parsesBoundingBoxes() {
        #expect(GeoBounds(parsing: "-110,36,-101,42") == GeoBounds(west: -110, south: 36, east: -101, north: 42))
        #expect(GeoBounds(parsing: " -110 , 36 , -101 , 42 ") != nil)
        for bad in ["", "1,2,3", "a,b,c,d", "10,0,5,1", "0,10,1,5", "0,0,nan,1", "1,2,3,4,5"] {
            #expect(GeoBounds(parsing: bad) == nil, "\(bad)")
        }
    }

    @Test func clipsToMercator() {
        let polar = GeoBounds(west: -10, south: 86, east: 10, north: 89)
        #expect(polar.clippedToMercator == nil)
        let tall = GeoBounds(west: -10, south: 0, east: 10, north: 90)
        #expect(tall.clippedToMercator?.north == WebMercator.maxLatitude)
    }
}
