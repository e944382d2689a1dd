import Foundation
import TileGeometry

/// A quote as the catalog keeps it: an area cut and waiting to be bought by its account until
/// it expires. Its bundle is already written (`bundlePath`), so its size is exact.
public struct AreaQuoteRecord: Sendable, Equatable {
    /// `q` and 24 hex digits.
    public var id: String
    public var accountId: String
    /// The area product to buy.
    public var productId: String
    public var title: String
    public var bundlePath: String
    public var size: Int64
    public var sha256: String
    public var tiles: Int
    public var minZoom: Int
    public var maxZoom: Int
    /// The top zoom asked for (more than `maxZoom` when the cap lowered it).
    public var requestedMaxZoom: Int
    public var bounds: GeoBounds
    public var createdAt: Date
    public var expiresAt: Date
    /// Set once bought: the area's id and the transaction that paid.
    public var areaId: String?
    public var transactionId: String?

    public init(
        id: String, accountId: String, productId: String, title: String, bundlePath: String, size: Int64, sha256: String,
        tiles: Int, minZoom: Int, maxZoom: Int, requestedMaxZoom: Int, bounds: GeoBounds, createdAt: Date, expiresAt: Date,
        areaId: String? = nil, transactionId: String? = nil
    ) {
        self.id = id
        self.accountId = accountId
        self.productId = productId
        self.title = title
        self.bundlePath = bundlePath
        self.size = size
        self.sha256 = sha256
        self.tiles = tiles
        self.minZoom = minZoom
        self.maxZoom = maxZoom
        self.requestedMaxZoom = requestedMaxZoom
        self.bounds = bounds
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.areaId = areaId
        self.transactionId = transactionId
    }

    /// A fresh quote id: `q` and 24 random hex digits.
    public static func newID() -> String {
        var g = SystemRandomNumberGenerator()
        return "q" + (0..<12).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &g)) }.joined()
    }

    /// The id the area bought with this quote gets: `area-` and the quote's hex digits.
    public var areaIDIfBought: String { "area-" + id.dropFirst() }

    /// Whether `id` has the shape of a quote id.
    public static func isValidID<S: StringProtocol>(_ id: S) -> Bool {
        id.utf8.count == 25 && id.hasPrefix("q")
            && id.utf8.dropFirst().allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }
    }
}

/// What buying a quote did.
public struct AreaOutcome: Sendable, Equatable {
    /// The bought area, a product of the account's own.
    public var area: Product
    public var transactionId: String
    /// The transaction had already bought this quote: nothing new was recorded.
    public var alreadyRecorded: Bool

    /// Memberwise, for the catalog backends in other modules of the package.
    package init(area: Product, transactionId: String, alreadyRecorded: Bool) {
        self.area = area
        self.transactionId = transactionId
        self.alreadyRecorded = alreadyRecorded
    }
}

/// The `area_quotes` table, one definition for both catalogs.
package enum AreaSchema {
    package static func quotesTable(real: String, integer: String) -> String {
        """
        CREATE TABLE area_quotes(
            id TEXT PRIMARY KEY, account_id TEXT NOT NULL REFERENCES accounts(id),
            product_id TEXT NOT NULL REFERENCES products(id), title TEXT NOT NULL, bundle_path TEXT NOT NULL,
            size \(integer) NOT NULL, sha256 TEXT NOT NULL, tiles \(integer) NOT NULL, min_zoom \(integer) NOT NULL,
            max_zoom \(integer) NOT NULL, requested_max_zoom \(integer) NOT NULL, west \(real) NOT NULL, south \(real) NOT NULL,
            east \(real) NOT NULL, north \(real) NOT NULL, created_at \(real) NOT NULL, expires_at \(real) NOT NULL,
            area_id TEXT, transaction_id TEXT UNIQUE)
        """
    }
}
