import Foundation
import HTTPTypes
import Hummingbird
import Raster
import TileGeometry
import TileStore

/// OGC WMTS 1.0.0 for desktop GIS (QGIS, ArcGIS, GDAL's WMTS driver): every tileset a layer in
/// the GoogleMapsCompatible tile matrix set (GoogleMapsCompatible512 for 512-px tilesets), with
/// RESTful resource URLs and the KVP form. Tiles come from the tile route itself, so paid
/// tilesets need the same credentials and answer with the same ETags and caching. Terrain tiles
/// (Terrarium, Terrain-RGB: elevations encoded in the colours) are data, not pictures: they are
/// no WMTS layer (`servesAsLayer`); drawn relief (hillshade) is.
enum WMTS {
    /// Web Mercator's half circumference, metres: the top-left corner of the matrices.
    static let origin = 20_037_508.342_789_244
    /// GoogleMapsCompatible's scale denominator at zoom 0 (256-px tiles, 0.28 mm pixels).
    static let scale0 = 559_082_264.028_717_7

    /// The matrix set of a tileset's tile size.
    static func matrixSet(tileSize: Int) -> String { tileSize == 512 ? "GoogleMapsCompatible512" : "GoogleMapsCompatible" }

    /// Whether `t` is offered as a WMTS layer: served, and a picture (not terrain tiles).
    static func servesAsLayer(_ t: Tileset) -> Bool {
        t.failure == nil && TilesetLayer.of(t.metadataPairs) != .terrain
    }

    /// The capabilities document: `base` is the server's origin.
    static func capabilities(_ tilesets: [Tileset], base: String) -> String {
        let served = tilesets.filter(servesAsLayer)
        let top = max(0, served.map(\.metadata.maxZoom).max() ?? 0)
        var x = """
            <?xml version="1.0" encoding="UTF-8"?>
            <Capabilities xmlns="http://www.opengis.net/wmts/1.0" xmlns:ows="http://www.opengis.net/ows/1.1" \
            xmlns:xlink="http://www.w3.org/1999/xlink" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" \
            xsi:schemaLocation="http://www.opengis.net/wmts/1.0 \
            http://schemas.opengis.net/wmts/1.0/wmtsGetCapabilities_response.xsd" version="1.0.0">
            <ows:ServiceIdentification><ows:Title>TrailMap</ows:Title><ows:ServiceType>OGC WMTS</ows:ServiceType>\
            <ows:ServiceTypeVersion>1.0.0</ows:ServiceTypeVersion></ows:ServiceIdentification>
            <ows:OperationsMetadata>
            """
        for op in ["GetCapabilities", "GetTile"] {
            x +=
                "<ows:Operation name=\"\(op)\"><ows:DCP><ows:HTTP><ows:Get xlink:href=\"\(xml(base))/wmts?\">"
                + "<ows:Constraint name=\"GetEncoding\"><ows:AllowedValues><ows:Value>KVP</ows:Value></ows:AllowedValues></ows:Constraint>"
                + "</ows:Get></ows:HTTP></ows:DCP></ows:Operation>\n"
        }
        x += "</ows:OperationsMetadata>\n<Contents>\n"
        for t in served {
            let m = t.metadata, set = matrixSet(tileSize: t.tileSize)
            x += "<Layer><ows:Title>\(xml(m.name))</ows:Title><ows:Identifier>\(xml(t.id))</ows:Identifier>"
            x += "<ows:WGS84BoundingBox><ows:LowerCorner>\(m.bounds.west) \(m.bounds.south)</ows:LowerCorner>"
            x += "<ows:UpperCorner>\(m.bounds.east) \(m.bounds.north)</ows:UpperCorner></ows:WGS84BoundingBox>"
            x += "<Style isDefault=\"true\"><ows:Identifier>default</ows:Identifier></Style>"
            x += "<Format>\(t.format.contentType)</Format>"
            x += "<TileMatrixSetLink><TileMatrixSet>\(set)</TileMatrixSet><TileMatrixSetLimits>"
            for z in max(0, m.minZoom)...max(m.minZoom, m.maxZoom) {
                let r = TileRange(bounds: m.bounds, zoom: z)
                x += "<TileMatrixLimits><TileMatrix>\(z)</TileMatrix><MinTileRow>\(r.minY)</MinTileRow><MaxTileRow>\(r.maxY)</MaxTileRow>"
                x += "<MinTileCol>\(r.minX)</MinTileCol><MaxTileCol>\(r.maxX)</MaxTileCol></TileMatrixLimits>"
            }
            x += "</TileMatrixSetLimits></TileMatrixSetLink>"
            x +=
                "<ResourceURL format=\"\(t.format.contentType)\" resourceType=\"tile\" template=\"\(xml(base))/wmts/1.0.0/\(xml(t.id))"
                + "/{Style}/{TileMatrixSet}/{TileMatrix}/{TileRow}/{TileCol}.\(t.format.fileExtension)\"/>"
            x += "</Layer>\n"
        }
        for size in Set(served.map { $0.tileSize == 512 ? 512 : 256 }).union([256]).sorted() {
            x += "<TileMatrixSet><ows:Identifier>\(matrixSet(tileSize: size))</ows:Identifier>"
            x += "<ows:SupportedCRS>urn:ogc:def:crs:EPSG::3857</ows:SupportedCRS>"
            if size == 256 { x += "<WellKnownScaleSet>urn:ogc:def:wkss:OGC:1.0:GoogleMapsCompatible</WellKnownScaleSet>" }
            for z in 0...top {
                let n = 1 << z
                x += "<TileMatrix><ows:Identifier>\(z)</ows:Identifier>"
                x += "<ScaleDenominator>\(scale0 / Double(n) * 256 / Double(size))</ScaleDenominator>"
                x += "<TopLeftCorner>\(-origin) \(origin)</TopLeftCorner><TileWidth>\(size)</TileWidth><TileHeight>\(size)</TileHeight>"
                x += "<MatrixWidth>\(n)</MatrixWidth><MatrixHeight>\(n)</MatrixHeight></TileMatrix>"
            }
            x += "</TileMatrixSet>\n"
        }
        x += "</Contents>\n</Capabilities>\n"
        return x
    }

    /// An OGC exception report.
    struct Exception: Error {
        var status: HTTPResponse.Status
        var code: String
        var locator: String?
        var text: String

        var response: Response {
            let locator = self.locator.map { " locator=\"\(xml($0))\"" } ?? ""
            let body = """
                <?xml version="1.0" encoding="UTF-8"?>
                <ExceptionReport xmlns="http://www.opengis.net/ows/1.1" version="1.1.0" xml:lang="en">
                <Exception exceptionCode="\(code)"\(locator)><ExceptionText>\(xml(text))</ExceptionText></Exception>
                </ExceptionReport>

                """
            return Response(
                status: status, headers: [.contentType: "application/xml; charset=utf-8", .accessControlAllowOrigin: "*"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
        }
    }

    static func xml(_ s: String) -> String {
        var out = ""
        for c in s {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            default: out.append(c)
            }
        }
        return out
    }
}
