import TrailMapAPI

// The store API's bodies are TrailMapAPI's (Sources/TrailMapAPI), shared with the server; what
// the device side adds to them is here.

/// A catalog product as listed (`GET /catalog`).
public typealias Product = ProductSummary

extension ProductSummary {
    /// True when `bounds` holds the point (edges included).
    public func covers(latitude: Double, longitude: Double) -> Bool {
        guard bounds.count == 4 else { return false }
        let (west, south, east, north) = (bounds[0], bounds[1], bounds[2], bounds[3])
        guard latitude >= south, latitude <= north else { return false }
        // A box crossing the antimeridian has west > east.
        return west <= east ? (longitude >= west && longitude <= east) : (longitude >= west || longitude <= east)
    }

    /// File name of the installed bundle: the tileset name, else the product id.
    public var bundleFileName: String {
        let base = tileset.isEmpty ? productId : tileset
        let safe = base.map { $0.isLetter || $0.isNumber || "-_.".contains($0) ? $0 : "_" }
        return String(safe) + ".mbtiles"
    }
}

extension ProductDetail {
    /// True when the product's bounds hold the point (edges included).
    public func covers(latitude: Double, longitude: Double) -> Bool { summary.covers(latitude: latitude, longitude: longitude) }

    /// File name of the installed bundle: the tileset name, else the product id.
    public var bundleFileName: String { summary.bundleFileName }
}

extension Price {
    /// `4.99 USD`, or `free`.
    public var display: String { (Double(amount) ?? 0) == 0 ? "free" : "\(amount) \(currency)" }
}

extension ProductStatus {
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
