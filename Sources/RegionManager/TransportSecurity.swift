import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Which servers plain `http://` may reach: only this machine, unless the caller allows more.
public enum TransportSecurity {
    /// True for an `http://` URL whose host is not loopback: what is sent there can be read and
    /// changed on the way.
    public static func isPlainHTTPToAnotherMachine(_ url: URL) -> Bool {
        guard url.scheme?.lowercased() == "http" else { return false }
        return !isLoopback(host: url.host ?? "")
    }

    /// `localhost`, an IPv4 address in 127.0.0.0/8, or `::1` (bracketed or not; an IPv4-mapped
    /// 127.x address too).
    public static func isLoopback(host: String) -> Bool {
        var h = host.lowercased()
        if h.hasPrefix("["), h.hasSuffix("]") { h = String(h.dropFirst().dropLast()) }
        if h.hasSuffix(".") { h.removeLast() }
        if h == "localhost" { return true }
        var v4 = in_addr()
        if inet_pton(AF_INET, h, &v4) == 1 { return UInt32(bigEndian: v4.s_addr) >> 24 == 127 }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, h, &v6) == 1 else { return false }
        let bytes = withUnsafeBytes(of: v6) { Array($0) }
        if bytes == [UInt8](repeating: 0, count: 15) + [1] { return true }
        return Array(bytes.prefix(12)) == [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF] && bytes[12] == 127
    }

    /// `http://host:port`, for messages.
    static func origin(_ url: URL) -> String {
        "\(url.scheme ?? "http")://\(url.host ?? "?")\(url.port.map { ":\($0)" } ?? "")"
    }
}
