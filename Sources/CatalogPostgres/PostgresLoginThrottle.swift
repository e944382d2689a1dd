import Catalog
import Foundation
import Logging
import PostgresNIO

/// The login throttle (`ThrottleRules`, the same limits as SQLite's in-memory `LoginThrottle`)
/// with its counts in `login_attempts`, shared by every server: an attempt is admitted and
/// counted in one transaction that locks its rows, so parallel guesses on several servers
/// cannot slip past the count either. These writes do not move the change stamp.
extension PostgresCatalog {
    typealias ThrottleKey = (key: String, free: Int)

    /// Admits an attempt against `keys` and counts it, or returns the seconds to wait (nothing counted).
    func admit(_ keys: [ThrottleKey], now: Date = Date()) async throws(CatalogError) -> Int? {
        guard !keys.isEmpty else { return nil }
        let limits = throttleLimits, logger = logger
        let names = keys.map(\.key), frees = keys.map(\.free)
        return try await transaction(bumpsStamp: false) { conn in
            // Rows exist before they are locked; locked in key order, so two attempts never deadlock.
            for name in names.sorted() {
                try await conn.run(
                    """
                    INSERT INTO login_attempts(key, count, locked_until, last_at) VALUES (\(name), 0, 0, 0)
                    ON CONFLICT (key) DO NOTHING
                    """, logger)
            }
            var found = [String: ThrottleRules.Entry]()
            for r in try await conn.rows(
                """
                SELECT key, count, locked_until, last_at FROM login_attempts WHERE key = ANY(\(names)) ORDER BY key FOR UPDATE
                """, logger)
            {
                found[try r.get("key")] = try Self.entry(r)
            }
            var entries = names.map { found[$0] ?? ThrottleRules.Entry() }
            if let wait = ThrottleRules.admit(&entries, frees: frees, limits: limits, now: now) { return wait }
            for (name, e) in zip(names, entries) { try await Self.store(conn, name, e, logger) }
            // Now and then, forget the counts nobody has used for a while.
            if Int.random(in: 0..<200) == 0 {
                try await conn.run(
                    """
                    DELETE FROM login_attempts WHERE locked_until <= \(now.timeIntervalSince1970)
                    AND last_at < \(now.timeIntervalSince1970 - limits.forgetAfter)
                    """, logger)
            }
            return nil
        }
    }

    /// A login that succeeded: its email starts again from zero, its address gets the attempt back.
    func succeeded(email: String, address: String?) async throws(CatalogError) {
        let limits = throttleLimits, logger = logger
        let emailKey = ThrottleRules.emailKey(email, address: address), addressKey = ThrottleRules.addressKey(address)
        try await transaction(bumpsStamp: false) { conn in
            try await conn.run("DELETE FROM login_attempts WHERE key = \(emailKey)", logger)
            guard let addressKey else { return }
            guard
                let row = try await conn.rows(
                    """
                    SELECT key, count, locked_until, last_at FROM login_attempts WHERE key = \(addressKey) FOR UPDATE
                    """, logger
                ).first
            else { return }
            try await Self.store(conn, addressKey, ThrottleRules.succeeded(address: try Self.entry(row), limits: limits), logger)
        }
    }

    /// Seconds until any of `keys` may try again, or nil; counts nothing.
    func wait(_ keys: [ThrottleKey], now: Date = Date()) async throws(CatalogError) -> Int? {
        let names = keys.map(\.key), logger = logger
        guard !names.isEmpty else { return nil }
        return try await withConnection { conn in
            try await conn.rows(
                """
                SELECT key, count, locked_until, last_at FROM login_attempts WHERE key = ANY(\(names))
                """, logger
            ).compactMap { ThrottleRules.remaining(try Self.entry($0), now) }.max()
        }
    }

    private static func entry(_ r: PostgresRandomAccessRow) throws -> ThrottleRules.Entry {
        let locked: Double = try r.get("locked_until"), last: Double = try r.get("last_at")
        return ThrottleRules.Entry(
            count: try r.get("count"),
            lockedUntil: locked <= 0 ? .distantPast : Date(timeIntervalSince1970: locked),
            last: last <= 0 ? .distantPast : Date(timeIntervalSince1970: last))
    }

    private static func store(_ conn: PostgresConnection, _ key: String, _ e: ThrottleRules.Entry, _ logger: Logger) async throws {
        let locked = e.lockedUntil == .distantPast ? 0 : e.lockedUntil.timeIntervalSince1970
        let last = e.last == .distantPast ? 0 : e.last.timeIntervalSince1970
        try await conn.run(
            """
            UPDATE login_attempts SET count = \(e.count), locked_until = \(locked), last_at = \(last) WHERE key = \(key)
            """, logger)
    }
}
