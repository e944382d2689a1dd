/// Where a product stands for this account and device.
public enum ProductStatus: String, Codable, Sendable, CaseIterable {
    case forSale = "for_sale"
    case free
    case purchased
    case installed
    case updateAvailable = "update_available"
    case revoked
    case unavailable

    /// Words for a table.
    public var display: String {
        switch self {
        case .forSale: "for sale"
        case .free: "free"
        case .purchased: "purchased"
        case .installed: "installed"
        case .updateAvailable: "update available"
        case .revoked: "revoked"
        case .unavailable: "unavailable"
        }
    }

    /// The account may download it.
    public var isOwned: Bool { [.free, .purchased, .installed, .updateAvailable].contains(self) }
}
