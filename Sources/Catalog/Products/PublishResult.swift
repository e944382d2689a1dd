import Foundation

/// What one publish did to one product.
public struct PublishResult: Sendable, Equatable {
    public enum Change: String, Sendable { case added, updated, newVersion = "new version", unchanged }
    public var productId: String
    public var version: Int
    public var change: Change
    public var size: Int64
    public var sha256: String

    /// Memberwise, for the catalog backends in other modules of the package.
    package init(productId: String, version: Int, change: Change, size: Int64, sha256: String) {
        self.productId = productId
        self.version = version
        self.change = change
        self.size = size
        self.sha256 = sha256
    }
}
