/// A price as the catalog states it: a decimal string and an ISO currency code.
public struct Price: Codable, Sendable, Equatable {
    /// Decimal amount, `"0"` for free products.
    public var amount: String
    /// ISO 4217 code, e.g. `USD`.
    public var currency: String

    public init(amount: String, currency: String) {
        self.amount = amount
        self.currency = currency
    }

    /// `4.99 USD`, or `free`.
    public var display: String { (Double(amount) ?? 0) == 0 ? "free" : "\(amount) \(currency)" }
}
