import Foundation
import TrailMapAPI

// Results of the RegionManager facade's operations, kept together (each is a few lines).

/// What `buy` did.
public enum BuyOutcome: Sendable {
    /// Free product: nothing to buy.
    case free(ProductDetail)
    /// Already owned: nothing bought; downloading again is free.
    case alreadyOwned(ProductDetail, message: String)
    /// A new purchase.
    case purchased(ProductDetail, PurchaseResult)
}

/// What `install` did.
public struct InstallOutcome: Codable, Sendable {
    public var region: InstalledRegion
    /// The same version was installed already; nothing was downloaded.
    public var alreadyInstalled: Bool
    /// Bytes reused from an interrupted download.
    public var resumedFrom: Int64
    /// Version replaced by this install, if any.
    public var previousVersion: Int?
    /// Set when the server could not be told about the install.
    public var warning: String?
}

/// What `uninstall` did.
public struct UninstallOutcome: Codable, Sendable {
    public var productId: String
    public var freedBytes: Int64
    public var warning: String?
}

/// One line of `restore`.
public struct RestoreItem: Codable, Sendable {
    public var productId: String
    /// `installed`, `already_installed`, `revoked` or `failed`.
    public var result: String
    public var message: String?
}

/// One installed region in `status`.
public struct StatusEntry: Codable, Sendable {
    public var region: InstalledRegion
    /// From the server when it answered; `installed` otherwise.
    public var status: ProductStatus
    public var latestVersion: Int?
    /// False when the bundle file is gone from disk.
    public var filePresent: Bool
}

/// `status`: installed regions, storage, and whether the server was reachable.
public struct StatusReport: Codable, Sendable {
    public var regions: [StatusEntry]
    public var usedBytes: Int64
    public var storageBudget: Int64?
    /// Why statuses are local only (server unreachable, not logged in), or nil.
    public var offlineReason: String?
}
