import Foundation
import Testing
@testable import TileGeometry

@Suite struct WorldFileTests {
    @Test func parsesAWorldFile() throws {
        let g = try WorldFile.parse("0.5\n0\n0\n-0.5\n-179.75\n89.75\n", crs: .epsg4326)
        #expect(g.originX == -180 && g.originY == 90)
        #expect(g.pixelWidth == 0.5 && g.pixelHeight == 0.5)
        #expect(g.geoBounds(width: 720, height: 360) == GeoBounds(west: -180, south: -90, east: 180, north: 90))
        #expect(g.column(x: 0) == 360 && g.row(y: 0) == 180)
    }

    @Test func roundTripsThroughFormat() throws {
        let g = PixelGrid(crs: .epsg3857, originX: -20000, originY: 50000, pixelWidth: 30, pixelHeight: 30)
        let back = try WorldFile.parse(WorldFile.format(g), crs: .epsg3857)
        #expect(abs(back.originX - g.originX) < 1e-6 && abs(back.originY - g.originY) < 1e-6)
    }

    @Test(arguments: ["0.5\n0.1\n0\n-0.5\n0\n0", "-0.5\n0\n0\n-0.5\n0\n0", "0.5\n0\n0\n0.5\n0\n0"])
    func tellsWhatIsNotNorthUp(text: String) {
        #expect(throws: SidecarError.notNorthUp(path: "a.pgw")) {
            try WorldFile.parse(text, crs: .epsg4326, path: "a.pgw")
        }
    }

    @Test(arguments: [
        "", "1\n2\n3\n4\n5", "0.5\n0\n0\n-0.5\n0\nabc", "0\n0\n0\n-0.5\n0\n0", "0.5\n1\n0.5\n1\n0\n0",
        "0.5\n0\n0\n-0.5\n0\n0\n7"
    ])
    func rejectsMalformed(text: String) {
        #expect {
            try WorldFile.parse(text, crs: .epsg4326, path: "bad.pgw")
        } throws: { error in
            guard case let .malformed(path, _) = error as? SidecarError else { return false }
            return path == "bad.pgw"
        }
    }

    @Test func readsJSONSidecars() throws {
        let json = Data(#"{"crs": "EPSG:3857", "bounds": [0, 0, 1000, 500]}"#.utf8)
        let g = try GeoSidecar.parse(json, width: 100, height: 50, path: "s.json")
        #expect(g.crs == .epsg3857 && g.pixelWidth == 10 && g.pixelHeight == 10 && g.originY == 500)
        let defaulted = try GeoSidecar.parse(Data(#"{"bounds": [-10, -5, 10, 5]}"#.utf8), width: 20, height: 10, path: "s.json")
        #expect(defaulted.crs == .epsg4326)
        for bad in [#"{"crs": "EPSG:2056", "bounds": [0,0,1,1]}"#, #"{"bounds": [0,0,1]}"#, #"{"bounds": [1,0,0,1]}"#, "nope"] {
            #expect(throws: SidecarError.self) { try GeoSidecar.parse(Data(bad.utf8), width: 1, height: 1, path: "s.json") }
        }
    }

    @Test func parsesCRSNames() {
        #expect(CRS(parsing: "epsg:4326") == .epsg4326)
        #expect(CRS(parsing: "EPSG:900913") == .epsg3857)
        #expect(CRS(parsing: "EPSG:2056") == nil)
    }
}
