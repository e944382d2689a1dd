import Foundation
import TrailMapAPI

/// One entry of `registry.json`: a region installed on this device.
public struct InstalledRegion: Codable, Sendable, Equatable {
    public var productId: String
    public var title: String?
    public var version: Int
    public var sha256: String
    public var size: Int64
    /// Absolute path of the installed bundle.
    public var file: String
    public var installedAt: Date
    /// Set when the file was made by patching: the published version's content hash, which the
    /// file's metadata and tiles were checked against (its bytes differ from the published
    /// bundle's, whose SHA-256 `sha256` still names the version).
    public var contentHash: String? = nil
    /// `area` for an area the account bought; nil (a region) in registries written before areas.
    public var kind: ProductKind? = nil

    public init(productId: String, title: String?, version: Int, sha256: String, size: Int64, file: String, installedAt: Date) {
        self.productId = productId
        self.title = title
        self.version = version
        self.sha256 = sha256
        self.size = size
        self.file = file
        self.installedAt = installedAt
    }
}
