import Catalog
import Foundation
import Hummingbird
import Logging
import TrailMapAPI

/// `/purchases`, `/store/notifications` and the sandbox store.
extension StoreAPI {
    func purchase(_ request: Request) async throws -> Response {
        let a = try await account(request)
        let b = try await body(SignedTransaction.self, request)
        guard Self.isCompactJWS(b.signedTransaction) else {
            throw APIError(.badRequest, code: "invalid_transaction", message: Self.notJWS("signedTransaction"))
        }
        let verified: StorePurchase
        do { verified = try await settings.verifier.verifyPurchase(b.signedTransaction) } catch let e as CatalogError {
            throw APIError(e)
        } catch {
            // Well formed, but not the store's: an untrusted signature, chain or claim.
            throw APIError(.forbidden, code: "invalid_transaction", message: "the signed transaction was refused: \(error)")
        }
        let outcome = try await catalog.recordPurchase(verified, account: a)
        let j = PurchaseResult(
            productId: outcome.productId, transactionId: outcome.transactionId,
            originalTransactionId: outcome.originalTransactionId, alreadyOwned: outcome.alreadyOwned,
            downloadURL: "/api/v1/downloads/\(outcome.productId)",
            message: outcome.alreadyOwned ? "You already own this region; downloading it again is free." : nil)
        logger.info(
            "purchase \(outcome.transactionId) of \(outcome.productId) by \(a.id): \(outcome.alreadyOwned ? "already owned" : "granted")")
        return JSONReply.make(j, status: outcome.alreadyOwned ? .ok : .created, request: request, cacheControl: "no-store")
    }

    func notification(_ request: Request) async throws -> Response {
        let b = try await body(SignedPayload.self, request)
        guard Self.isCompactJWS(b.signedPayload) else {
            throw APIError(.badRequest, code: "invalid_notification", message: Self.notJWS("signedPayload"))
        }
        let event: StoreEvent
        do { event = try await settings.verifier.verifyEvent(b.signedPayload) } catch {
            throw APIError(.forbidden, code: "invalid_notification", message: "the signed notification was refused: \(error)")
        }
        let outcome = try await catalog.apply(event)
        logger.info("store notification \(event.type) \(event.notificationUUID): \(outcome.rawValue)")
        return JSONReply.make(
            NotificationResult(notificationUUID: event.notificationUUID, result: Self.outcome(outcome)), request: request,
            cacheControl: "no-store")
    }

    func sandboxTransaction(_ request: Request) async throws -> Response {
        let sandbox = try requireSandbox()
        let a = try await account(request)
        let b = try await body(SandboxPurchaseRequest.self, request)
        // Bought areas are not store products: only regions and area products are sold.
        guard ProductFile.isValidProductID(b.productId), let product = try await catalog.product(id: b.productId), product.kind != .area
        else {
            throw APIError(CatalogError.unknownProduct(String(b.productId.prefix(128))))
        }
        if let t = b.appAccountToken, UUID(uuidString: t) == nil { throw APIError.badRequest("appAccountToken must be a UUID") }
        let token = b.appAccountToken ?? a.appAccountToken
        // An area product is a consumable (each purchase buys one area), as StoreKit would sign it.
        let jws =
            product.kind == .areaProduct
            ? try sandbox.signConsumablePurchase(productId: product.id, appAccountToken: token, price: product.price)
            : try sandbox.signPurchase(productId: product.id, appAccountToken: token, price: product.price)
        return JSONReply.make(SignedTransaction(signedTransaction: jws), status: .created, request: request, cacheControl: "no-store")
    }

    func sandboxNotification(_ request: Request) async throws -> Response {
        let sandbox = try requireSandbox()
        let a = try await account(request)
        let b = try await body(SandboxNotificationRequest.self, request)
        guard SandboxNotificationRequest.types.contains(b.notificationType) else {
            throw APIError.badRequest("notificationType must be REFUND, REVOKE or REFUND_REVERSED")
        }
        guard let purchase = try await catalog.purchase(transactionID: b.transactionId, account: a) else {
            throw APIError.notFound("unknown_transaction", "this account has no transaction \(b.transactionId.prefix(64))")
        }
        let payload = try sandbox.signNotification(type: b.notificationType, purchase: purchase)
        return JSONReply.make(SignedPayload(signedPayload: payload), status: .created, request: request, cacheControl: "no-store")
    }

    /// A notification's outcome as the API names it.
    static func outcome(_ o: StoreEventOutcome) -> NotificationOutcome {
        switch o {
        case .revoked: .revoked
        case .restored: .restored
        case .duplicate: .duplicate
        case .pending: .pending
        case .superseded: .superseded
        case .ignored: .ignored
        }
    }

    /// The shape of a compact JWS, as the OpenAPI document declares it (`APIPattern.jws`): three
    /// non-empty base64url parts, at most 60,000 bytes.
    static func isCompactJWS(_ s: String) -> Bool {
        let parts = s.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        return s.utf8.count <= APIPattern.jwsMaxLength && parts.count == 3
            && parts.allSatisfy { part in
                !part.isEmpty
                    && part.allSatisfy { c in
                        (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x2D || c == 0x5F
                    }
            }
    }

    static func notJWS(_ field: String) -> String {
        "\(field) is not a JWS (three base64url parts joined by dots); send the string exactly as StoreKit returned it"
    }

    private func requireSandbox() throws -> any SandboxSigning {
        guard let s = settings.sandbox else {
            throw APIError.notFound("no_sandbox", "this server runs no sandbox store")
        }
        return s
    }
}
