/// A tile request read straight from a connection's bytes, for `TileWire`: the common shape only
/// (`GET` or `HEAD` of a `/tiles/` path over HTTP/1.0 or 1.1, no body, plain header lines). Anything
/// else, or anything unusual about its syntax, is `other`, and NIO's HTTP parser (with its limits
/// and its 400s) reads it instead; so this parser only has to be right about what it accepts.
/// Free of NIO, so that it can be fuzzed on its own.
struct RawTileRequest: Equatable {
    var head: Bool
    /// The request target as sent (path and query).
    var target: String
    var http10: Bool
    /// The client keeps the connection open after the answer (HTTP/1.1 unless `Connection: close`,
    /// HTTP/1.0 only with `Connection: keep-alive`).
    var keepAlive: Bool
    var ifNoneMatch: String?
    /// The value of the header named by the parser's `clientHeader`, if sent.
    var client: String?
    /// The `Authorization` header's value, if sent (a request that sends it twice is `other`: its
    /// credential is Hummingbird's path's to read).
    var authorization: String?

    /// What the start of a connection's unread bytes holds.
    enum Parse: Equatable {
        /// A whole request, `length` bytes long.
        case request(RawTileRequest, length: Int)
        /// The start of what could still be such a request: wait for more bytes.
        case incomplete
        /// Something for the full HTTP parser.
        case other
    }

    /// The longest head read here; longer ones go to the full parser.
    static let maxHeadBytes = 8192

    /// Parses the request at the start of `bytes`. `clientHeader`: a header name in lowercase ASCII, or nil.
    static func parse(_ bytes: UnsafeRawBufferPointer, clientHeader: [UInt8]? = nil) -> Parse {
        let n = bytes.count
        guard n > 0 else { return .incomplete }
        // Request line: GET|HEAD SP /tiles/... SP HTTP/1.x CRLF
        var i: Int
        var head = false
        if startsWith(bytes, 0, "GET ") {
            i = 4
        } else if startsWith(bytes, 0, "HEAD ") {
            i = 5
            head = true
        } else {
            return couldStart(bytes) ? .incomplete : .other
        }
        let targetStart = i
        while i < n, bytes[i] != 0x20 {
            let c = bytes[i]
            // Visible ASCII only (RFC 9112 request-target); anything else is for the full parser.
            guard c > 0x20, c < 0x7F else { return .other }
            i += 1
            if i - targetStart > 2048 { return .other }
        }
        guard i < n else { return n > maxHeadBytes ? .other : .incomplete }
        let targetEnd = i
        guard targetEnd - targetStart >= 7, startsWith(bytes, targetStart, "/tiles/") else { return .other }
        i += 1
        guard i + 10 <= n else {
            return n > maxHeadBytes || !prefixMatches(bytes, i, "HTTP/1.1\r\n") && !prefixMatches(bytes, i, "HTTP/1.0\r\n")
                ? .other : .incomplete
        }
        let http10: Bool
        if startsWith(bytes, i, "HTTP/1.1\r\n") {
            http10 = false
        } else if startsWith(bytes, i, "HTTP/1.0\r\n") {
            http10 = true
        } else {
            return .other
        }
        i += 10
        var request = RawTileRequest(
            head: head, target: String(decoding: UnsafeRawBufferPointer(rebasing: bytes[targetStart..<targetEnd]), as: UTF8.self),
            http10: http10, keepAlive: !http10, ifNoneMatch: nil, client: nil, authorization: nil)
        var closeToken = false, keepAliveToken = false
        // Header lines until an empty one.
        while true {
            guard i + 2 <= n else { return n > maxHeadBytes ? .other : .incomplete }
            if bytes[i] == 0x0D {
                guard bytes[i + 1] == 0x0A else { return .other }
                i += 2
                break
            }
            let nameStart = i
            while i < n, bytes[i] != 0x3A {
                guard isToken(bytes[i]) else { return .other }
                i += 1
            }
            guard i < n else { return n > maxHeadBytes ? .other : .incomplete }
            let nameEnd = i
            guard nameEnd > nameStart else { return .other }
            i += 1
            while i < n, bytes[i] == 0x20 || bytes[i] == 0x09 { i += 1 }
            let valueStart = i
            while i < n, bytes[i] != 0x0D {
                let c = bytes[i]
                // Field values: visible ASCII, space, tab, and bytes >= 0x80 (obs-text).
                guard c >= 0x20 || c == 0x09, c != 0x7F else { return .other }
                i += 1
            }
            guard i + 1 < n else { return n > maxHeadBytes ? .other : .incomplete }
            guard bytes[i + 1] == 0x0A else { return .other }
            var valueEnd = i
            while valueEnd > valueStart, bytes[valueEnd - 1] == 0x20 || bytes[valueEnd - 1] == 0x09 { valueEnd -= 1 }
            i += 2
            if i > maxHeadBytes { return .other }
            let name = UnsafeRawBufferPointer(rebasing: bytes[nameStart..<nameEnd])
            let value = UnsafeRawBufferPointer(rebasing: bytes[valueStart..<valueEnd])
            switch name.count {
            case 10 where equalsLower(name, "connection"):
                for token in value.split(separator: 0x2C) {
                    let t = trimmed(token)
                    if equalsLower(t, "close") {
                        closeToken = true
                    } else if equalsLower(t, "keep-alive") {
                        keepAliveToken = true
                    } else if equalsLower(t, "upgrade") {
                        return .other
                    }
                }
            case 13 where equalsLower(name, "if-none-match"):
                if request.ifNoneMatch == nil { request.ifNoneMatch = String(decoding: value, as: UTF8.self) }
            case 13 where equalsLower(name, "authorization"):
                // Twice: Hummingbird's path reads the values joined, and decides.
                guard request.authorization == nil else { return .other }
                request.authorization = String(decoding: value, as: UTF8.self)
            case 14 where equalsLower(name, "content-length"):
                guard value.count == 1, value[0] == 0x30 else { return .other }
            case 17 where equalsLower(name, "transfer-encoding"):
                return .other
            case 6 where equalsLower(name, "expect"), 7 where equalsLower(name, "upgrade"):
                return .other
            default:
                break
            }
            if let clientHeader, request.client == nil, name.count == clientHeader.count,
                zip(name, clientHeader).allSatisfy({ lower($0) == $1 })
            {
                request.client = String(decoding: value, as: UTF8.self)
            }
        }
        request.keepAlive = http10 ? keepAliveToken && !closeToken : !closeToken
        return .request(request, length: i)
    }

    // MARK: - Bytes

    private static func startsWith(_ b: UnsafeRawBufferPointer, _ at: Int, _ s: StaticString) -> Bool {
        let len = s.utf8CodeUnitCount
        guard at + len <= b.count else { return false }
        let p = s.utf8Start
        for k in 0..<len where b[at + k] != p[k] { return false }
        return true
    }

    /// Whether the bytes from `at` to the end are a prefix of `s` (more may still match).
    private static func prefixMatches(_ b: UnsafeRawBufferPointer, _ at: Int, _ s: StaticString) -> Bool {
        let len = min(s.utf8CodeUnitCount, b.count - at)
        let p = s.utf8Start
        for k in 0..<max(0, len) where b[at + k] != p[k] { return false }
        return true
    }

    /// Whether the few bytes so far could still become `GET ` or `HEAD `.
    private static func couldStart(_ b: UnsafeRawBufferPointer) -> Bool {
        b.count < 5 && (prefixMatches(b, 0, "GET ") || prefixMatches(b, 0, "HEAD "))
    }

    @inline(__always) private static func lower(_ c: UInt8) -> UInt8 { c >= 0x41 && c <= 0x5A ? c | 0x20 : c }

    private static func equalsLower(_ b: UnsafeRawBufferPointer, _ s: StaticString) -> Bool {
        guard b.count == s.utf8CodeUnitCount else { return false }
        let p = s.utf8Start
        for k in 0..<b.count where lower(b[k]) != p[k] { return false }
        return true
    }

    private static func trimmed(_ s: Slice<UnsafeRawBufferPointer>) -> UnsafeRawBufferPointer {
        var t = s
        while let f = t.first, f == 0x20 || f == 0x09 { t = t.dropFirst() }
        while let l = t.last, l == 0x20 || l == 0x09 { t = t.dropLast() }
        return UnsafeRawBufferPointer(rebasing: t)
    }

    /// RFC 9110 tchar.
    private static func isToken(_ c: UInt8) -> Bool {
        switch c {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: return true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"), UInt8(ascii: "'"),
            UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "^"), UInt8(ascii: "_"),
            UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            return true
        default: return false
        }
    }
}
