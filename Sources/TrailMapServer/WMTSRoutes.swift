import Foundation
import Hummingbird
import Logging
import Raster
import TileGeometry
import TileStore

/// The WMTS routes (`WMTS`): `GET /wmts/1.0.0/WMTSCapabilities.xml`, the KVP form
/// `GET /wmts?SERVICE=WMTS&REQUEST=GetCapabilities|GetTile&...`, and the RESTful tiles
/// `GET /wmts/1.0.0/{layer}/{style}/{matrixSet}/{matrix}/{row}/{col}.{ext}`. Bad requests answer
/// OGC exception reports (XML) with their codes.
extension TileResponder {
    func wmtsCapabilities(_ request: Request) -> Response {
        Response(
            status: .ok,
            headers: [.contentType: "application/xml; charset=utf-8", .cacheControl: "no-cache", .accessControlAllowOrigin: "*"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: WMTS.capabilities(registry.all, base: wmtsOrigin))))
    }

    /// `GET /wmts?...`: parameter names are case-insensitive, as OGC services' are.
    /// `peer`: the client's address (prefetch, as for `tile(_:request:peer:)`).
    func wmtsKVP(_ request: Request, peer: String? = nil) async -> Response {
        var q = [String: String]()
        for (k, v) in request.uri.queryParameters { q[String(k).uppercased()] = String(v) }
        guard let service = q["SERVICE"] else {
            return WMTS.Exception(status: .badRequest, code: "MissingParameterValue", locator: "SERVICE", text: "SERVICE=WMTS is required")
                .response
        }
        guard service.uppercased() == "WMTS" else {
            return WMTS.Exception(
                status: .badRequest, code: "InvalidParameterValue", locator: "SERVICE", text: "this server offers SERVICE=WMTS only"
            ).response
        }
        guard let operation = q["REQUEST"] else {
            return WMTS.Exception(
                status: .badRequest, code: "MissingParameterValue", locator: "REQUEST",
                text: "REQUEST=GetCapabilities or GetTile is required"
            ).response
        }
        switch operation.lowercased() {
        case "getcapabilities": return wmtsCapabilities(request)
        case "gettile":
            for name in ["LAYER", "TILEMATRIXSET", "TILEMATRIX", "TILEROW", "TILECOL", "FORMAT"] where q[name] == nil {
                return WMTS.Exception(
                    status: .badRequest, code: "MissingParameterValue", locator: name, text: "\(name) is required for GetTile"
                ).response
            }
            return await wmtsTile(
                request, layer: q["LAYER"]!, style: q["STYLE"] ?? "default", set: q["TILEMATRIXSET"]!,
                matrix: q["TILEMATRIX"]!, row: q["TILEROW"]!, col: q["TILECOL"]!, format: q["FORMAT"], ext: nil, peer: peer)
        default:
            return WMTS.Exception(
                status: .notImplemented, code: "OperationNotSupported", locator: "REQUEST",
                text: "\(operation.prefix(64)) is not supported: use GetCapabilities or GetTile"
            ).response
        }
    }

    /// `GET /wmts/1.0.0/{layer}/{style}/{matrixSet}/{matrix}/{row}/{col}.{ext}`
    func wmtsRESTTile(_ request: Request, peer: String? = nil) async -> Response {
        let parts = request.uri.path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(String.init)
        // wmts, 1.0.0, layer, style, set, matrix, row, col.ext
        guard parts.count == 8, let dot = parts[7].lastIndex(of: ".") else {
            return WMTS.Exception(status: .notFound, code: "InvalidParameterValue", locator: nil, text: "no such WMTS resource").response
        }
        let col = String(parts[7][..<dot]), ext = String(parts[7][parts[7].index(after: dot)...])
        return await wmtsTile(
            request, layer: parts[2].removingPercentEncoding ?? parts[2], style: parts[3], set: parts[4],
            matrix: parts[5], row: parts[6], col: col, format: nil, ext: ext, peer: peer)
    }

    private func wmtsTile(
        _ request: Request, layer: String, style: String, set: String, matrix: String, row: String, col: String,
        format: String?, ext: String?, peer: String?
    ) async -> Response {
        func fail(_ code: String, _ locator: String, _ text: String, _ status: HTTPResponse.Status = .badRequest) -> Response {
            WMTS.Exception(status: status, code: code, locator: locator, text: text).response
        }
        guard let id = TileRequestParsing.tilesetID(Substring(layer)), case let .found(t) = registry.lookup(id), WMTS.servesAsLayer(t)
        else {
            return fail("InvalidParameterValue", "LAYER", "no layer \(layer.prefix(64)): see the capabilities document")
        }
        guard style.isEmpty || style == "default" else { return fail("InvalidParameterValue", "STYLE", "the only style is default") }
        guard set == WMTS.matrixSet(tileSize: t.tileSize) else {
            return fail(
                "InvalidParameterValue", "TILEMATRIXSET", "layer \(id) is in tile matrix set \(WMTS.matrixSet(tileSize: t.tileSize))")
        }
        if let format, format != t.format.contentType {
            return fail("InvalidParameterValue", "FORMAT", "layer \(id) is served as \(t.format.contentType)")
        }
        if let ext, ext != t.format.fileExtension {
            return fail("InvalidParameterValue", "FORMAT", "layer \(id)'s tiles end in .\(t.format.fileExtension)")
        }
        guard let z = Self.coordinate(matrix) else { return fail("InvalidParameterValue", "TILEMATRIX", "TILEMATRIX must be a zoom level") }
        guard (t.metadata.minZoom...max(t.metadata.minZoom, t.metadata.maxZoom)).contains(z) else {
            return fail("TileOutOfRange", "TILEMATRIX", "layer \(id) has tile matrices \(t.metadata.minZoom) to \(t.metadata.maxZoom)")
        }
        let range = TileRange(bounds: t.metadata.bounds, zoom: z)
        guard let y = Self.coordinate(row), (range.minY...range.maxY).contains(y) else {
            return fail("TileOutOfRange", "TILEROW", "rows of matrix \(z) are \(range.minY) to \(range.maxY)")
        }
        guard let x = Self.coordinate(col), (range.minX...range.maxX).contains(x) else {
            return fail("TileOutOfRange", "TILECOL", "columns of matrix \(z) are \(range.minX) to \(range.maxX)")
        }
        let parts = TilePath(
            "tiles", Substring(id), Substring(String(z)), Substring(String(x)), Substring("\(y).\(t.format.fileExtension)"))
        do {
            return try await tile(parts, request: request, peer: peer)
        } catch let e as APIError {
            return WMTS.Exception(status: e.status, code: "NoApplicableCode", locator: nil, text: e.message).response
        } catch {
            logger.error("WMTS tile of \(id): \(error)")
            return WMTS.Exception(status: .internalServerError, code: "NoApplicableCode", locator: nil, text: "the tile could not be read")
                .response
        }
    }
}
