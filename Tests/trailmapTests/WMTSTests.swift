import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Raster
import Testing
import TileGeometry
import TileStore
import TrailMapTestSupport

/// WMTS 1.0.0 from a real `trailmap serve`: the capabilities document, GDAL's WMTS driver reading
/// a layer at the right size and the same pixels as the tiles, the KVP form, OGC exceptions.
@Suite(.serialized, .blockingThreads) struct WMTSTests {
    let dir = TemporaryDirectory()
    static let box = GeoBounds(west: -114, south: 37, east: -109, north: 42)

    /// Fetches a URL: status and body.
    static func get(_ url: String) async throws -> (Int, Data) {
        let (data, response) = try await URLSession.shared.data(from: URL(string: url)!)
        return ((response as? HTTPURLResponse)?.statusCode ?? -1, data)
    }

    /// The capabilities' layers, tile matrices (identifier → scale denominator) and one layer's limits.
    final class Capabilities: NSObject, XMLParserDelegate {
        var layers = [String](), scales = [Int: Double](), limits = [Int: [Int]]()
        var topLeft = ""
        private var path = [String](), text = "", matrix = -1, limit = [Int](), set = ""

        func parser(_ p: XMLParser, didStartElement e: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String])
        {
            path.append(e)
            text = ""
        }
        func parser(_ p: XMLParser, foundCharacters s: String) { text += s }
        func parser(_ p: XMLParser, didEndElement e: String, namespaceURI: String?, qualifiedName: String?) {
            let parent = path.dropLast().last ?? ""
            switch (e, parent) {
            case ("ows:Identifier", "Layer"): layers.append(text)
            case ("ows:Identifier", "TileMatrixSet"): set = text
            case ("ows:Identifier", "TileMatrix"): matrix = Int(text) ?? -1
            case ("ScaleDenominator", "TileMatrix") where set == "GoogleMapsCompatible": scales[matrix] = Double(text)
            case ("TopLeftCorner", "TileMatrix") where set == "GoogleMapsCompatible": topLeft = text
            case ("TileMatrix", "TileMatrixLimits"): limit = [Int(text) ?? -1]
            case ("MinTileRow", _), ("MaxTileRow", _), ("MinTileCol", _), ("MaxTileCol", _): limit.append(Int(text) ?? -1)
            case ("TileMatrixLimits", _): limits[limit[0]] = Array(limit.dropFirst())
            default: break
            }
            path.removeLast()
        }
    }

    @Test func capabilitiesGDALAndExceptions() async throws {
        let tiles = dir.file("tiles")
        try FileManager.default.createDirectory(atPath: tiles, withIntermediateDirectories: true)
        let src = try TestSources.write(in: dir, name: "u", width: 300, height: 300, bounds: Self.box, color: TestSources.terrain)
        let bundle = (tiles as NSString).appendingPathComponent("utah.mbtiles")
        #expect(
            try CLIRunner.run(["build", "--source", src, "--name", "Utah", "--minzoom", "3", "--maxzoom", "7", "--out", bundle, "--quiet"])
                .status == 0)
        let port = try LoopbackSocket.freePort()
        let (server, _, _) = try CLIRunner.start(["serve", "--tiles", tiles, "--port", String(port), "--log-level", "error"])
        defer {
            server.terminate()
            server.waitUntilExit()
        }
        let base = "http://127.0.0.1:\(port)"
        var ready = false
        for _ in 0..<100 where !ready {
            ready = (try? await Self.get(base + "/healthz").0) == 200
            if !ready { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(ready)

        // The document: the layer, GoogleMapsCompatible's scales and corner, the layer's limits.
        let (status, xml) = try await Self.get(base + "/wmts/1.0.0/WMTSCapabilities.xml")
        #expect(status == 200)
        let caps = Capabilities()
        let parser = XMLParser(data: xml)
        parser.delegate = caps
        #expect(parser.parse(), "\(parser.parserError.map { "\($0)" } ?? "")")
        #expect(caps.layers == ["utah"])
        #expect(caps.scales.keys.sorted() == Array(0...7))
        for (z, s) in caps.scales { #expect(abs(s - 559_082_264.028_717_7 / Double(1 << z)) < 1e-3, "matrix \(z)") }
        #expect(caps.topLeft == "-20037508.342789244 20037508.342789244")
        var problems = [String]()
        let meta = try BundleReader(path: bundle).metadata(problems: &problems)
        for z in 3...7 {
            let r = TileRange(bounds: meta.bounds, zoom: z)
            #expect(caps.limits[z] == [r.minY, r.maxY, r.minX, r.maxX], "limits of matrix \(z)")
        }
        let (kvpStatus, kvp) = try await Self.get(base + "/wmts?service=WMTS&request=GetCapabilities")
        #expect(kvpStatus == 200 && kvp == xml)

        // GDAL's WMTS driver: the layer's size at its top zoom, and a tile's pixels.
        let source = "WMTS:\(base)/wmts/1.0.0/WMTSCapabilities.xml,layer=utah"
        // GDAL would cache the tiles it fetches in ./gdalwmscache (the working folder): not here.
        let noCache = ["--config", "GDAL_ENABLE_WMS_CACHE", "NO"]
        let info = try CLIRunner.run(noCache + [source], executable: "/usr/bin/gdalinfo")
        let m = meta.bounds.mercator, res = 2 * 20_037_508.342789244 / Double(256 << 7)
        let size = info.stdout.split(separator: "\n").first { $0.hasPrefix("Size is ") }.map {
            $0.dropFirst(8).split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        }
        #expect(
            size.map {
                abs($0[0] - Int(((m.maxX - m.minX) / res).rounded())) <= 1 && abs($0[1] - Int(((m.maxY - m.minY) / res).rounded())) <= 1
            } == true,
            "\(info.stdout.prefix(300))\(info.stderr)")
        let r7 = TileRange(bounds: meta.bounds, zoom: 7)
        let t = TileID(z: 7, x: r7.minX + 1, y: r7.minY + 1)!
        let tb = t.mercatorBounds
        let out = dir.file("t.png")
        let translated = try CLIRunner.run(
            noCache + [
                "-q", "-of", "PNG", "-projwin", "\(tb.minX)", "\(tb.maxY)", "\(tb.maxX)", "\(tb.minY)", "-outsize", "256", "256",
                source, out
            ], executable: "/usr/bin/gdal_translate")
        #expect(translated.status == 0, "\(translated.stderr)")
        let viaGDAL = try PNGDecoder.decode([UInt8](try Data(contentsOf: URL(fileURLWithPath: out))))
        let stored = try PNGDecoder.decode([UInt8](try #require(try BundleReader(path: bundle).tile(t))))
        #expect(viaGDAL.width == 256 && viaGDAL.pixels == stored.pixels, "GDAL's pixels through WMTS equal the tile's")

        // The RESTful and KVP tiles are the tile route's bytes.
        let (_, direct) = try await Self.get(base + "/tiles/utah/7/\(t.x)/\(t.y).png")
        let (restStatus, rest) = try await Self.get(base + "/wmts/1.0.0/utah/default/GoogleMapsCompatible/7/\(t.y)/\(t.x).png")
        let (kvpTileStatus, kvpTile) = try await Self.get(
            base
                + "/wmts?SERVICE=WMTS&REQUEST=GetTile&LAYER=utah&STYLE=default&TILEMATRIXSET=GoogleMapsCompatible"
                + "&TILEMATRIX=7&TILEROW=\(t.y)&TILECOL=\(t.x)&FORMAT=image/png"
        )
        #expect(restStatus == 200 && kvpTileStatus == 200 && rest == direct && kvpTile == direct)

        // OGC exceptions, with their codes and statuses.
        let cases: [(String, Int, String)] = [
            (
                "/wmts?SERVICE=WMTS&REQUEST=GetTile&LAYER=nope&TILEMATRIXSET=GoogleMapsCompatible"
                    + "&TILEMATRIX=7&TILEROW=0&TILECOL=0&FORMAT=image/png",
                400, "InvalidParameterValue\" locator=\"LAYER"
            ),
            (
                "/wmts?SERVICE=WMTS&REQUEST=GetTile&LAYER=utah&TILEMATRIXSET=WorldCRS84Quad"
                    + "&TILEMATRIX=7&TILEROW=0&TILECOL=0&FORMAT=image/png",
                400, "locator=\"TILEMATRIXSET"
            ),
            (
                "/wmts?SERVICE=WMTS&REQUEST=GetTile&LAYER=utah&TILEMATRIXSET=GoogleMapsCompatible"
                    + "&TILEMATRIX=7&TILEROW=0&TILECOL=\(t.x)&FORMAT=image/png",
                400, "TileOutOfRange\" locator=\"TILEROW"
            ),
            (
                "/wmts?SERVICE=WMTS&REQUEST=GetTile&LAYER=utah&TILEMATRIXSET=GoogleMapsCompatible"
                    + "&TILEMATRIX=12&TILEROW=0&TILECOL=0&FORMAT=image/png",
                400, "TileOutOfRange\" locator=\"TILEMATRIX"
            ),
            (
                "/wmts?SERVICE=WMTS&REQUEST=GetTile&LAYER=utah&TILEMATRIXSET=GoogleMapsCompatible"
                    + "&TILEMATRIX=7&TILEROW=\(t.y)&TILECOL=\(t.x)&FORMAT=image/jpeg",
                400, "locator=\"FORMAT"
            ),
            ("/wmts?SERVICE=WMTS&REQUEST=GetTile&LAYER=utah", 400, "MissingParameterValue"),
            ("/wmts?SERVICE=WMTS&REQUEST=GetFeatureInfo", 501, "OperationNotSupported"),
            ("/wmts?SERVICE=WMS&REQUEST=GetCapabilities", 400, "locator=\"SERVICE"),
            ("/wmts/1.0.0/utah/default/GoogleMapsCompatible/7/\(t.y)/\(t.x).webp", 400, "locator=\"FORMAT")
        ]
        for (path, code, text) in cases {
            let (s, body) = try await Self.get(base + path)
            let report = String(decoding: body, as: UTF8.self)
            #expect(s == code && report.contains("<ExceptionReport") && report.contains(text), "\(path): \(s) \(report)")
        }
    }
}
