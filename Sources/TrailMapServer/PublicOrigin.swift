import Foundation

/// The origin the server is reached at, as an operator configures it (`serve --public-url`).
public enum PublicOrigin {
    /// `s` as a URL prefix (`https://maps.example.com` or `https://example.com/maps`, no trailing
    /// slash), or nil when it is not an http(s) URL with a host and without query, fragment,
    /// credentials or characters that would need escaping in JSON, XML or a header.
    public static func normalized(_ s: String) -> String? {
        guard s.utf8.count <= 512,
            s.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && !"\"'<>\\`{}|^".utf8.contains($0) }),
            let c = URLComponents(string: s),
            let scheme = c.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = c.host, !host.isEmpty,
            c.query == nil, c.fragment == nil, c.user == nil, c.password == nil
        else { return nil }
        var out = s
        while out.hasSuffix("/") { out.removeLast() }
        return out
    }
}
