import Foundation
import Hummingbird
import HummingbirdTesting
import Raster
import Testing
import TileGeometry
import TileStore
@testable import TrailMapServer
import TrailMapTestSupport

/// WMTS offers pictures: terrain tiles (Terrarium or Terrain-RGB, by their `encoding` or the
/// builder's `trailmap:role`) are neither listed in the capabilities nor served as a layer's
/// tiles; drawn relief (a hillshade bundle) and ordinary regions are both.
@Suite struct WMTSTerrainTests {
    let fixture = ServerFixture()

    func write(_ name: String, _ extra: [String: String]) throws {
        var batch = [(tile: TileID, data: [UInt8])]()
        for t in TileRange(bounds: ServerFixture.box, zoom: 3) { batch.append((t, try ServerFixture.png(t))) }
        var meta = BundleMetadata(name: name, bounds: ServerFixture.box, minZoom: 3, maxZoom: 3)
        meta.extra = meta.extra.merging(extra) { $1 }
        try TestBundle.write(batch, to: fixture.dir.file("\(name).mbtiles"), metadata: meta)
    }

    /// The layer identifiers of a capabilities document.
    static func layers(_ xml: String) -> Set<String> {
        var out = Set<String>()
        for part in xml.components(separatedBy: "<Layer>").dropFirst() {
            guard let open = part.range(of: "<ows:Identifier>"), let close = part.range(of: "</ows:Identifier>") else { continue }
            out.insert(String(part[open.upperBound..<close.lowerBound]))
        }
        return out
    }

    @Test func terrainTilesAreNoLayer() async throws {
        try write("terrarium", ["encoding": "terrarium"])
        try write("rgb", ["encoding": "mapbox", BundleRole.metadataKey: BundleRole.terrain.rawValue])
        try write("roleonly", [BundleRole.metadataKey: BundleRole.terrain.rawValue])
        try write("relief", [BundleRole.metadataKey: BundleRole.hillshade.rawValue, "trailmap:terrain": "hillshade (single)"])
        try write("plain", [:])
        var config = ServerConfiguration(tilesDirectory: fixture.dir.path)
        config.port = 0
        let t = TileRange(bounds: ServerFixture.box, zoom: 3)
        try await TileServer.makeApplication(config: config).test(.live) { client in
            for uri in ["/wmts/1.0.0/WMTSCapabilities.xml", "/wmts?SERVICE=WMTS&REQUEST=GetCapabilities"] {
                let r = try await client.execute(uri: uri, method: .get)
                #expect(r.status == .ok)
                #expect(Self.layers(String(buffer: r.body)) == ["relief", "plain"], "\(uri)")
            }
            for id in ["terrarium", "rgb", "roleonly", "relief", "plain"] {
                let picture = ["relief", "plain"].contains(id)
                let rest = try await client.execute(
                    uri: "/wmts/1.0.0/\(id)/default/GoogleMapsCompatible/3/\(t.minY)/\(t.minX).png", method: .get)
                #expect(rest.status == (picture ? .ok : .badRequest), "\(id)")
                if !picture { #expect(String(buffer: rest.body).contains("LAYER"), "\(id): the exception names the parameter") }
                let kvp = try await client.execute(
                    uri:
                        "/wmts?SERVICE=WMTS&REQUEST=GetTile&LAYER=\(id)&STYLE=default&TILEMATRIXSET=GoogleMapsCompatible"
                        + "&TILEMATRIX=3&TILEROW=\(t.minY)&TILECOL=\(t.minX)&FORMAT=image/png",
                    method: .get)
                #expect(kvp.status == (picture ? .ok : .badRequest), "\(id)")
            }
        }
    }
}
