// The catalog: `GET /catalog` and `GET /catalog/{productId}`.

/// A price as the catalog states it: a decimal string and an ISO currency code.
public struct Price: Codable, Sendable, Equatable {
    /// Decimal amount, e.g. `"4.99"`; `"0"` for free products.
    public var amount: String
    /// ISO 4217 code, e.g. `USD`.
    public var currency: String

    public init(amount: String, currency: String) {
        self.amount = amount
        self.currency = currency
    }

    public static var schema: JSONValue { Schema.object(["amount": Schema.string(), "currency": Schema.string()]) }
}

/// Where a product stands for the caller (account and device).
public enum ProductStatus: String, Codable, Sendable, CaseIterable {
    case forSale = "for_sale"
    case free
    case purchased
    case installed
    case updateAvailable = "update_available"
    case revoked
    /// Published, but the store does not offer it right now.
    case unavailable

    public static var schema: JSONValue { Schema.string(enum: allCases.map(\.rawValue)) }
}

/// One level of detail of a product's bundle (`levels`): a map series or an overlay and the zooms
/// it serves. Its source files stay private to the bundle.
public struct ProductLevel: Codable, Sendable, Equatable {
    /// The kinds the server sends today; `kind` stays text so that a client reads a newer server's.
    public static let knownKinds = ["series", "overlay"]

    /// Short identifier, e.g. `quads-7.5`.
    public var name: String
    /// What a buyer reads, e.g. `7.5-minute maps`.
    public var title: String
    /// `series` or `overlay`.
    public var kind: String
    public var minzoom: Int
    public var maxzoom: Int
    /// The level in a buyer's words, e.g. `30-minute maps, zooms 8–11`.
    public var summary: String

    public init(name: String, title: String, kind: String, minzoom: Int, maxzoom: Int, summary: String) {
        self.name = name
        self.title = title
        self.kind = kind
        self.minzoom = minzoom
        self.maxzoom = maxzoom
        self.summary = summary
    }

    /// `Level` in the OpenAPI document.
    public static var schema: JSONValue {
        Schema.object([
            "name": Schema.string(), "title": Schema.string(), "kind": Schema.string(enum: knownKinds),
            "minzoom": Schema.integer(), "maxzoom": Schema.integer(),
            "summary": Schema.string(description: "The level in a buyer's words, e.g. \"30-minute maps, zooms 8–11\"")
        ])
    }
}

/// A product with the caller's status, as listed by `GET /catalog` (`ProductSummary`).
public struct ProductSummary: Codable, Sendable, Equatable {
    /// The store's product identifier, e.g. `com.trailmap.region.colorado`.
    public var productId: String
    public var title: String
    /// Category path, e.g. `States/Colorado`.
    public var category: String
    /// Empty when the product has none.
    public var description: String
    public var price: Price
    public var free: Bool
    /// Increases each time a different bundle is published for the product.
    public var version: Int
    /// Bundle size in bytes.
    public var size: Int64
    /// The bundle's SHA-256, lowercase hex (also the download's ETag).
    public var sha256: String
    public var minzoom: Int
    public var maxzoom: Int
    /// `[west, south, east, north]` in degrees.
    public var bounds: [Double]
    /// The tileset id: tiles are at `/tiles/{tileset}/{z}/{x}/{y}`.
    public var tileset: String
    public var status: ProductStatus
    /// Present only when the caller's device has it installed.
    public var installedVersion: Int?
    /// The bundle's levels of detail, lower first; empty for bundles that record none.
    public var levels: [ProductLevel]
    /// The levels in a buyer's words, `; `-separated; empty when there are none.
    public var levelsSummary: String
    /// A region bundle, an area product (bought per area, through a quote) or an area an account bought.
    public var kind: ProductKind
    /// For an area product: the largest area it sells and the tilesets areas are cut from.
    public var area: AreaTerms?
    /// For a bought area: the area product it was bought as.
    public var areaOf: String?

    public init(
        productId: String, title: String, category: String, description: String = "", price: Price,
        free: Bool = false, version: Int, size: Int64, sha256: String, minzoom: Int, maxzoom: Int,
        bounds: [Double], tileset: String, status: ProductStatus, installedVersion: Int? = nil,
        levels: [ProductLevel] = [], levelsSummary: String = "", kind: ProductKind = .region,
        area: AreaTerms? = nil, areaOf: String? = nil
    ) {
        self.kind = kind
        self.area = area
        self.areaOf = areaOf
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
        self.levels = levels
        self.levelsSummary = levelsSummary
    }

    private enum CodingKeys: String, CodingKey {
        case productId, title, category, description, price, free, version, size, sha256, minzoom, maxzoom, bounds, tileset,
            status, installedVersion, levels, levelsSummary, kind, area, areaOf
    }

    /// Decodes the contract; `levels` and `levelsSummary`, which servers before levels of detail
    /// left out, read as empty.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        productId = try c.decode(String.self, forKey: .productId)
        title = try c.decode(String.self, forKey: .title)
        category = try c.decode(String.self, forKey: .category)
        description = try c.decode(String.self, forKey: .description)
        price = try c.decode(Price.self, forKey: .price)
        free = try c.decode(Bool.self, forKey: .free)
        version = try c.decode(Int.self, forKey: .version)
        size = try c.decode(Int64.self, forKey: .size)
        sha256 = try c.decode(String.self, forKey: .sha256)
        minzoom = try c.decode(Int.self, forKey: .minzoom)
        maxzoom = try c.decode(Int.self, forKey: .maxzoom)
        bounds = try c.decode([Double].self, forKey: .bounds)
        tileset = try c.decode(String.self, forKey: .tileset)
        status = try c.decode(ProductStatus.self, forKey: .status)
        installedVersion = try c.decodeIfPresent(Int.self, forKey: .installedVersion)
        levels = try c.decodeIfPresent([ProductLevel].self, forKey: .levels) ?? []
        levelsSummary = try c.decodeIfPresent(String.self, forKey: .levelsSummary) ?? ""
        kind = try c.decodeIfPresent(ProductKind.self, forKey: .kind) ?? .region
        area = try c.decodeIfPresent(AreaTerms.self, forKey: .area)
        areaOf = try c.decodeIfPresent(String.self, forKey: .areaOf)
    }

    /// The properties of `ProductSummary` (shared with `ProductDetail`).
    static var properties: [String: JSONValue] {
        [
            "productId": Schema.string(), "title": Schema.string(), "category": Schema.string(), "description": Schema.string(),
            "price": Schema.ref("Price"), "free": Schema.boolean, "version": Schema.integer(), "size": Schema.integer(),
            "sha256": Schema.string(), "minzoom": Schema.integer(), "maxzoom": Schema.integer(), "tileset": Schema.string(),
            "bounds": Schema.array(Schema.number, minItems: 4, maxItems: 4, description: "west, south, east, north in degrees"),
            "status": Schema.ref("ProductStatus"),
            "installedVersion": Schema.integer(),
            "levels": Schema.array(
                Schema.ref("Level"), description: "The bundle's levels of detail, lower first; empty for bundles that record none"),
            "levelsSummary": Schema.string(description: "The levels in a buyer's words, `; `-separated; empty when there are none"),
            "kind": Schema.ref("ProductKind"),
            "area": Schema.ref("AreaTerms"),
            "areaOf": Schema.string(description: "For a bought area: the area product it was bought as")
        ]
    }
    static let optional: Set<String> = ["installedVersion", "area", "areaOf"]

    public static var schema: JSONValue { Schema.object(properties, optional: optional) }
}

/// A product's coverage as a GeoJSON `Feature`: the polygon of its bounds.
public struct Coverage: Codable, Sendable, Equatable {
    /// The feature's `properties`.
    public struct Properties: Codable, Sendable, Equatable {
        public var productId: String
        public var title: String

        public init(productId: String, title: String) {
            self.productId = productId
            self.title = title
        }
    }

    /// A GeoJSON `Polygon`.
    public struct Polygon: Codable, Sendable, Equatable {
        /// Always `Polygon`.
        public var type: String
        /// Rings of `[longitude, latitude]` positions, each closed (first position repeated last).
        public var coordinates: [[[Double]]]

        public init(coordinates: [[[Double]]]) {
            type = "Polygon"
            self.coordinates = coordinates
        }
    }

    /// Always `Feature`.
    public var type: String
    public var properties: Properties
    public var geometry: Polygon

    public init(properties: Properties, geometry: Polygon) {
        type = "Feature"
        self.properties = properties
        self.geometry = geometry
    }

    /// The feature of a bounding box, `[west, south, east, north]`, as one closed ring.
    public init(productId: String, title: String, west: Double, south: Double, east: Double, north: Double) {
        self.init(
            properties: Properties(productId: productId, title: title),
            geometry: Polygon(coordinates: [
                [
                    [west, south], [east, south], [east, north], [west, north], [west, south]
                ]
            ]))
    }

    public static var schema: JSONValue {
        Schema.object(
            [
                "type": Schema.string(enum: ["Feature"]),
                "properties": Schema.object(["productId": Schema.string(), "title": Schema.string()]),
                "geometry": Schema.object([
                    "type": Schema.string(enum: ["Polygon"]),
                    "coordinates": Schema.array(Schema.array(Schema.array(Schema.number, minItems: 2, maxItems: 2)))
                ])
            ], description: "GeoJSON Feature: the polygon of the product's bounds")
    }
}

/// `GET /catalog/{productId}`: the summary plus coverage, links and publication time
/// (`ProductDetail`). Its summary's properties read and write through it (`detail.title`).
@dynamicMemberLookup
public struct ProductDetail: Codable, Sendable, Equatable {
    public var summary: ProductSummary
    public var coverage: Coverage
    /// A tile near the middle of the bounds at `minzoom`, on the server the request named.
    public var previewTileURL: String
    /// `/api/v1/downloads/{productId}`, relative: resolved against the server the client was configured with.
    public var downloadURL: String
    /// The tileset's TileJSON on the server the request named.
    public var tileJSONURL: String
    /// ISO 8601 in UTC, whole seconds.
    public var publishedAt: String
    /// The published version's content hash (metadata and tiles, whatever the file's layout; see
    /// docs/api.md): a bundle patched on a device must have it. Absent when the server has not
    /// indexed the version.
    public var contentHash: String?
    /// The region's trails: how many, by difficulty, the longest (absent when it holds none).
    public var trails: TrailsSummary?

    public init(
        summary: ProductSummary, coverage: Coverage, previewTileURL: String, downloadURL: String, tileJSONURL: String,
        publishedAt: String, contentHash: String? = nil, trails: TrailsSummary? = nil
    ) {
        self.trails = trails
        self.summary = summary
        self.coverage = coverage
        self.previewTileURL = previewTileURL
        self.downloadURL = downloadURL
        self.tileJSONURL = tileJSONURL
        self.publishedAt = publishedAt
        self.contentHash = contentHash
    }

    public subscript<T>(dynamicMember path: WritableKeyPath<ProductSummary, T>) -> T {
        get { summary[keyPath: path] }
        set { summary[keyPath: path] = newValue }
    }

    private enum CodingKeys: String, CodingKey { case coverage, previewTileURL, downloadURL, tileJSONURL, publishedAt, contentHash, trails }

    /// One flat object: the summary's members and the detail's.
    public init(from decoder: any Decoder) throws {
        summary = try ProductSummary(from: decoder)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        coverage = try c.decode(Coverage.self, forKey: .coverage)
        previewTileURL = try c.decode(String.self, forKey: .previewTileURL)
        downloadURL = try c.decode(String.self, forKey: .downloadURL)
        tileJSONURL = try c.decode(String.self, forKey: .tileJSONURL)
        publishedAt = try c.decode(String.self, forKey: .publishedAt)
        contentHash = try c.decodeIfPresent(String.self, forKey: .contentHash)
        trails = try c.decodeIfPresent(TrailsSummary.self, forKey: .trails)
    }

    public func encode(to encoder: any Encoder) throws {
        try summary.encode(to: encoder)
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(coverage, forKey: .coverage)
        try c.encode(previewTileURL, forKey: .previewTileURL)
        try c.encode(downloadURL, forKey: .downloadURL)
        try c.encode(tileJSONURL, forKey: .tileJSONURL)
        try c.encode(publishedAt, forKey: .publishedAt)
        try c.encodeIfPresent(contentHash, forKey: .contentHash)
        try c.encodeIfPresent(trails, forKey: .trails)
    }

    public static var schema: JSONValue {
        Schema.object(
            ProductSummary.properties.merging([
                "coverage": Schema.ref("Coverage"), "previewTileURL": Schema.string(), "downloadURL": Schema.string(),
                "tileJSONURL": Schema.string(), "publishedAt": Schema.string(format: "date-time"), "contentHash": Schema.string(),
                "trails": Schema.ref("TrailsSummary")
            ]) { a, _ in a }, optional: ProductSummary.optional.union(["contentHash", "trails"]))
    }
}

/// A node of the category tree.
public struct Category: Codable, Sendable, Equatable {
    /// The last part of the path, e.g. `Colorado`.
    public var name: String
    /// `/`-separated, e.g. `States/Colorado`.
    public var path: String
    public var children: [Category]

    public init(name: String, path: String, children: [Category] = []) {
        self.name = name
        self.path = path
        self.children = children
    }

    public static var schema: JSONValue {
        Schema.object(["name": Schema.string(), "path": Schema.string(), "children": Schema.array(Schema.ref("Category"))])
    }
}

/// `GET /catalog`: the category tree and the products with the caller's status (`Catalog`).
public struct CatalogListing: Codable, Sendable, Equatable {
    public var categories: [Category]
    public var products: [ProductSummary]

    public init(categories: [Category], products: [ProductSummary]) {
        self.categories = categories
        self.products = products
    }

    public static var schema: JSONValue {
        Schema.object(["categories": Schema.array(Schema.ref("Category")), "products": Schema.array(Schema.ref("ProductSummary"))])
    }
}
