import Essentials
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import TrailMapAPI

/// JSON responses: sorted keys, gzip when the client accepts it and the body is worth it.
enum JSONReply {
    /// The one encoder of the API's bodies: sorted keys, `/` unescaped, optionals left out when nil.
    static func bytes(_ value: some Encodable) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Array(try encoder.encode(value))
    }

    /// A response of an API body (a TrailMapAPI type), encoded by `bytes`. A value that cannot be
    /// encoded (a non-finite number) is a 500 with an error body.
    static func make(
        _ value: some Encodable, status: HTTPResponse.Status = .ok, request: Request,
        cacheControl: String = "no-cache"
    ) -> Response {
        guard let data = try? bytes(value) else {
            let body = (try? bytes(APIErrorBody(code: "internal_error", message: "the answer could not be written as JSON"))) ?? []
            return make(json: body, gzip: nil, status: .internalServerError, request: request, cacheControl: "no-store")
        }
        let gzip = data.count >= 64 && Gzip.accepted(request.headers[.acceptEncoding]) ? Gzip.compress(data) : nil
        return make(json: data, gzip: gzip, status: status, request: request, cacheControl: cacheControl)
    }

    /// A response of JSON already written (`gzip`: the same bytes compressed, sent when the client
    /// accepts gzip).
    static func make(
        json: [UInt8], gzip: [UInt8]?, status: HTTPResponse.Status = .ok, request: Request,
        cacheControl: String = "no-cache"
    ) -> Response {
        var headers: HTTPFields = [
            .contentType: "application/json; charset=utf-8",
            .accessControlAllowOrigin: "*",
            .cacheControl: cacheControl,
            .vary: "Accept-Encoding"
        ]
        if let gzip, Gzip.accepted(request.headers[.acceptEncoding]) {
            headers[.contentEncoding] = "gzip"
            return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: gzip)))
        }
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: json)))
    }

    /// ISO 8601 in UTC, whole seconds.
    static func time(_ date: Date) -> String {
        date.formatted(.iso8601.year().month().day().time(includingFractionalSeconds: false).timeZone(separator: .omitted))
    }
}
