import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// An HTTP/1.1 server on a real socket whose every answer a test chooses (by method and path),
/// as a malicious or intercepted server would: for the CLI's side of the device hardening.
final class CraftedAnswerServer: Sendable {
    struct Answer: Sendable {
        var status: Int
        var body: String
    }

    /// "METHOD PATH" of every request, in order.
    final class Log: Sendable {
        private let list = Mutex<[String]>([])
        var all: [String] { list.withLock { $0 } }
        func append(_ line: String) { list.withLock { $0.append(line) } }
    }

    let port: Int
    private let listener: Int32
    let requests = Log()

    /// Listens on `address` (port chosen by the system) and answers with `answer`.
    init(address: String = "127.0.0.1", answer: @escaping @Sendable (_ method: String, _ path: String) -> Answer) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = 0
        addr.sin_addr.s_addr = inet_addr(address)
        let bound = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 16) == 0 else { close(fd); throw POSIXError(.EADDRINUSE) }
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) } }
        port = Int(UInt16(bigEndian: addr.sin_port))
        listener = fd
        let requests = self.requests
        Thread.detachNewThread {
            while true {
                let client = accept(fd, nil, nil)
                if client < 0 { if errno == EINTR { continue }; close(fd); return }
                Thread.detachNewThread { Self.serve(client, requests: requests, answer: answer) }
            }
        }
    }

    var url: String { "http://127.0.0.1:\(port)" }

    func stop() { shutdown(listener, Int32(SHUT_RDWR)) }

    deinit { stop() }

    private static func serve(_ fd: Int32, requests: Log, answer: (String, String) -> Answer) {
        defer { close(fd) }
        var buffer = Data()
        var chunk = [UInt8](repeating: 0, count: 16384)
        while buffer.range(of: Data("\r\n\r\n".utf8)) == nil {
            let n = recv(fd, &chunk, chunk.count, 0)
            if n <= 0 { return }
            buffer.append(contentsOf: chunk[0..<n])
        }
        let head = String(decoding: buffer, as: UTF8.self)
        let line = head.prefix(while: { $0 != "\r" }).split(separator: " ")
        guard line.count >= 2 else { return }
        let method = String(line[0]), path = String(line[1])
        requests.append("\(method) \(path)")
        // The body (if any) is read so that the client sees the answer, not a reset.
        if let length = head.split(separator: "\r\n").first(where: { $0.lowercased().hasPrefix("content-length:") })
            .flatMap({ Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) }),
            let end = buffer.range(of: Data("\r\n\r\n".utf8))
        {
            var have = buffer.count - end.upperBound
            while have < length {
                let n = recv(fd, &chunk, chunk.count, 0)
                if n <= 0 { break }
                have += n
            }
        }
        let a = answer(method, path)
        let body = Data(a.body.utf8)
        var out = Data(
            "HTTP/1.1 \(a.status) X\r\nContent-Type: application/json\r\nContent-Length: \(body.count)\r\nConnection: close\r\n\r\n".utf8)
        out.append(body)
        _ = out.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }
}
