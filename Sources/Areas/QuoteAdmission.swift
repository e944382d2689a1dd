import Foundation
import Synchronization

/// Shares the server's area cutting fairly between accounts and client addresses.
///
/// - One quote in flight per account (running or waiting); a second answers `quoteInProgress`.
/// - At most `perAddressInFlight` in flight per client address (many accounts from one address).
/// - A rate per account and per address over a sliding `window`: past it, `tooManyQuotes`.
/// - Cuts run `maxConcurrentCuts` at a time; the rest wait in arrival order (at most
///   `maxWaiting`, then `busy`). As each account has at most one quote in flight, no account can
///   hold more than one place, so nobody is refused because one account keeps quoting.
final class QuoteAdmission: Sendable {
    /// The admission rules.
    struct Limits: Sendable {
        var maxConcurrentCuts = 2
        var maxWaiting = 32
        var perAddressInFlight = 2
        var perAccountPerWindow = 20
        var perAddressPerWindow = 60
        var window: TimeInterval = 600
    }

    /// A place taken by `enter`, given back by `leave`.
    struct Ticket: Sendable {
        let account: String
        let address: String?
    }

    private struct State {
        var running = 0
        var waiters: [CheckedContinuation<Void, Never>] = []
        var accounts: Set<String> = []
        var addresses: [String: Int] = [:]
        var recent: [String: [Date]] = [:]
    }

    let limits: Limits
    private let state = Mutex(State())

    init(limits: Limits) {
        var l = limits
        l.maxConcurrentCuts = max(1, l.maxConcurrentCuts)
        self.limits = l
    }

    /// Quotes running and waiting now (for tests and logs).
    var counts: (running: Int, waiting: Int) { state.withLock { ($0.running, $0.waiters.count) } }

    /// Takes a place for a quote by `account` from `address` (nil: a local caller), waiting for a
    /// cutting slot in arrival order, or throws why it may not quote now.
    func enter(account: String, address: String?, now: Date = Date()) async throws(AreaError) -> Ticket {
        let ticket = Ticket(account: account, address: address)
        let mustWait = try state.withLock { s throws(AreaError) -> Bool in
            guard !s.accounts.contains(account) else { throw .quoteInProgress(retryAfter: 2) }
            if let address, s.addresses[address, default: 0] >= limits.perAddressInFlight { throw .quoteInProgress(retryAfter: 2) }
            var keys = [("u:" + account, limits.perAccountPerWindow)]
            if let address { keys.append(("a:" + address, limits.perAddressPerWindow)) }
            for (key, limit) in keys {
                let kept = (s.recent[key] ?? []).filter { now.timeIntervalSince($0) < limits.window }
                s.recent[key] = kept
                if kept.count >= limit, let oldest = kept.first {
                    throw .tooManyQuotes(retryAfter: max(1, Int((limits.window - now.timeIntervalSince(oldest)).rounded(.up))))
                }
            }
            let wait = s.running >= limits.maxConcurrentCuts
            if wait, s.waiters.count >= limits.maxWaiting { throw .busy(retryAfter: 2) }
            for (key, _) in keys { s.recent[key, default: []].append(now) }
            if s.recent.count > 100_000 { s.recent = s.recent.filter { $0.value.contains { now.timeIntervalSince($0) < limits.window } } }
            s.accounts.insert(account)
            if let address { s.addresses[address, default: 0] += 1 }
            if !wait { s.running += 1 }
            return wait
        }
        guard mustWait else { return ticket }
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let now = state.withLock { s -> Bool in
                if s.running < limits.maxConcurrentCuts {
                    s.running += 1
                    return true
                }
                s.waiters.append(c)
                return false
            }
            if now { c.resume() }
        }
        return ticket
    }

    /// Gives a place back: its cutting slot goes to the longest waiting quote.
    func leave(_ ticket: Ticket) {
        let next = state.withLock { s -> CheckedContinuation<Void, Never>? in
            s.accounts.remove(ticket.account)
            if let a = ticket.address {
                s.addresses[a, default: 1] -= 1
                if s.addresses[a] == 0 { s.addresses[a] = nil }
            }
            if s.waiters.isEmpty {
                s.running -= 1
                return nil
            }
            return s.waiters.removeFirst()
        }
        next?.resume()
    }
}
