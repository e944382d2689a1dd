// Region updates by patch: `GET /updates/{productId}/{fromVersion}`.

/// One patch of an update: from a version to a later one, downloaded like a bundle.
public struct PatchLink: Codable, Sendable, Equatable {
    public var fromVersion: Int
    public var toVersion: Int
    public var size: Int64
    /// The patch file's SHA-256: its ETag, checked after the download.
    public var sha256: String
    /// `/api/v1/downloads/{productId}/patches/{from}-{to}` (Range, If-Range, ETag).
    public var url: String

    public init(fromVersion: Int, toVersion: Int, size: Int64, sha256: String, url: String) {
        self.fromVersion = fromVersion
        self.toVersion = toVersion
        self.size = size
        self.sha256 = sha256
        self.url = url
    }

    public static var schema: JSONValue {
        Schema.object([
            "fromVersion": Schema.integer(), "toVersion": Schema.integer(), "size": Schema.integer(),
            "sha256": Schema.string(), "url": Schema.string()
        ])
    }
}

/// `GET /updates/{productId}/{fromVersion}` answer: how a device with `fromVersion` installed gets
/// the published version: the chain of patches (empty when there is none or it would not be
/// smaller than the bundle) beside the full download.
public struct ProductUpdate: Codable, Sendable, Equatable {
    public var productId: String
    public var fromVersion: Int
    public var toVersion: Int
    /// The whole bundle: bytes and SHA-256.
    public var fullSize: Int64
    public var sha256: String
    /// The published version's content hash (metadata and tiles, whatever the file's layout), or
    /// nil when the server has not indexed it: a patched bundle must have it.
    public var contentHash: String?
    /// Patches to apply in order; empty: download the whole bundle.
    public var patches: [PatchLink]
    /// Bytes of all the patches (0 when there are none).
    public var patchSize: Int64

    public init(
        productId: String, fromVersion: Int, toVersion: Int, fullSize: Int64, sha256: String, contentHash: String?,
        patches: [PatchLink]
    ) {
        self.productId = productId
        self.fromVersion = fromVersion
        self.toVersion = toVersion
        self.fullSize = fullSize
        self.sha256 = sha256
        self.contentHash = contentHash
        self.patches = patches
        patchSize = patches.reduce(0) { $0 + $1.size }
    }

    public static var schema: JSONValue {
        Schema.object(
            [
                "productId": Schema.string(pattern: APIPattern.productID), "fromVersion": Schema.integer(),
                "toVersion": Schema.integer(), "fullSize": Schema.integer(), "sha256": Schema.string(),
                "contentHash": Schema.string(), "patches": Schema.array(Schema.ref("PatchLink")),
                "patchSize": Schema.integer()
            ], optional: ["contentHash"])
    }
}
