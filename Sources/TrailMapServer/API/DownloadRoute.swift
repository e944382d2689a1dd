import Catalog
import Foundation
import HTTPTypes
import Hummingbird
import Logging

/// `GET|HEAD /downloads/{productId}`: the bundle file, resumable with `Range` and `If-Range`
/// (and the same answer for signed links, `DownloadLinks.swift`).
extension StoreAPI {
    func download(_ request: Request, product: Substring, context: TrailMapRequestContext) async throws -> Response {
        let a = try await account(request)
        let p = try await catalog.downloadable(productID: try Self.productID(product), account: a)
        return try await bundleResponse(request, p, cacheControl: "private, no-cache")
    }

    /// The bundle of `p` (published bytes only), whole or a `Range`, with `If-Range` and the
    /// SHA-256 as a strong ETag.
    func bundleResponse(_ request: Request, _ p: Product, cacheControl: String) async throws -> Response {
        guard let file = await bundleIntegrity.openPublished(path: p.bundlePath, size: p.size, sha256: p.sha256) else {
            logger.error("download \(p.id): \(p.bundlePath) is missing or its bytes changed since it was published (SHA-256 differs)")
            throw APIError(
                .serviceUnavailable, code: "bundle_unavailable",
                message:
                    "the bundle of \(p.id) is missing or changed on the server since it was published (publish it again); try again later")
        }
        return try fileResponse(request, file, sha256: p.sha256, filename: "\(p.tileset).mbtiles", cacheControl: cacheControl)
    }

    /// A checked file (bundle or patch), whole or a `Range`, with `If-Range` and its SHA-256 as a
    /// strong ETag.
    func fileResponse(_ request: Request, _ file: OpenBundleFile, sha256: String, filename: String, cacheControl: String) throws -> Response
    {
        try Self.rangedResponse(
            request, file, etag: "\"\(sha256)\"", filename: filename, contentType: "application/vnd.sqlite3",
            cacheControl: cacheControl)
    }

    /// An open file, whole or a `Range` (`If-Range` against `etag`), as an attachment named `filename`.
    static func rangedResponse(
        _ request: Request, _ file: OpenBundleFile, etag: String, filename: String, contentType: String,
        cacheControl: String
    ) throws -> Response {
        let size = file.size
        var headers: HTTPFields = [
            .eTag: etag, .acceptRanges: "bytes", .contentType: contentType,
            .contentDisposition: "attachment; filename=\"\(filename)\"", .cacheControl: cacheControl,
            .accessControlAllowOrigin: "*"
        ]
        var range: ClosedRange<Int64>? = nil
        if let header = request.headers[.range] {
            let ifRange = request.headers[.ifRange]
            if ifRange == nil || ifRange == etag {
                switch Self.byteRange(header, size: size) {
                case let .some(.some(r)): range = r
                case .some(.none):
                    headers[.contentRange] = "bytes */\(size)"
                    var e = APIError(
                        .rangeNotSatisfiable, code: "range_not_satisfiable",
                        message: "the range \(header.prefix(64)) is outside the \(size)-byte file")
                    e.headers = headers
                    throw e
                case .none: break
                }
            }
        }
        if size == 0 { return Response(status: .ok, headers: headers) }
        let r = range ?? 0...(size - 1)
        headers[.contentLength] = String(r.count)
        let status: HTTPResponse.Status = range == nil ? .ok : .partialContent
        if range != nil { headers[.contentRange] = "bytes \(r.lowerBound)-\(r.upperBound)/\(size)" }
        if request.method == .head { return Response(status: status, headers: headers) }
        // Read from the file that was checked, not from the path again.
        let body = ResponseBody(contentLength: Int(r.count)) { writer in
            try await file.stream(r) { try await writer.write($0) }
            try await writer.finish(nil)
        }
        return Response(status: status, headers: headers, body: body)
    }

    /// Parses a single `bytes=` range: nil (ignore the header: malformed or several ranges),
    /// `.some(nil)` (unsatisfiable), or the inclusive range.
    static func byteRange(_ header: String, size: Int64) -> ClosedRange<Int64>?? {
        let h = header.trimmingCharacters(in: .whitespaces)
        guard h.lowercased().hasPrefix("bytes="), h.utf8.count < 100 else { return nil }
        let spec = h.dropFirst(6).trimmingCharacters(in: .whitespaces)
        guard !spec.contains(","), let dash = spec.firstIndex(of: "-") else { return nil }
        let first = spec[..<dash], last = spec[spec.index(after: dash)...]
        if first.isEmpty {
            guard let n = Int64(last), n >= 0 else { return nil }
            guard n > 0, size > 0 else { return .some(nil) }
            return .some(max(0, size - n)...(size - 1))
        }
        guard let start = Int64(first), start >= 0 else { return nil }
        let end: Int64
        if last.isEmpty {
            end = size - 1
        } else {
            guard let e = Int64(last), e >= start else { return nil }
            end = min(e, size - 1)
        }
        guard start < size else { return .some(nil) }
        return .some(start...end)
    }
}
