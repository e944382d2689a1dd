import HTTPTypes
import Hummingbird

/// `GET|HEAD /tiles/{id}.pmtiles`: a tileset served from a PMTiles archive, as the file itself,
/// whole or by `Range` (what PMTiles clients read). A paid tileset's archive is its buyer's only
/// (bearer or tile token): the preview zooms open its tiles, never the whole file.
extension TileResponder {
    func archive(_ raw: String, request: Request) async throws -> Response {
        let id = try tilesetID(Substring(raw))
        let t = try available(id)
        guard t.isArchive else {
            throw APIError.notFound("no_archive", "tileset \(id) is served from an MBTiles bundle: it has no PMTiles archive")
        }
        var paid = false
        if let access, let product = try await access.paidProduct(tileset: id) {
            try await access.authorize(request, productID: product)
            paid = true
        }
        guard let file = t.openFile() else {
            throw APIError(
                .serviceUnavailable, code: "tileset_unavailable", message: "the archive of \(id) cannot be read; try again later")
        }
        return try StoreAPI.rangedResponse(
            request, file, etag: t.fileETag, filename: "\(id).pmtiles",
            contentType: "application/vnd.pmtiles", cacheControl: paid ? "private, no-cache" : "public, no-cache")
    }
}
