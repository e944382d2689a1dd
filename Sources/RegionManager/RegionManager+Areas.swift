import Foundation
import TrailMapAPI

// Areas on demand: quote the area around a point, buy the quote through the sandbox store. The
// bought area is a product of the account's own (`area-...`): `install`, `uninstall`, `restore`,
// `status` and `sandboxNotify` take its id like a region's.

extension RegionManager {
    /// Asks the server what the area of `radiusKm` around the point would be (bounds, zooms, exact
    /// size, price, expiry); `productId` picks the area product (the best one for the point when nil).
    public func quoteArea(
        latitude: Double, longitude: Double, radiusKm: Double, minzoom: Int? = nil, maxzoom: Int? = nil,
        productId: String? = nil
    ) async throws -> AreaQuote {
        try await client.quoteArea(
            AreaQuoteRequest(
                center: [longitude, latitude], radiusKm: radiusKm, minzoom: minzoom,
                maxzoom: maxzoom, productId: productId))
    }

    /// Buys a quote as the app does: reads the quote (to know its area product, and that it is
    /// still valid), has the sandbox store sign a Consumable transaction for that product, and
    /// hands it to `POST /areas`. The result names the area's id, which `install` takes.
    public func buyArea(quoteId: String) async throws -> AreaPurchaseOutcome {
        let quote = try await client.areaQuote(id: quoteId)
        let signed = try await client.sandboxTransaction(productId: quote.productId)
        let result = try await client.buyArea(quoteId: quoteId, signedTransaction: signed)
        return AreaPurchaseOutcome(quote: quote, result: result)
    }

    /// Refuses what `buy` and `install` cannot do with a product sold per area.
    func refuseAreaProduct(_ product: ProductDetail) throws {
        if product.kind == .areaProduct { throw RegionManagerError.areaProduct(product.productId) }
    }

    /// Refuses to buy an area again: a bought area is never for sale; once refunded, a new area is a new quote.
    func refuseAreaPurchase(_ product: ProductDetail) throws {
        try refuseAreaProduct(product)
        if product.kind == .area, !product.status.isOwned { throw RegionManagerError.revoked(product.productId) }
    }
}

/// What `buyArea` did: the quote it paid for and the server's answer.
public struct AreaPurchaseOutcome: Codable, Sendable, Equatable {
    public var quote: AreaQuote
    public var result: AreaPurchaseResult

    /// The bought area's id (a product id of the account's own).
    public var areaId: String { result.areaId }
}
