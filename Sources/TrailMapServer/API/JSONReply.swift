import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// JSON responses: sorted keys, gzip when the client accepts it and the body is worth it.
enum JSONReply {
    static func make(_ object: Any, status: HTTPResponse.Status = .ok, request: Request,
                     cacheControl: String = "no-cache") -> Response {
        let data = JSONWriter.bytes(object)
        var headers: HTTPFields = [
            .contentType: "application/json; charset=utf-8",
            .accessControlAllowOrigin: "*",
            .cacheControl: cacheControl,
            .vary: "Accept-Encoding",
        ]
        if data.count >= 64, Gzip.accepted(request.headers[.acceptEncoding]), let gz = Gzip.compress(data) {
            headers[.contentEncoding] = "gzip"
            return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: gz)))
        }
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// ISO 8601 in UTC, whole seconds.
    static func time(_ date: Date) -> String {
        date.formatted(.iso8601.year().month().day().time(includingFractionalSeconds: false).timeZone(separator: .omitted))
    }
}
