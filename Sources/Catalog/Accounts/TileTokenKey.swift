import Foundation

/// A key that signs tile tokens (`TileTokens`), kept in the catalog so that every server
/// reading the same catalog signs and checks with the same keys.
public struct TileTokenKey: Sendable, Equatable {
    public var id: Int64
    public var secret: Data
    public var createdAt: Date

    /// Memberwise, for the catalog backends in other modules of the package.
    package init(id: Int64, secret: Data, createdAt: Date) {
        self.id = id
        self.secret = secret
        self.createdAt = createdAt
    }
}
