import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import TrailMapAPI

/// An error answered as `{"error": {"code": ..., "message": ...}}` with its HTTP status.
public struct APIError: HTTPResponseError, CustomStringConvertible {
    public let status: HTTPResponse.Status
    public let code: String
    public let message: String
    public var headers: HTTPFields = [:]
    /// Extra fields of some errors (`area_not_covered`, `area_too_large`).
    var nearby: [NearbyRegion]?
    var largestRadiusKm: Double?

    public init(_ status: HTTPResponse.Status, code: String, message: String) {
        self.status = status
        self.code = code
        self.message = message
    }

    public var description: String { "\(status.code) \(code): \(message)" }

    /// The JSON body.
    var body: ByteBuffer {
        ByteBuffer(
            bytes: (try? JSONReply.bytes(APIErrorBody(code: code, message: message, nearby: nearby, largestRadiusKm: largestRadiusKm)))
                ?? [])
    }

    /// `headers` plus the JSON body's type, CORS and no caching; a 401 names its scheme
    /// (`WWW-Authenticate`, which RFC 9110 asks of every 401) unless it names its own.
    var responseHeaders: HTTPFields {
        var h = headers
        if status == .unauthorized, h[.wwwAuthenticate] == nil { h[.wwwAuthenticate] = "Bearer realm=\"trailmap\"" }
        h[.contentType] = "application/json; charset=utf-8"
        h[.accessControlAllowOrigin] = "*"
        h[.cacheControl] = "no-store"
        return h
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        Response(status: status, headers: responseHeaders, body: ResponseBody(byteBuffer: body))
    }

    static func badRequest(_ message: String) -> APIError { APIError(.badRequest, code: "bad_request", message: message) }
    static func notFound(_ code: String, _ message: String) -> APIError { APIError(.notFound, code: code, message: message) }
    static func unavailable(_ message: String) -> APIError {
        APIError(.serviceUnavailable, code: "tileset_unavailable", message: message)
    }
}
