import Foundation

/// The login throttle's rules, apart from where its counts are kept: `LoginThrottle` keeps them
/// in memory (SQLite, one server), `PostgresCatalog` in a table every server shares. Both call
/// these functions, so the limits and the doubling are the same on both backends.
package enum ThrottleRules {
    package struct Limits: Sendable {
        package var perEmail = 5
        package var perAddress = 20
        package var registrationsPerAddress = 20
        /// Idle time after which a count starts again.
        package var forgetAfter: TimeInterval = 900
        package var maxDelay: TimeInterval = 900
        /// The first lock, doubling with each further failure.
        package var firstLock: TimeInterval = 2

        /// The default limits.
        package init() {}
    }

    /// One counted key (an email, an address, or an address's registrations).
    package struct Entry: Sendable, Equatable {
        package var count = 0
        package var lockedUntil = Date.distantPast
        package var last = Date.distantPast

        package init(count: Int = 0, lockedUntil: Date = .distantPast, last: Date = .distantPast) {
            self.count = count
            self.lockedUntil = lockedUntil
            self.last = last
        }
    }

    /// The keys a login attempt counts against, with their free attempts: the email *from this
    /// address* (so a stranger's wrong passwords lock only the stranger's address out of that
    /// account, never the owner elsewhere) and the address across all emails.
    package static func loginKeys(email: String?, address: String?, limits: Limits) -> [(key: String, free: Int)] {
        var keys: [(String, Int)] = []
        if let email { keys.append((emailKey(email, address: address), limits.perEmail)) }
        if let address, !address.isEmpty { keys.append(("a:" + address, limits.perAddress)) }
        return keys
    }

    /// The key a registration counts against, if any (a local caller, without address, is not counted).
    package static func registrationKey(address: String?, limits: Limits) -> (key: String, free: Int)? {
        guard let address, !address.isEmpty else { return nil }
        return ("r:" + address, limits.registrationsPerAddress)
    }

    /// The address key a successful login gives its attempt back to.
    package static func addressKey(_ address: String?) -> String? {
        guard let address, !address.isEmpty else { return nil }
        return "a:" + address
    }

    /// The email-from-an-address key a login counts against and a successful login clears.
    package static func emailKey(_ email: String, address: String?) -> String {
        "e:" + email.lowercased() + "|" + (address ?? "")
    }

    /// Admits an attempt against `entries` (one per key, in the order of `frees`): returns the
    /// seconds to wait (nothing counted) when any is locked, else counts it in every entry, locks
    /// the ones past their free attempts, and returns nil.
    package static func admit(_ entries: inout [Entry], frees: [Int], limits: Limits, now: Date) -> Int? {
        for i in entries.indices where entries[i].lockedUntil <= now && now.timeIntervalSince(entries[i].last) > limits.forgetAfter {
            entries[i] = Entry()
        }
        if let wait = entries.compactMap({ remaining($0, now) }).max() { return wait }
        for i in entries.indices {
            entries[i].count += 1
            entries[i].last = now
            if entries[i].count >= frees[i] {
                let delay = min(limits.maxDelay, limits.firstLock * pow(2, Double(entries[i].count - frees[i])))
                entries[i].lockedUntil = now.addingTimeInterval(delay)
            }
        }
        return nil
    }

    /// An address's entry after a successful login from it: the attempt is given back.
    package static func succeeded(address e: Entry, limits: Limits) -> Entry {
        var e = e
        e.count = max(0, e.count - 1)
        if e.count < limits.perAddress { e.lockedUntil = .distantPast }
        return e
    }

    /// Whether an entry may be forgotten (not locked, idle longer than `forgetAfter`).
    package static func isForgettable(_ e: Entry, limits: Limits, now: Date) -> Bool {
        e.lockedUntil <= now && now.timeIntervalSince(e.last) > limits.forgetAfter
    }

    /// Seconds until a locked entry may try again, or nil.
    package static func remaining(_ e: Entry, _ now: Date) -> Int? {
        e.lockedUntil > now ? max(1, Int(e.lockedUntil.timeIntervalSince(now).rounded(.up))) : nil
    }
}
