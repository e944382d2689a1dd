import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// This machine's addresses, for tests that must reach a server other than through loopback.
public enum NetworkAddresses {
    /// An IPv4 address of this machine that is not loopback (127.0.0.0/8), or nil when it has none.
    public static func nonLoopbackIPv4() -> String? {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return nil }
        defer { freeifaddrs(list) }
        for entry in sequence(first: first, next: { $0.pointee.ifa_next }) {
            guard let sa = entry.pointee.ifa_addr, sa.pointee.sa_family == sa_family_t(AF_INET) else { continue }
            var address = sa.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
            var text = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
            guard inet_ntop(AF_INET, &address, &text, socklen_t(text.count)) != nil else { continue }
            let s = String(cString: text)
            if !s.hasPrefix("127.") { return s }
        }
        return nil
    }
}
