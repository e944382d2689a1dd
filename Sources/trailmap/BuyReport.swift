import RegionManager
import TrailMapAPI

/// What `regions buy --json` prints: the product, what happened (`purchased`, `already_owned`
/// or `free`), and the transaction for a new purchase.
struct BuyReport: Encodable {
    var productId: String
    var title: String
    /// `purchased`, `already_owned` or `free`.
    var result: String
    var price: Price
    var transactionId: String?
    var message: String?

    init(_ outcome: BuyOutcome) {
        switch outcome {
        case let .free(p):
            self.init(p, result: "free", transactionId: nil, message: nil)
        case let .alreadyOwned(p, message):
            self.init(p, result: "already_owned", transactionId: nil, message: message)
        case let .purchased(p, r):
            self.init(p, result: "purchased", transactionId: r.transactionId, message: nil)
        }
    }

    private init(_ p: ProductDetail, result: String, transactionId: String?, message: String?) {
        productId = p.productId
        title = p.title
        self.result = result
        price = p.price
        self.transactionId = transactionId
        self.message = message
    }
}
