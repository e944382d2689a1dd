// Areas on demand: `POST /areas/quotes` and `POST /areas`.

/// What a catalog product is.
public enum ProductKind: String, Codable, Sendable, CaseIterable {
    /// A region bundle, sold once (non-consumable).
    case region
    /// Sold per area (consumable): each purchase pays for one quoted area.
    case areaProduct = "area_product"
    /// An area an account bought: a region of its own, listed for its owner only.
    case area

    public static var schema: JSONValue { Schema.string(enum: allCases.map(\.rawValue)) }
}

/// An area product's terms: how large an area it sells and the tilesets areas are cut from.
public struct AreaTerms: Codable, Sendable, Equatable {
    /// The largest area bundle one purchase buys, in bytes.
    public var maxBytes: Int64
    /// The tilesets areas are cut from, first wins where they overlap.
    public var sources: [String]

    public init(maxBytes: Int64, sources: [String]) {
        self.maxBytes = maxBytes
        self.sources = sources
    }

    public static var schema: JSONValue {
        Schema.object(["maxBytes": Schema.integer(minimum: 1), "sources": Schema.array(Schema.string())])
    }
}

/// `POST /areas/quotes` body: a circle (`center` and `radiusKm`) or a box (`bbox`), optionally a
/// zoom range and the area product to quote.
public struct AreaQuoteRequest: Codable, Sendable, Equatable {
    /// `[longitude, latitude]` in degrees.
    public var center: [Double]?
    /// The circle's radius in kilometres, more than 0 and at most `maxRadiusKm`.
    public var radiusKm: Double?
    /// `[west, south, east, north]` in degrees.
    public var bbox: [Double]?
    /// The zoom range wanted; the sources' whole range when absent.
    public var minzoom: Int?
    public var maxzoom: Int?
    /// The area product to quote; the best one for the area when absent.
    public var productId: String?

    /// The largest radius (and half-side of a box) a quote takes, in kilometres.
    public static let maxRadiusKm = 200.0

    public init(
        center: [Double]? = nil, radiusKm: Double? = nil, bbox: [Double]? = nil, minzoom: Int? = nil, maxzoom: Int? = nil,
        productId: String? = nil
    ) {
        self.center = center
        self.radiusKm = radiusKm
        self.bbox = bbox
        self.minzoom = minzoom
        self.maxzoom = maxzoom
        self.productId = productId
    }

    /// `AreaQuoteRequest` in the OpenAPI document.
    public static var schema: JSONValue {
        // What JSON Schema can say is said here: a circle or a box (oneOf), latitudes within Web
        // Mercator's. Values that contradict each other (west >= east, minzoom > maxzoom) are 422.
        let lon: JSONValue = ["type": "number", "minimum": .integer(-180), "maximum": .integer(180)]
        let lat: JSONValue = ["type": "number", "minimum": .number(-85.0511), "maximum": .number(85.0511)]
        func pair(_ items: [JSONValue], _ description: String) -> JSONValue {
            [
                "type": "array", "prefixItems": .array(items), "items": false, "minItems": .integer(Int64(items.count)),
                "maxItems": .integer(Int64(items.count)), "description": .string(description)
            ]
        }
        guard
            case var .object(o) = Schema.object(
                [
                    "center": pair([lon, lat], "longitude, latitude in degrees"),
                    "radiusKm": ["type": "number", "exclusiveMinimum": .integer(0), "maximum": .number(maxRadiusKm)],
                    "bbox": pair([lon, lat, lon, lat], "west, south, east, north in degrees"),
                    "minzoom": Schema.integer(minimum: 0, maximum: 24), "maxzoom": Schema.integer(minimum: 0, maximum: 24),
                    "productId": Schema.string(pattern: APIPattern.productID)
                ], optional: ["center", "radiusKm", "bbox", "minzoom", "maxzoom", "productId"],
                description: "Either center and radiusKm (a circle), or bbox (a box)")
        else { return .null }
        o["oneOf"] = [
            ["required": ["center", "radiusKm"], "not": ["required": ["bbox"]]],
            ["required": ["bbox"], "not": ["anyOf": [["required": ["center"]], ["required": ["radiusKm"]]]]]
        ]
        return .object(o)
    }
}

/// `POST /areas/quotes` answer: what buying the quote gets, at its exact size, until `expiresAt`.
public struct AreaQuote: Codable, Sendable, Equatable {
    public var quoteId: String
    /// The area product to buy (a consumable store product).
    public var productId: String
    public var title: String
    public var price: Price
    /// The area's `[west, south, east, north]` in degrees.
    public var bounds: [Double]
    public var minzoom: Int
    public var maxzoom: Int
    /// The top zoom asked for (or the sources' top zoom): more than `maxzoom` when the cap lowered it.
    public var requestedMaxzoom: Int
    /// The area bundle's exact size in bytes (what the download is).
    public var size: Int64
    public var tiles: Int
    /// The area product's cap.
    public var maxBytes: Int64
    /// The tilesets the area is cut from.
    public var sources: [String]
    /// ISO 8601 in UTC: buy before then.
    public var expiresAt: String
    /// Present when the quote differs from the request (the top zoom lowered to fit the cap).
    public var message: String?

    public init(
        quoteId: String, productId: String, title: String, price: Price, bounds: [Double], minzoom: Int, maxzoom: Int,
        requestedMaxzoom: Int, size: Int64, tiles: Int, maxBytes: Int64, sources: [String], expiresAt: String,
        message: String? = nil
    ) {
        self.quoteId = quoteId
        self.productId = productId
        self.title = title
        self.price = price
        self.bounds = bounds
        self.minzoom = minzoom
        self.maxzoom = maxzoom
        self.requestedMaxzoom = requestedMaxzoom
        self.size = size
        self.tiles = tiles
        self.maxBytes = maxBytes
        self.sources = sources
        self.expiresAt = expiresAt
        self.message = message
    }

    public static var schema: JSONValue {
        Schema.object(
            [
                "quoteId": Schema.string(), "productId": Schema.string(), "title": Schema.string(), "price": Schema.ref("Price"),
                "bounds": Schema.array(Schema.number, minItems: 4, maxItems: 4, description: "west, south, east, north in degrees"),
                "minzoom": Schema.integer(), "maxzoom": Schema.integer(), "requestedMaxzoom": Schema.integer(),
                "size": Schema.integer(description: "The area bundle's exact size in bytes"), "tiles": Schema.integer(),
                "maxBytes": Schema.integer(), "sources": Schema.array(Schema.string()),
                "expiresAt": Schema.string(format: "date-time"), "message": Schema.string()
            ], optional: ["message"])
    }
}

/// `POST /areas` body: a quote and the signed store transaction (type Consumable) that pays for it.
public struct AreaPurchaseRequest: Codable, Sendable, Equatable {
    public var quoteId: String
    public var signedTransaction: String

    public init(quoteId: String, signedTransaction: String) {
        self.quoteId = quoteId
        self.signedTransaction = signedTransaction
    }

    public static var schema: JSONValue {
        Schema.object([
            "quoteId": Schema.string(minLength: 1, maxLength: 64),
            "signedTransaction": Schema.string(pattern: APIPattern.jws, maxLength: APIPattern.jwsMaxLength)
        ])
    }
}

/// `POST /areas` answer: 201 for a new area, 200 when the transaction had already bought it.
public struct AreaPurchaseResult: Codable, Sendable, Equatable {
    /// The area's id: a product id of the account's own (install, download, uninstall it by this id).
    public var areaId: String
    /// The area product it was bought as.
    public var productId: String
    public var transactionId: String
    /// The transaction had already bought this area: nothing new was recorded.
    public var alreadyRecorded: Bool
    public var title: String
    public var size: Int64
    public var sha256: String
    public var minzoom: Int
    public var maxzoom: Int
    public var bounds: [Double]
    /// `/api/v1/downloads/{areaId}`.
    public var downloadURL: String

    public init(
        areaId: String, productId: String, transactionId: String, alreadyRecorded: Bool, title: String, size: Int64,
        sha256: String, minzoom: Int, maxzoom: Int, bounds: [Double], downloadURL: String
    ) {
        self.areaId = areaId
        self.productId = productId
        self.transactionId = transactionId
        self.alreadyRecorded = alreadyRecorded
        self.title = title
        self.size = size
        self.sha256 = sha256
        self.minzoom = minzoom
        self.maxzoom = maxzoom
        self.bounds = bounds
        self.downloadURL = downloadURL
    }

    public static var schema: JSONValue {
        Schema.object([
            "areaId": Schema.string(), "productId": Schema.string(), "transactionId": Schema.string(), "alreadyRecorded": Schema.boolean,
            "title": Schema.string(), "size": Schema.integer(), "sha256": Schema.string(), "minzoom": Schema.integer(),
            "maxzoom": Schema.integer(),
            "bounds": Schema.array(Schema.number, minItems: 4, maxItems: 4, description: "west, south, east, north in degrees"),
            "downloadURL": Schema.string()
        ])
    }
}

/// A region near a point no area product covers (in a 404's `error.nearby`).
public struct NearbyRegion: Codable, Sendable, Equatable {
    public var productId: String
    public var title: String
    /// From the point to the region's coverage, in kilometres.
    public var distanceKm: Double

    public init(productId: String, title: String, distanceKm: Double) {
        self.productId = productId
        self.title = title
        self.distanceKm = distanceKm
    }

    public static var schema: JSONValue {
        Schema.object(["productId": Schema.string(), "title": Schema.string(), "distanceKm": Schema.number])
    }
}
