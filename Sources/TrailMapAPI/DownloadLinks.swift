// Signed bundle links for CDNs: `POST /download-links`.

/// `POST /download-links` body.
public struct DownloadLinkRequest: Codable, Sendable, Equatable {
    public var productId: String

    public init(productId: String) { self.productId = productId }

    /// `DownloadLinkRequest` in the OpenAPI document.
    public static var schema: JSONValue { Schema.object(["productId": Schema.string(pattern: APIPattern.productID)]) }
}

/// `POST /download-links` answer (201): a URL of the bundle that needs no credentials until it
/// expires, immutable (versioned by the bundle's SHA-256) and cacheable by a CDN; every server
/// on the same catalog accepts it.
public struct DownloadLink: Codable, Sendable, Equatable {
    /// `/bundles/{productId}/{version}/{sha256}.mbtiles?exp=...&key=...&sig=...` (relative to the server).
    public var url: String
    /// ISO 8601 in UTC, whole seconds: the link is refused after it (at least an hour from now).
    public var expiresAt: String
    public var version: Int
    public var size: Int64
    public var sha256: String

    public init(url: String, expiresAt: String, version: Int, size: Int64, sha256: String) {
        self.url = url
        self.expiresAt = expiresAt
        self.version = version
        self.size = size
        self.sha256 = sha256
    }

    public static var schema: JSONValue {
        Schema.object([
            "url": Schema.string(), "expiresAt": Schema.string(format: "date-time"), "version": Schema.integer(),
            "size": Schema.integer(), "sha256": Schema.string()
        ])
    }
}
