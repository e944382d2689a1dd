import Foundation
import HTTPTypes
import NIOCore

/// Writes an HTTP/1.1 response head as bytes, for `TileFastPath`, which sends responses without
/// NIO's encoder. Header values come from this server (tile ETags, fixed strings, `APIError`), and
/// `HTTPFields` has already refused values with CR or LF.
enum ResponseHead {
    /// The head of a tile answer: the same fields, in the same order, as `TileAnswer.headers`.
    /// Written with one copy per piece into storage reserved once (per-call `ByteBuffer` writes
    /// were most of its cost on a hot tile).
    static func writeTile(
        _ answer: TileResponder.TileAnswer, date: String, connection: String? = nil,
        into buffer: inout ByteBuffer
    ) {
        var etag = answer.etag, cacheControl = answer.cacheControl, contentType = answer.contentType
        var date = date
        var connection = connection
        let length = answer.body.readableBytes
        // The fixed text below is 160 bytes at most, and a length 20 digits: 256 covers both.
        let bound =
            256 + etag.utf8.count + cacheControl.utf8.count + contentType.utf8.count + date.utf8.count
            + (connection?.utf8.count ?? 0)
        buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: bound) { raw in
            var out = HeadWriter(raw)
            out.put(answer.notModified ? "HTTP/1.1 304 Not Modified\r\nETag: " : "HTTP/1.1 200 OK\r\nETag: ")
            out.put(&etag)
            out.put("\r\nCache-Control: ")
            out.put(&cacheControl)
            out.put("\r\nAccess-Control-Allow-Origin: *\r\n")
            if !answer.notModified {
                out.put("Content-Type: ")
                out.put(&contentType)
                out.put("\r\nContent-Length: ")
                out.putDecimal(length)
                out.put("\r\n")
            }
            if connection != nil {
                out.put("Connection: ")
                out.put(&connection!)
                out.put("\r\n")
            }
            out.put("Date: ")
            out.put(&date)
            out.put("\r\nServer: trailmap\r\n\r\n")
            return out.count
        }
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

/// Appends bytes to memory reserved for a whole head (`ResponseHead.writeTile` reserves enough).
private struct HeadWriter {
    let base: UnsafeMutableRawBufferPointer
    var count = 0

    init(_ base: UnsafeMutableRawBufferPointer) { self.base = base }

    mutating func put(_ s: StaticString) {
        let n = s.utf8CodeUnitCount
        precondition(count + n <= base.count)
        (base.baseAddress! + count).copyMemory(from: s.utf8Start, byteCount: n)
        count += n
    }

    /// `s` is inout so that a native string's storage is read in place (`withUTF8`).
    mutating func put(_ s: inout String) {
        s.withUTF8 { u in
            precondition(count + u.count <= base.count)
            if let a = u.baseAddress { (base.baseAddress! + count).copyMemory(from: a, byteCount: u.count) }
            count += u.count
        }
    }

    mutating func putDecimal(_ value: Int) {
        var digits = 1, v = max(0, value)
        while v >= 10 { v /= 10; digits += 1 }
        precondition(count + digits <= base.count)
        v = max(0, value)
        for i in stride(from: count + digits - 1, through: count, by: -1) {
            base[i] = UInt8(0x30 + v % 10)
            v /= 10
        }
        count += digits
    }
}
