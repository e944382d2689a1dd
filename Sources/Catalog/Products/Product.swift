import Foundation
import TileGeometry
import TileStore
import TrailMapAPI

/// A price as the store shows it.
public struct Price: Sendable, Equatable, Codable {
    /// A decimal string, e.g. `"4.99"`; `"0"` when free.
    public var amount: String
    /// ISO 4217, e.g. `USD`.
    public var currency: String

    /// Memberwise, for the catalog backends in other modules of the package.
    package init(amount: String, currency: String) {
        self.amount = amount
        self.currency = currency
    }
}

/// A published product: a region bundle for sale (or free), at its current version.
public struct Product: Sendable, Equatable {
    /// The store's product identifier, e.g. `com.trailmap.region.colorado`.
    public var id: String
    public var title: String
    /// Category path, e.g. `States/Colorado`.
    public var category: String
    public var description: String
    public var price: Price
    public var free: Bool
    /// The tileset id (the bundle's file name without `.mbtiles`).
    public var tileset: String
    public var bundlePath: String
    /// Increases each time a different bundle is published for this product.
    public var version: Int
    public var size: Int64
    public var sha256: String
    public var minZoom: Int
    public var maxZoom: Int
    public var bounds: GeoBounds
    public var publishedAt: Date
    /// The bundle's levels of detail (its `trailmap:layers`), lower first; empty for bundles
    /// built before levels of detail were recorded.
    public var layers: [BundleLayer]
    /// A region, an area product (sold per area) or an area an account bought.
    public var kind: ProductKind = .region
    /// The account a bought area belongs to (nil for everything the store lists to all).
    public var owner: String?
    /// An area product's cap and sources.
    public var areaOffer: AreaOffer?
    /// A bought area's product and quote.
    public var areaOrigin: AreaOrigin?

    public init(
        id: String, title: String, category: String, description: String, price: Price, tileset: String,
        bundlePath: String, version: Int, size: Int64, sha256: String, minZoom: Int, maxZoom: Int,
        bounds: GeoBounds, publishedAt: Date = Date(), layers: [BundleLayer] = []
    ) {
        self.id = id
        self.title = title
        self.category = category
        self.description = description
        self.price = price
        free = Decimal(string: price.amount) == 0
        self.tileset = tileset
        self.bundlePath = bundlePath
        self.version = version
        self.size = size
        self.sha256 = sha256
        self.minZoom = minZoom
        self.maxZoom = maxZoom
        self.bounds = bounds
        self.publishedAt = publishedAt
        self.layers = layers
    }

    /// The coverage as a GeoJSON Feature (a bounds polygon).
    public var coverageGeoJSON: Coverage {
        Coverage(productId: id, title: title, west: bounds.west, south: bounds.south, east: bounds.east, north: bounds.north)
    }
}

/// A node of the category tree.
public struct CategoryNode: Sendable, Equatable {
    public var name: String
    public var path: String
    public var children: [CategoryNode]
}
