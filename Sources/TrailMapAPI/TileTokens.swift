// Tile tokens for paid regions: `POST /tile-tokens`.

/// `POST /tile-tokens` body.
public struct TileTokenRequest: Codable, Sendable, Equatable {
    public var productId: String

    public init(productId: String) { self.productId = productId }

    /// `TileToken` in the OpenAPI document.
    public static var schema: JSONValue { Schema.object(["productId": Schema.string(pattern: APIPattern.productID)]) }
}

/// `POST /tile-tokens` answer (201): a short-lived token for a paid region's tile URLs.
public struct TileTokenGrant: Codable, Sendable, Equatable {
    /// Sent as `?token=`.
    public var token: String
    /// ISO 8601 in UTC, whole seconds.
    public var expiresAt: String
    /// `{base}/tiles/{tileset}/{z}/{x}/{y}.{ext}?token=...`.
    public var tilesURL: String

    public init(token: String, expiresAt: String, tilesURL: String) {
        self.token = token
        self.expiresAt = expiresAt
        self.tilesURL = tilesURL
    }

    public static var schema: JSONValue {
        Schema.object(["token": Schema.string(), "expiresAt": Schema.string(format: "date-time"), "tilesURL": Schema.string()])
    }
}
