import Foundation
import Synchronization

/// Slows down password guessing and account farming, per email and per client address.
///
/// Every login attempt is counted when it is admitted, before its password is checked, so that a
/// burst of parallel attempts cannot all pass the check before any of them fails: the check and
/// the count are one step under one lock. A successful login clears its email's count and takes
/// its own attempt back from its address's count (so an address's count is its failures).
///
/// - Per email: 5 attempts free, then each further one must wait, doubling from 2 s up to 15 min.
/// - Per address: 20 failed logins free, then the same doubling (one address guessing many emails).
/// - Registrations per address: 20 free, then the same doubling (each is a 32 MiB scrypt).
///
/// A count left alone for 15 minutes (and not locked) starts again from zero.
final class LoginThrottle: Sendable {
    struct Limits: Sendable {
        var perEmail = 5
        var perAddress = 20
        var registrationsPerAddress = 20
        /// Idle time after which a count starts again.
        var forgetAfter: TimeInterval = 900
        var maxDelay: TimeInterval = 900
    }

    private struct Entry {
        var count = 0
        var lockedUntil = Date.distantPast
        var last = Date.distantPast
    }

    private let state = Mutex<[String: Entry]>([:])
    let limits: Limits

    init(limits: Limits = Limits()) {
        self.limits = limits
    }

    private static func keys(email: String?, address: String?) -> [(key: String, free: KeyPath<Limits, Int>)] {
        var keys: [(String, KeyPath<Limits, Int>)] = []
        if let email { keys.append(("e:" + email.lowercased(), \.perEmail)) }
        if let address, !address.isEmpty { keys.append(("a:" + address, \.perAddress)) }
        return keys
    }

    /// Seconds to wait before this email (or address) may try again, or nil when it may try now.
    /// A look only: it counts nothing (the server uses it to answer 429 before queueing a hash).
    func wait(for email: String, address: String? = nil, now: Date = Date()) -> Int? {
        state.withLock { s in
            Self.keys(email: email, address: address).compactMap { k in s[k.key].flatMap { Self.remaining($0, now) } }.max()
        }
    }

    /// Admits a login attempt and counts it against the email and the address, or returns the
    /// seconds to wait (nothing counted) when either is locked.
    func admitLogin(email: String, address: String?, now: Date = Date()) -> Int? {
        admit(Self.keys(email: email, address: address), now: now)
    }

    /// Admits a registration from `address` and counts it, or returns the seconds to wait.
    func admitRegistration(address: String?, now: Date = Date()) -> Int? {
        guard let address, !address.isEmpty else { return nil }
        return admit([("r:" + address, \.registrationsPerAddress)], now: now)
    }

    /// A login that succeeded: its email starts again from zero, its address gets the attempt back.
    func succeeded(email: String, address: String?) {
        state.withLock { s in
            s.removeValue(forKey: "e:" + email.lowercased())
            if let address, !address.isEmpty, var e = s["a:" + address] {
                e.count = max(0, e.count - 1)
                if e.count < limits.perAddress { e.lockedUntil = .distantPast }
                s["a:" + address] = e
            }
        }
    }

    private func admit(_ keys: [(key: String, free: KeyPath<Limits, Int>)], now: Date) -> Int? {
        state.withLock { s in
            var entries = keys.map { k -> Entry in
                var e = s[k.key] ?? Entry()
                if e.lockedUntil <= now, now.timeIntervalSince(e.last) > limits.forgetAfter { e = Entry() }
                return e
            }
            if let wait = entries.compactMap({ Self.remaining($0, now) }).max() { return wait }
            for (i, k) in keys.enumerated() {
                entries[i].count += 1
                entries[i].last = now
                let free = limits[keyPath: k.free]
                if entries[i].count >= free {
                    let delay = min(limits.maxDelay, 2 * pow(2, Double(entries[i].count - free)))
                    entries[i].lockedUntil = now.addingTimeInterval(delay)
                }
                s[k.key] = entries[i]
            }
            if s.count > 100_000 {
                s = s.filter { $0.value.lockedUntil > now || now.timeIntervalSince($0.value.last) <= limits.forgetAfter }
            }
            return nil
        }
    }

    private static func remaining(_ e: Entry, _ now: Date) -> Int? {
        e.lockedUntil > now ? max(1, Int(e.lockedUntil.timeIntervalSince(now).rounded(.up))) : nil
    }
}
