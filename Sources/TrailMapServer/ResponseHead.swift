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
        let variable = answer.etag.utf8.count + answer.cacheControl.utf8.count + answer.contentType.utf8.count
        write(into: &buffer, variableBytes: variable, date: date, connection: connection) { out in
            out.put(answer.notModified ? "HTTP/1.1 304 Not Modified\r\nETag: " : "HTTP/1.1 200 OK\r\nETag: ")
            out.put(answer.etag)
            out.put("\r\nCache-Control: ")
            out.put(answer.cacheControl)
            out.put("\r\nAccess-Control-Allow-Origin: *\r\n")
            if !answer.notModified {
                out.put("Content-Type: ")
                out.put(answer.contentType)
                out.put("\r\nContent-Length: ")
                out.putDecimal(answer.body.readableBytes)
                out.put("\r\n")
            }
        }
    }

    /// The head of any response.
    static func write(
        status: HTTPResponse.Status, headers: HTTPFields, date: String, connection: String? = nil,
        into buffer: inout ByteBuffer
    ) {
        var variable = status.reasonPhrase.utf8.count
        for field in headers { variable += field.name.rawName.utf8.count + field.value.utf8.count + 4 }
        write(into: &buffer, variableBytes: variable, date: date, connection: connection) { out in
            out.put("HTTP/1.1 ")
            out.putDecimal(status.code)
            out.put(" ")
            out.put(status.reasonPhrase)
            out.put("\r\n")
            for field in headers {
                out.put(field.name.rawName)
                out.put(": ")
                out.put(field.value)
                out.put("\r\n")
            }
        }
    }

    /// Reserves room for a head once, lets `fields` write its status line and fields, then writes
    /// `Connection` (when given), `Date`, `Server` and the blank line. `variableBytes`: the bytes
    /// of the strings `fields` writes besides its fixed text.
    @inline(__always)
    private static func write(
        into buffer: inout ByteBuffer, variableBytes: Int, date: String, connection: String?,
        _ fields: (inout HeadWriter) -> Void
    ) {
        // A head's fixed text is 200 bytes at most, with numbers of up to 20 digits: 256 covers it.
        let bound = 256 + variableBytes + date.utf8.count + (connection?.utf8.count ?? 0)
        buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: bound) { raw in
            var out = HeadWriter(raw)
            fields(&out)
            if let connection {
                out.put("Connection: ")
                out.put(connection)
                out.put("\r\n")
            }
            out.put("Date: ")
            out.put(date)
            out.put("\r\nServer: trailmap\r\n\r\n")
            return out.count
        }
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

/// Appends bytes to memory reserved for a whole head (`ResponseHead` reserves enough).
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

    /// A native string's bytes are copied in place; any other string's one by one.
    @inline(__always)
    mutating func put(_ s: String) {
        let n = s.utf8.count
        precondition(count + n <= base.count)
        let at = base.baseAddress! + count
        let copied: Bool? = s.utf8.withContiguousStorageIfAvailable { u in
            if let a = u.baseAddress { at.copyMemory(from: a, byteCount: n) }
            return true
        }
        if copied == nil {
            for (i, byte) in s.utf8.enumerated() { base[count + i] = byte }
        }
        count += n
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
