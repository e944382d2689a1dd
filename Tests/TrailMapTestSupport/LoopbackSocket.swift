import Foundation

/// A blocking TCP client socket to 127.0.0.1, for tests that speak raw HTTP to a server.
public enum LoopbackSocket {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// A connected socket to 127.0.0.1:`port` whose reads time out after `readTimeout` seconds;
    /// the caller closes it. `receiveBuffer`: the socket's receive buffer in bytes (`SO_RCVBUF`,
    /// set before connecting, so that the window offered to the server stays that small), or nil
    /// for the system's.
    public static func connect(port: Int, readTimeout: Int, receiveBuffer: Int? = nil) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: errno \(errno)") }
        if var size = receiveBuffer.map(Int32.init(clamping:)) {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var timeout = timeval(tv_sec: readTimeout, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Foundation.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            let e = errno
            close(fd)
            throw Failure(description: "connect to 127.0.0.1:\(port): errno \(e)")
        }
        return fd
    }

    /// A TCP port on 127.0.0.1 that nothing listens on now (the system's pick for port 0; another
    /// process could take it before the caller binds it, which the system makes unlikely).
    public static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: errno \(errno)") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else { throw Failure(description: "bind to 127.0.0.1:0: errno \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
