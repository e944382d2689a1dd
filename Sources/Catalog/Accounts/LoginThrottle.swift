import Foundation
import Synchronization

/// Slows down password guessing and account farming, per email and per client address.
///
/// Every login attempt is counted when it is admitted, before its password is checked, so that a
/// burst of parallel attempts cannot all pass the check before any of them fails: the check and
/// the count are one step under one lock. A successful login clears its email's count and takes
/// its own attempt back from its address's count (so an address's count is its failures).
///
/// - Per email from one address: 5 attempts free, then each further one must wait, doubling from
///   2 s up to 15 min (a stranger guessing from elsewhere never locks the owner out).
/// - Per address: 20 failed logins free, then the same doubling (one address guessing many emails).
/// - Registrations per address: 20 free, then the same doubling (each is a 32 MiB scrypt).
///
/// A count left alone for 15 minutes (and not locked) starts again from zero. The rules are
/// `ThrottleRules`, shared with the PostgreSQL catalog (which keeps the counts in a table).
package final class LoginThrottle: Sendable {
    package typealias Limits = ThrottleRules.Limits
    private typealias Entry = ThrottleRules.Entry

    private let state = Mutex<[String: Entry]>([:])
    let limits: Limits

    package init(limits: Limits = Limits()) {
        self.limits = limits
    }

    /// Seconds to wait before this email (or address) may try again, or nil when it may try now.
    /// A look only: it counts nothing (the server uses it to answer 429 before queueing a hash).
    package func wait(for email: String, address: String? = nil, now: Date = Date()) -> Int? {
        state.withLock { s in
            ThrottleRules.loginKeys(email: email, address: address, limits: limits)
                .compactMap { k in s[k.key].flatMap { ThrottleRules.remaining($0, now) } }.max()
        }
    }

    /// Admits a login attempt and counts it against the email and the address, or returns the
    /// seconds to wait (nothing counted) when either is locked.
    package func admitLogin(email: String, address: String?, now: Date = Date()) -> Int? {
        admit(ThrottleRules.loginKeys(email: email, address: address, limits: limits), now: now)
    }

    /// Admits a registration from `address` and counts it, or returns the seconds to wait.
    package func admitRegistration(address: String?, now: Date = Date()) -> Int? {
        guard let key = ThrottleRules.registrationKey(address: address, limits: limits) else { return nil }
        return admit([key], now: now)
    }

    /// A login that succeeded: its email starts again from zero, its address gets the attempt back.
    package func succeeded(email: String, address: String?) {
        state.withLock { s in
            s.removeValue(forKey: ThrottleRules.emailKey(email, address: address))
            if let key = ThrottleRules.addressKey(address), let e = s[key] {
                s[key] = ThrottleRules.succeeded(address: e, limits: limits)
            }
        }
    }

    private func admit(_ keys: [(key: String, free: Int)], now: Date) -> Int? {
        state.withLock { s in
            var entries = keys.map { s[$0.key] ?? Entry() }
            if let wait = ThrottleRules.admit(&entries, frees: keys.map(\.free), limits: limits, now: now) {
                return wait
            }
            for (i, k) in keys.enumerated() { s[k.key] = entries[i] }
            if s.count > 100_000 {
                s = s.filter { !ThrottleRules.isForgettable($0.value, limits: limits, now: now) }
            }
            return nil
        }
    }
}
