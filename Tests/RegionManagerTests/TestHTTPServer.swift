import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A minimal HTTP/1.1 server on a real loopback socket (one thread per connection, `Connection: close`),
/// for tests of the HTTP client side. The handler decides every answer.
final class TestHTTPServer: Sendable {
    struct Request: Sendable {
        var method: String
        var path: String
        var headers: [String: String]
        var body: Data
        func header(_ name: String) -> String? { headers[name.lowercased()] }
    }

    struct Response: Sendable {
        var status: Int
        var headers: [(String, String)] = []
        var body = Data()
        /// Send only this many body bytes (after a full Content-Length), then drop the connection.
        var cutAfter: Int?
        /// Instead of `body`: a long body sent 64 KiB at a time until the client stops reading.
        var flood: Flood?

        static func json(_ status: Int, _ text: String) -> Response {
            Response(status: status, headers: [("Content-Type", "application/json")], body: Data(text.utf8))
        }
    }

    /// A body of `count` bytes, close-delimited unless `declaredLength` gives a Content-Length;
    /// `sent` counts what the client's socket accepted.
    struct Flood: Sendable {
        var count: Int
        var declaredLength: Int?
        var sent: ByteCounter
    }

    let port: Int
    private let listener: Int32
    private let stopped = StopFlag()

    /// Listens on `address` (loopback unless a test needs the server reached from another address).
    init(address: String = "127.0.0.1", handler: @escaping @Sendable (Request) -> Response) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = 0
        addr.sin_addr.s_addr = inet_addr(address)
        let bound = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 64) == 0 else { close(fd); throw POSIXError(.EADDRINUSE) }
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) }
        }
        port = Int(UInt16(bigEndian: addr.sin_port))
        listener = fd
        let stopped = self.stopped
        Thread.detachNewThread {
            while true {
                let client = accept(fd, nil, nil)
                if client < 0 {
                    if errno == EINTR, !stopped.isSet { continue }
                    // The accepting thread closes the listener, so its descriptor number cannot be
                    // reused by another server while this thread still accepts on it.
                    close(fd)
                    return
                }
                if stopped.isSet {
                    close(client)
                    close(fd)
                    return
                }
                Thread.detachNewThread { TestHTTPServer.serve(client, handler: handler) }
            }
        }
    }

    var url: URL { URL(string: "http://127.0.0.1:\(port)") ?? URL(fileURLWithPath: "/") }

    func stop() {
        guard !stopped.isSet else { return }
        stopped.set()
        shutdown(listener, Int32(SHUT_RDWR))
    }

    deinit { stop() }

    private static func serve(_ fd: Int32, handler: (Request) -> Response) {
        defer { close(fd) }
        var buffer = Data()
        var chunk = [UInt8](repeating: 0, count: 65536)
        let separator = Data("\r\n\r\n".utf8)
        var headerEnd: Range<Data.Index>?
        while headerEnd == nil {
            let n = recv(fd, &chunk, chunk.count, 0)
            if n <= 0 { return }
            buffer.append(contentsOf: chunk[0..<n])
            headerEnd = buffer.range(of: separator)
        }
        guard let headerEnd else { return }
        let head = String(decoding: buffer[buffer.startIndex..<headerEnd.lowerBound], as: UTF8.self)
        var lines = head.components(separatedBy: "\r\n")
        let requestLine = lines.removeFirst().split(separator: " ")
        guard requestLine.count >= 2 else { return }
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        var body = Data(buffer[headerEnd.upperBound...])
        let expected = Int(headers["content-length"] ?? "0") ?? 0
        while body.count < expected {
            let n = recv(fd, &chunk, chunk.count, 0)
            if n <= 0 { return }
            body.append(contentsOf: chunk[0..<n])
        }
        let request = Request(method: String(requestLine[0]), path: String(requestLine[1]), headers: headers, body: body)
        let response = handler(request)
        var text = "HTTP/1.1 \(response.status) \(reason(response.status))\r\n"
        for (k, v) in response.headers { text += "\(k): \(v)\r\n" }
        if let flood = response.flood {
            text += (flood.declaredLength.map { "Content-Length: \($0)\r\n" } ?? "") + "Connection: close\r\n\r\n"
            guard sendAll(fd, Data(text.utf8)) else { return }
            let piece = Data(repeating: 0x78, count: 65536)
            var left = flood.count
            while left > 0, sendAll(fd, piece.prefix(left)) {
                flood.sent.add(min(left, piece.count))
                left -= piece.count
            }
            return
        }
        text += "Content-Length: \(response.body.count)\r\nConnection: close\r\n\r\n"
        var out = Data(text.utf8)
        if request.method != "HEAD" { out.append(response.body.prefix(response.cutAfter ?? response.body.count)) }
        out.withUnsafeBytes { buf in
            guard let base = buf.baseAddress else { return }
            var sent = 0
            while sent < buf.count {
                let n = send(fd, base + sent, buf.count - sent, Int32(MSG_NOSIGNAL))
                if n <= 0 { return }
                sent += n
            }
        }
        if response.cutAfter != nil {
            // An abrupt end: reset rather than a clean close.
            var lingerOption = linger(l_onoff: 1, l_linger: 0)
            setsockopt(fd, SOL_SOCKET, SO_LINGER, &lingerOption, socklen_t(MemoryLayout<linger>.size))
        }
    }

    /// Sends all of `data`; false when the peer is gone.
    private static func sendAll(_ fd: Int32, _ data: Data) -> Bool {
        data.withUnsafeBytes { buf in
            guard let base = buf.baseAddress else { return true }
            var sent = 0
            while sent < buf.count {
                let n = send(fd, base + sent, buf.count - sent, Int32(MSG_NOSIGNAL))
                if n <= 0 { return false }
                sent += n
            }
            return true
        }
    }

    private static func reason(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 201: "Created"
        case 204: "No Content"
        case 206: "Partial Content"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 416: "Range Not Satisfiable"
        case 503: "Service Unavailable"
        default: "Status"
        }
    }
}

/// Bytes a test server sent.
final class ByteCounter: Sendable {
    private let value = Mutex(0)
    var count: Int { value.withLock { $0 } }
    func add(_ n: Int) { value.withLock { $0 += n } }
}

/// Set once when the server stops.
final class StopFlag: Sendable {
    private let value = Mutex(false)
    var isSet: Bool { value.withLock { $0 } }
    func set() { value.withLock { $0 = true } }
}
