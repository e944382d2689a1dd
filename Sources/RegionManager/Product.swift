import Foundation

/// A catalog product (`ProductSummary` in docs/api.md), with the detail fields when fetched alone.
public struct Product: Codable, Sendable, Equatable {
    public var productId: String
    public var title: String
    public var category: String
    public var description: String?
    public var price: Price
    public var free: Bool
    public var version: Int
    public var size: Int64
    public var sha256: String
    public var minzoom: Int?
    public var maxzoom: Int?
    /// `[west, south, east, north]` in degrees.
    public var bounds: [Double]
    public var tileset: String?
    public var status: ProductStatus
    public var installedVersion: Int?
    public var downloadURL: String?
    public var previewTileURL: String?
    public var tileJSONURL: String?
    /// The bundle's levels of detail, lower first; nil from servers older than levels of detail.
    public var levels: [ProductLevel]?
    /// The levels in a buyer's words, `; `-separated (empty when the bundle records none).
    public var levelsSummary: String?

    public init(productId: String, title: String, category: String, description: String? = nil, price: Price,
                free: Bool = false, version: Int, size: Int64, sha256: String, minzoom: Int? = nil, maxzoom: Int? = nil,
                bounds: [Double], tileset: String? = nil, status: ProductStatus, installedVersion: Int? = nil,
                downloadURL: String? = nil, levels: [ProductLevel]? = nil, levelsSummary: String? = nil) {
        self.productId = productId
        self.title = title
        self.category = category
        self.description = description
        self.price = price
        self.free = free
        self.version = version
        self.size = size
        self.sha256 = sha256
        self.minzoom = minzoom
        self.maxzoom = maxzoom
        self.bounds = bounds
        self.tileset = tileset
        self.status = status
        self.installedVersion = installedVersion
        self.downloadURL = downloadURL
        self.levels = levels
        self.levelsSummary = levelsSummary
    }

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
        let base = (tileset?.isEmpty == false ? tileset : nil) ?? productId
        let safe = base.map { $0.isLetter || $0.isNumber || "-_.".contains($0) ? $0 : "_" }
        return String(safe) + ".mbtiles"
    }
}
