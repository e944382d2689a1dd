import Foundation
import HTTPTypes
import NIOCore

/// Writes an HTTP/1.1 response head as bytes, for `TileFastPath`, which sends responses without
/// NIO's encoder. Header values come from this server (tile ETags, fixed strings, `APIError`), and
/// `HTTPFields` has already refused values with CR or LF.
enum ResponseHead {
    /// The head of a tile answer: the same fields, in the same order, as `TileAnswer.headers`.
    static func writeTile(
        _ answer: TileResponder.TileAnswer, date: String, connection: String? = nil,
        into buffer: inout ByteBuffer
    ) {
        buffer.writeStaticString(answer.notModified ? "HTTP/1.1 304 Not Modified\r\nETag: " : "HTTP/1.1 200 OK\r\nETag: ")
        buffer.writeString(answer.etag)
        buffer.writeStaticString("\r\nCache-Control: ")
        buffer.writeString(answer.cacheControl)
        buffer.writeStaticString("\r\nAccess-Control-Allow-Origin: *\r\n")
        if !answer.notModified {
            buffer.writeStaticString("Content-Type: ")
            buffer.writeString(answer.contentType)
            buffer.writeStaticString("\r\nContent-Length: ")
            writeDecimal(answer.body.readableBytes, into: &buffer)
            buffer.writeStaticString("\r\n")
        }
        writeEnd(date: date, connection: connection, into: &buffer)
    }

    /// The head of any response.
    static func write(
        status: HTTPResponse.Status, headers: HTTPFields, date: String, connection: String? = nil,
        into buffer: inout ByteBuffer
    ) {
        buffer.writeStaticString("HTTP/1.1 ")
        writeDecimal(status.code, into: &buffer)
        buffer.writeStaticString(" ")
        buffer.writeString(status.reasonPhrase)
        buffer.writeStaticString("\r\n")
        for field in headers {
            buffer.writeString(field.name.rawName)
            buffer.writeStaticString(": ")
            buffer.writeString(field.value)
            buffer.writeStaticString("\r\n")
        }
        writeEnd(date: date, connection: connection, into: &buffer)
    }

    /// `Connection` (when given), `Date`, `Server` and the blank line.
    private static func writeEnd(date: String, connection: String?, into buffer: inout ByteBuffer) {
        if let connection {
            buffer.writeStaticString("Connection: ")
            buffer.writeString(connection)
            buffer.writeStaticString("\r\n")
        }
        buffer.writeStaticString("Date: ")
        buffer.writeString(date)
        buffer.writeStaticString("\r\nServer: trailmap\r\n\r\n")
    }

    private static func writeDecimal(_ value: Int, into buffer: inout ByteBuffer) {
        buffer.writeString(String(value)) // a small string: no allocation
    }
}

/// The `Date` header's value (RFC 9110 IMF-fixdate), formatted at most once a second.
struct HTTPDateCache {
    private var second = -1
    private var value = ""

    mutating func now() -> String {
        var t = time(nil)
        guard Int(t) != second else { return value }
        var tm = tm()
        gmtime_r(&t, &tm)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ v: Int32) -> String { v < 10 ? "0\(v)" : "\(v)" }
        value =
            "\(days[Int(tm.tm_wday)]), \(two(tm.tm_mday)) \(months[Int(tm.tm_mon)]) \(tm.tm_year + 1900) "
            + "\(two(tm.tm_hour)):\(two(tm.tm_min)):\(two(tm.tm_sec)) GMT"
        second = Int(t)
        return value
    }
}
