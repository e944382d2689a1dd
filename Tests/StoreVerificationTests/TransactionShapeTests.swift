@testable import StoreVerification
import Essentials
import Foundation
import Testing
import TrailMapTestSupport

/// A JSON value's type as Apple's documentation names it.
private enum JSONKind: Equatable, CustomStringConvertible {
    case string, integer, boolean, other

    var description: String { "\(self == .string ? "string" : self == .integer ? "integer" : self == .boolean ? "boolean" : "other")" }
}

private struct AnyJSON: Decodable {
    let kind: JSONKind
    init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if (try? c.decode(String.self)) != nil {
            kind = .string
        } else if (try? c.decode(Bool.self)) != nil {
            kind = .boolean
        } else if (try? c.decode(Int64.self)) != nil {
            kind = .integer
        } else {
            kind = .other
        }
    }
}

@Suite(.computeThreads) struct TransactionShapeTests {
    /// JWSTransactionDecodedPayload's fields and JSON types, from Apple's documentation
    /// (developer.apple.com/documentation/appstoreserverapi/jwstransactiondecodedpayload):
    /// dates are int64 milliseconds, quantity/offerType/revocationReason int32, price int64 milliunits.
    private static let appleFields: [String: JSONKind] = [
        "appAccountToken": .string, "appTransactionId": .string, "bundleId": .string, "currency": .string,
        "environment": .string, "expiresDate": .integer, "inAppOwnershipType": .string, "isUpgraded": .boolean,
        "offerDiscountType": .string, "offerIdentifier": .string, "offerPeriod": .string, "offerType": .integer,
        "originalPurchaseDate": .integer, "originalTransactionId": .string, "price": .integer, "productId": .string,
        "purchaseDate": .integer, "quantity": .integer, "revocationDate": .integer, "revocationReason": .integer,
        "signedDate": .integer, "storefront": .string, "storefrontId": .string,
        "subscriptionGroupIdentifier": .string, "transactionId": .string, "transactionReason": .string,
        "type": .string, "webOrderLineItemId": .string
    ]

    /// Present on every non-consumable purchase.
    private static let nonConsumableFields: Set<String> = [
        "transactionId", "originalTransactionId", "bundleId", "productId", "purchaseDate", "originalPurchaseDate",
        "quantity", "type", "inAppOwnershipType", "signedDate", "environment", "storefront", "storefrontId",
        "transactionReason"
    ]

    private func kinds(_ jws: String) throws -> [String: JSONKind] {
        let data = try #require(Base64URL.decode(Substring(ForgedJWS.parts(jws)[1])))
        return try JSONDecoder().decode([String: AnyJSON].self, from: data).mapValues(\.kind)
    }

    @Test func sandboxTransactionsHaveApplesShape() throws {
        let fixture = try StoreFixture()
        let (jws, _) = try fixture.store.signTransaction(
            productId: "com.trailmap.region.colorado", appAccountToken: UUID(),
            price: 4990, currency: "USD")
        let fields = try kinds(jws)
        for (name, kind) in fields {
            #expect(
                Self.appleFields[name] == kind,
                "\(name) is \(kind), Apple says \(Self.appleFields[name].map(\.description) ?? "no such field")")
        }
        #expect(Self.nonConsumableFields.isSubset(of: Set(fields.keys)))
        #expect(fields["appAccountToken"] == .string && fields["price"] == .integer && fields["currency"] == .string)
        let object = try ForgedJWS.payloadObject(jws)
        #expect(UUID(uuidString: object["appAccountToken"] as? String ?? "") != nil)
    }

    @Test func revokedTransactionsHaveApplesShape() throws {
        let fixture = try StoreFixture()
        let (_, purchase) = try fixture.purchase()
        var revoked = purchase
        revoked.revocationDate = purchase.purchaseDate + 1000
        revoked.revocationReason = 1
        revoked.isUpgraded = false
        revoked.offerType = 2
        for (name, kind) in try kinds(try fixture.store.sign(transaction: revoked)) {
            #expect(Self.appleFields[name] == kind, "\(name)")
        }
    }

    @Test func everyAppleFieldRoundTrips() throws {
        // A payload with every documented field, shaped like Apple's published examples.
        let json = """
            {"transactionId":"2000000123456789","originalTransactionId":"2000000123456780","webOrderLineItemId":"2000000012345678",
             "bundleId":"com.trailmap.app","productId":"com.trailmap.region.colorado","subscriptionGroupIdentifier":"21345678",
             "purchaseDate":1763773323000,"originalPurchaseDate":1763773300000,"expiresDate":1766365323000,"quantity":1,
             "type":"Auto-Renewable Subscription","appAccountToken":"7e3fb20b-4cdb-47cc-936d-99d65f608138",
             "inAppOwnershipType":"PURCHASED","signedDate":1763773324000,"revocationReason":1,"revocationDate":1763773400000,
             "isUpgraded":true,"offerType":1,"offerIdentifier":"intro.1","environment":"Sandbox","storefront":"USA",
             "storefrontId":"143441","transactionReason":"PURCHASE","currency":"USD","price":4990,
             "offerDiscountType":"PAY_AS_YOU_GO","appTransactionId":"704123456789012345","offerPeriod":"P1M"}
            """
        let transaction = try JSONDecoder().decode(JWSTransaction.self, from: Data(json.utf8))
        #expect(Set(try JSONDecoder().decode([String: AnyJSON].self, from: Data(json.utf8)).keys) == Set(Self.appleFields.keys))
        let encoder = JSONEncoder()
        let again = try JSONDecoder().decode([String: AnyJSON].self, from: encoder.encode(transaction)).mapValues(\.kind)
        #expect(again == Self.appleFields)
        #expect(transaction.appAccountUUID == UUID(uuidString: "7e3fb20b-4cdb-47cc-936d-99d65f608138"))
        #expect(transaction.storeEnvironment == .sandbox)
    }
}
