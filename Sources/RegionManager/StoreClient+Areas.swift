import Foundation
import TrailMapAPI

// Areas on demand (docs/api.md, "Areas"): quote an area around a point, buy the quote with a
// Consumable store transaction; the bought area is then a product of the account's own.

extension StoreClient {
    /// What a request was about, for the messages of the errors it may get.
    struct ErrorContext: Sendable {
        var productId: String?
        var quoteId: String?
        /// `[longitude, latitude]` of an area asked for.
        var center: [Double]?
        var radiusKm: Double?
        /// The zoom range asked for, when one was.
        var minzoom: Int?
        var maxzoom: Int?
        /// The request asked for an area quote (its `bad_request` is about the area asked for).
        var quoting = false
    }

    /// `POST /areas/quotes`: what an area around a point (or a box) would be, at its exact size, and its price.
    public func quoteArea(_ request: AreaQuoteRequest) async throws -> AreaQuote {
        // Not idempotent: every call makes a quote (a retried one is just another quote).
        let quote: AreaQuote = try await call(
            "POST", "areas/quotes", body: request, auth: true, idempotent: false,
            context: ErrorContext(
                productId: request.productId, center: request.center,
                radiusKm: request.radiusKm, minzoom: request.minzoom,
                maxzoom: request.maxzoom, quoting: true))
        try Self.check(quote)
        return quote
    }

    /// `GET /areas/quotes/{quoteId}`: one of the account's quotes.
    public func areaQuote(id quoteId: String) async throws -> AreaQuote {
        let quote: AreaQuote = try await call(
            "GET", "areas/quotes/\(Self.segment(quoteId))", body: nil as Data?, auth: true,
            idempotent: true, context: ErrorContext(quoteId: quoteId))
        try Self.check(quote)
        return quote
    }

    /// `POST /areas`: pays for a quote with a signed Consumable transaction of its area product.
    /// Idempotent by transaction: the same transaction again answers the same area (`alreadyRecorded`).
    public func buyArea(quoteId: String, signedTransaction: String) async throws -> AreaPurchaseResult {
        let result: AreaPurchaseResult = try await call(
            "POST", "areas", body: AreaPurchaseRequest(quoteId: quoteId, signedTransaction: signedTransaction),
            auth: true, idempotent: true, context: ErrorContext(quoteId: quoteId))
        try ServerInput.name(result.areaId, "area id")
        try ServerInput.name(result.productId, "product id")
        try ServerInput.nonNegative(result.size, "area size")
        return result
    }

    /// A quote's ids (it names the product bought next) and sizes.
    static func check(_ quote: AreaQuote) throws(RegionManagerError) {
        try ServerInput.name(quote.quoteId, "quote id")
        try ServerInput.name(quote.productId, "product id")
        try ServerInput.nonNegative(quote.size, "area size")
        try ServerInput.nonNegative(quote.maxBytes, "area size cap")
    }

    /// `zooms 15 and up`, `zooms up to 9`, `zooms 3 to 9`, or nil when no zoom was asked for.
    static func zooms(_ min: Int?, _ max: Int?) -> String? {
        switch (min, max) {
        case let (lo?, hi?): "zooms \(lo) to \(hi)"
        case let (lo?, nil): "zooms \(lo) and up"
        case let (nil, hi?): "zooms up to \(hi)"
        case (nil, nil): nil
        }
    }

    /// The typed error of an error body whose code is about areas (or a region path that met an
    /// area product), or nil.
    static func areaError(_ e: APIErrorBody.Detail, context: ErrorContext) -> RegionManagerError? {
        let quote = context.quoteId ?? "this quote"
        switch e.code {
        case "area_not_covered":
            return .areaNotCovered(center: context.center, zooms: Self.zooms(context.minzoom, context.maxzoom), nearby: e.nearby ?? [])
        case "area_too_large":
            // A radius beyond what a quote may ask for, or not a number at all, is no advice.
            let largest = ServerInput.kilometres(e.largestRadiusKm, limit: AreaQuoteRequest.maxRadiusKm)
            return .areaTooLarge(radiusKm: context.radiusKm, largestRadiusKm: largest, message: e.message)
        case "area_product":
            return .areaProduct(context.productId ?? "this product")
        case "not_an_area_product":
            return .notAnAreaProduct(context.productId ?? "this product")
        case "unknown_quote":
            return .unknownQuote(quote)
        case "quote_expired":
            return .quoteExpired(quote)
        case "quote_used":
            return .quoteUsed(quote)
        case "transaction_used":
            return .transactionUsed(message: e.message)
        case "wrong_product":
            return .wrongAreaProduct(message: e.message)
        case "bad_request" where context.quoting, "invalid_area":
            return .invalidArea(e.message)
        default:
            return nil
        }
    }
}
