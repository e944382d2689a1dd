import Foundation
import Synchronization

/// How the server shares area quoting between accounts and client addresses.
public struct AreaQuoteFairness: Sendable {
    /// Quotes in flight (being cut or waiting to be) from one address at once.
    public var perAddressInFlight = 2
    /// Quotes one account may ask for within `window`.
    public var quotesPerAccount = 20
    /// Quotes one address may ask for within `window`.
    public var quotesPerAddress = 60
    /// The rates' sliding window, in seconds.
    public var window: TimeInterval = 600
    /// Share of the unbought-quote space one account's quotes may hold (at least one quote's cap).
    public var accountShare = 0.05
    /// Share of the unbought-quote space one address's quotes may hold (at least one quote's cap).
    public var addressShare = 0.25
    /// Share of the space kept for accounts holding no unbought quote.
    public var reservedShare = 0.2

    public init() {}
}

/// The unbought-quote space's rules, and the bytes quoted from each address (kept in memory
/// until the quotes expire or are bought here; one bought through another server on the same
/// catalog still counts until it expires, which errs on the safe side).
final class QuoteSpace: Sendable {
    let total: Int64
    let fairness: AreaQuoteFairness
    private let byAddress = Mutex<[String: [(id: String, bytes: Int64, until: Date)]]>([:])

    init(total: Int64, fairness: AreaQuoteFairness) {
        self.total = total
        self.fairness = fairness
    }

    /// Why a quote that may take `largest` bytes cannot be cut now, or nil: the space of all
    /// unbought quotes (`waiting`), less a reserve that only an account holding none may use,
    /// then the shares of its account (`account` bytes held) and its address (`address`).
    func refusal(waiting: Int64, account: Int64, address: Int64, largest: Int64) -> AreaError? {
        let reserve = Int64(Double(total) * fairness.reservedShare)
        guard waiting + largest <= (account == 0 ? total : total - reserve) else { return .quotesFull(retryAfter: 60) }
        guard account + largest <= max(largest, Int64(Double(total) * fairness.accountShare)),
            address + largest <= max(largest, Int64(Double(total) * fairness.addressShare))
        else { return .quoteSpaceUsed(retryAfter: 60) }
        return nil
    }

    /// Bytes of unexpired quotes cut for `address` (0 for a local caller).
    func held(by address: String?, now: Date) -> Int64 {
        guard let address else { return 0 }
        return byAddress.withLock { m in
            let kept = (m[address] ?? []).filter { $0.until > now }
            m[address] = kept.isEmpty ? nil : kept
            return kept.reduce(0) { $0 + $1.bytes }
        }
    }

    /// Stops counting a quote (bought).
    func forget(id: String) {
        byAddress.withLock { m in
            for (a, list) in m where list.contains(where: { $0.id == id }) {
                let kept = list.filter { $0.id != id }
                m[a] = kept.isEmpty ? nil : kept
            }
        }
    }

    /// Notes a quote cut for `address` until it expires.
    func record(id: String, bytes: Int64, address: String?, until: Date) {
        guard let address else { return }
        byAddress.withLock { $0[address, default: []].append((id, bytes, until)) }
    }
}
