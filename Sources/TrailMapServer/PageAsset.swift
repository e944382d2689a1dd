import Essentials
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// A served page or page file held in memory, with a strong ETag from its content (SHA-256):
/// a browser that revalidates (`If-None-Match`) gets `304 Not Modified` and no body.
struct PageAsset: Sendable {
    let body: ByteBuffer
    let etag: String
    let headers: HTTPFields

    /// `bytes` served as `contentType` with `cacheControl`, plus any `extra` headers.
    init(bytes: Data, contentType: String, cacheControl: String, extra: HTTPFields = [:]) {
        body = ByteBuffer(bytes: bytes)
        etag = "\"\(FileSHA256.hex(of: bytes).prefix(32))\""
        var fields: HTTPFields = [.contentType: contentType, .cacheControl: cacheControl, .eTag: etag]
        fields.append(contentsOf: extra)
        headers = fields
    }

    /// The text `source` as UTF-8.
    init(text source: String, contentType: String, cacheControl: String, extra: HTTPFields = [:]) {
        self.init(bytes: Data(source.utf8), contentType: contentType, cacheControl: cacheControl, extra: extra)
    }

    /// 200 with the body, or 304 with the same headers when `ifNoneMatch` names this ETag.
    func response(ifNoneMatch: String?) -> Response {
        if let ifNoneMatch, TileRequestParsing.etagMatches(ifNoneMatch, etag: etag) {
            return Response(status: .notModified, headers: headers)
        }
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: body))
    }
}
