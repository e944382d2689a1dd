import Areas
import Catalog
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import TileGeometry
import TrailMapAPI

/// `/areas/quotes` and `/areas`: quote an area around a place, buy a quote.
extension StoreAPI {
    func areaQuote(_ request: Request, context: TrailMapRequestContext) async throws -> Response {
        let a = try await account(request)
        let b = try await body(AreaQuoteRequest.self, request)
        if let id = b.productId, !ProductFile.isValidProductID(id) {
            throw APIError.badRequest("invalid product id: use letters, digits, '.', '_' and '-'")
        }
        let made: (quote: AreaQuoteRecord, product: Product, message: String?)
        do { made = try await areas.quote(b, account: a, address: context.clientAddress, available: settings.availableProducts) } catch {
            throw APIError(error)
        }
        return JSONReply.make(
            Self.quoteBody(made.quote, made.product, message: made.message), status: .created, request: request,
            cacheControl: "no-store")
    }

    func areaQuoteDetail(_ request: Request, quote: Substring) async throws -> Response {
        let a = try await account(request)
        let id = String(quote)
        guard AreaQuoteRecord.isValidID(id), let q = try await catalog.areaQuote(id: id, account: a) else {
            throw APIError(CatalogError.unknownQuote(String(id.prefix(64))))
        }
        if q.areaId == nil, q.expiresAt <= Date() { throw APIError(CatalogError.quoteExpired(id)) }
        guard let offer = try await catalog.product(id: q.productId) else { throw APIError(CatalogError.unknownProduct(q.productId)) }
        return JSONReply.make(Self.quoteBody(q, offer, message: AreaQuoting.message(q, offer)), request: request, cacheControl: "no-store")
    }

    func buyArea(_ request: Request) async throws -> Response {
        let a = try await account(request)
        let b = try await body(AreaPurchaseRequest.self, request)
        guard Self.isCompactJWS(b.signedTransaction) else {
            throw APIError(.badRequest, code: "invalid_transaction", message: Self.notJWS("signedTransaction"))
        }
        guard AreaQuoteRecord.isValidID(b.quoteId) else { throw APIError(CatalogError.unknownQuote(String(b.quoteId.prefix(64)))) }
        let verified: StorePurchase
        do { verified = try await settings.verifier.verifyConsumable(b.signedTransaction) } catch let e as CatalogError {
            throw APIError(e)
        } catch {
            throw APIError(.forbidden, code: "invalid_transaction", message: "the signed transaction was refused: \(error)")
        }
        let outcome = try await catalog.buyArea(quoteID: b.quoteId, purchase: verified, account: a, now: Date())
        areas.bought(quoteID: b.quoteId)
        let p = outcome.area
        logger.info("area \(p.id) bought by \(a.id) with \(outcome.transactionId)\(outcome.alreadyRecorded ? " (again)" : "")")
        let body = AreaPurchaseResult(
            areaId: p.id, productId: p.areaOrigin?.of ?? verified.productId, transactionId: outcome.transactionId,
            alreadyRecorded: outcome.alreadyRecorded, title: p.title, size: p.size, sha256: p.sha256,
            minzoom: p.minZoom, maxzoom: p.maxZoom,
            bounds: [p.bounds.west, p.bounds.south, p.bounds.east, p.bounds.north],
            downloadURL: "/api/v1/downloads/\(p.id)")
        return JSONReply.make(body, status: outcome.alreadyRecorded ? .ok : .created, request: request, cacheControl: "no-store")
    }

    static func quoteBody(_ q: AreaQuoteRecord, _ offer: Product, message: String?) -> AreaQuote {
        AreaQuote(
            quoteId: q.id, productId: q.productId, title: q.title,
            price: TrailMapAPI.Price(amount: offer.price.amount, currency: offer.price.currency),
            bounds: [q.bounds.west, q.bounds.south, q.bounds.east, q.bounds.north], minzoom: q.minZoom, maxzoom: q.maxZoom,
            requestedMaxzoom: q.requestedMaxZoom, size: q.size, tiles: q.tiles, maxBytes: offer.areaOffer?.maxBytes ?? offer.size,
            sources: offer.areaOffer?.tilesets ?? [], expiresAt: JSONReply.time(q.expiresAt), message: message)
    }
}

extension APIError {
    /// The HTTP answer to an area error.
    init(_ e: AreaError) {
        switch e {
        case let .catalog(c): self.init(c)
        // Well-formed requests whose values contradict each other or the products: 422.
        case .invalidRequest, .notAnAreaProduct: self.init(.unprocessableContent, code: e.code, message: e.description)
        case let .notCovered(nearby):
            self.init(.notFound, code: e.code, message: e.description)
            self.nearby = nearby
        case let .tooLarge(_, _, radius, _):
            self.init(.unprocessableContent, code: e.code, message: e.description)
            largestRadiusKm = radius
        case let .busy(s), let .quotesFull(s):
            self.init(.serviceUnavailable, code: e.code, message: e.description)
            headers[.retryAfter] = String(s)
        case let .quoteInProgress(s), let .tooManyQuotes(s), let .quoteSpaceUsed(s):
            self.init(.tooManyRequests, code: e.code, message: e.description)
            headers[.retryAfter] = String(s)
        case .cutFailed: self.init(.serviceUnavailable, code: e.code, message: e.description)
        }
    }
}
