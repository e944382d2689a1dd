import Crypto
import Foundation

/// The Content-Security-Policy of the HTML pages: scripts only from this server, and the page's
/// own inline scripts by their SHA-256 (so markup slipped into the page through bundle metadata or
/// catalog text cannot run); no plugins, no framing, no foreign connections.
enum PageSecurity {
    static let viewer = policy(for: ViewerPage.html)
    static let store = policy(for: StorePage.html)

    /// The policy for `html`, whose inline `<script>` blocks are allowed by hash.
    static func policy(for html: String) -> String {
        var hashes = [String]()
        var rest = html[...]
        while let open = rest.range(of: "<script>"), let close = rest.range(of: "</script>", range: open.upperBound..<rest.endIndex) {
            let body = rest[open.upperBound..<close.lowerBound]
            hashes.append("'sha256-\(Data(SHA256.hash(data: Data(body.utf8))).base64EncodedString())'")
            rest = rest[close.upperBound...]
        }
        return "default-src 'self'; script-src \((["'self'"] + hashes).joined(separator: " ")); style-src 'self' 'unsafe-inline'; "
            + """
            img-src 'self' data: blob:; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action \
            'self'
            """
    }
}
