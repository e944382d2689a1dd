import Foundation
import Synchronization

/// Slows down password guessing: after 5 failures for one email, each further attempt must wait,
/// doubling from 2 s up to 15 minutes; a success clears the count.
final class LoginThrottle: Sendable {
    private struct Entry { var failures: Int; var lockedUntil: Date }
    private let state = Mutex<[String: Entry]>([:])
    let freeAttempts = 5

    /// Seconds to wait before `email` may try again, or nil when it may try now.
    func wait(for email: String, now: Date = Date()) -> Int? {
        state.withLock { s in
            guard let e = s[email.lowercased()], e.lockedUntil > now else { return nil }
            return max(1, Int(e.lockedUntil.timeIntervalSince(now).rounded(.up)))
        }
    }

    func failed(_ email: String, now: Date = Date()) {
        state.withLock { s in
            let key = email.lowercased()
            var e = s[key] ?? Entry(failures: 0, lockedUntil: now)
            e.failures += 1
            if e.failures >= freeAttempts {
                let delay = min(900.0, 2 * pow(2, Double(e.failures - freeAttempts)))
                e.lockedUntil = now.addingTimeInterval(delay)
            }
            s[key] = e
            if s.count > 100_000 { s = s.filter { $0.value.lockedUntil > now } }
        }
    }

    func succeeded(_ email: String) {
        _ = state.withLock { $0.removeValue(forKey: email.lowercased()) }
    }
}
