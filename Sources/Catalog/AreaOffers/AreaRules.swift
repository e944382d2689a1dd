import Foundation
import TrailMapAPI

/// How a quote is bought, apart from the database: both catalogs read the rows and call these.
package enum AreaRules {
    /// Checks that the account's quote (as read, nil when missing or another account's) may be
    /// bought by `p` at `now`.
    package static func check(
        _ quote: AreaQuoteRecord?, id: String, purchase p: StorePurchase, now: Date
    ) throws(CatalogError) -> AreaQuoteRecord {
        guard let q = quote else { throw .unknownQuote(id) }
        if q.areaId != nil { throw .quoteUsed(id) }
        guard q.expiresAt > now else { throw .quoteExpired(id) }
        guard p.productId == q.productId else { throw .wrongAreaProduct(expected: q.productId, got: p.productId) }
        return q
    }

    /// The bought area: a product of the account's own, of the area product's category and price.
    package static func area(from q: AreaQuoteRecord, offer: Product, account: Account) -> Product {
        let sources = offer.areaOffer?.tilesets.joined(separator: ", ") ?? offer.title
        var p = Product(
            id: q.areaIDIfBought, title: q.title, category: offer.category,
            description: "Zooms \(q.minZoom) to \(q.maxZoom), cut from \(sources); bought as \(offer.title).",
            price: offer.price, tileset: q.areaIDIfBought, bundlePath: q.bundlePath, version: 1, size: q.size,
            sha256: q.sha256, minZoom: q.minZoom, maxZoom: q.maxZoom, bounds: q.bounds)
        p.kind = .area
        p.owner = account.id
        p.areaOrigin = AreaOrigin(of: offer.id, quote: q.id)
        return p
    }

    /// The quotes an account may hold at once (older unbought ones are dropped).
    package static let quotesPerAccount = 8
}
