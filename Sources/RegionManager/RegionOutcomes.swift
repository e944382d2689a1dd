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
    /// An update by patches: the versions it went through and the bytes downloaded, against the
    /// whole bundle's size.
    public var patch: PatchUpdate? = nil
    /// Why an update downloaded the whole bundle although patches were offered (a patch failed).
    public var patchFallback: String? = nil
}

/// What an update by patches did.
public struct PatchUpdate: Codable, Sendable, Equatable {
    public var fromVersion: Int
    public var toVersion: Int
    public var patches: Int
    public var downloadedBytes: Int64
    public var fullSize: Int64
    public var savedBytes: Int64 { fullSize - downloadedBytes }
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
    /// With an update available: the bytes it would download (the patches' when the server
    /// offers a smaller chain, else the whole bundle) and whether that is by patch.
    public var updateBytes: Int64? = nil
    public var updateByPatch: Bool = false
    /// `region`, or `area` for an area the account bought.
    public var kind: ProductKind = .region
}

/// `status`: installed regions, storage, and whether the server was reachable.
public struct StatusReport: Codable, Sendable {
    public var regions: [StatusEntry]
    public var usedBytes: Int64
    public var storageBudget: Int64?
    /// Why statuses are local only (server unreachable, not logged in), or nil.
    public var offlineReason: String?
}
