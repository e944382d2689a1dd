import Foundation
import NIOCore
import Synchronization

/// Paid tiles' credentials the catalog accepted lately: for `lifetime` after a credential (a bearer
/// token or a tile token) was checked for a product, its login session is known here and the
/// catalog is not read again. A buyer's map asks for dozens of tiles a second, and each one read
/// the catalog twice on Hummingbird's path (the credential, then the purchase); with a grant the
/// tile loops answer it as they answer a free tile.
///
/// A grant used in the second half of its lifetime asks for one renewal (`session` says so): the
/// caller checks the catalog again off the event loop and records the answer, so an active
/// buyer's tiles stay on the tile loops while the catalog keeps saying yes. A grant is never
/// extended without a check: a credential refused at the renewal loses its grant at once, and one
/// refused elsewhere is served at most `lifetime` after the last check that accepted it.
///
/// Only accepted credentials are kept, each for one product. A change made through this server's
/// API (a refund, a logout, a purchase: `GrantResetMiddleware`) clears them all; one made through another replica or the
/// CLI holds here for at most `lifetime` (tile token keys already take up to
/// `TileTokens.refreshInterval` to reach every replica). A zero lifetime keeps nothing.
final class TileGrants: Sendable {
    /// A credential as presented: its kind (`bearer` or `token`) and its text.
    struct Credential: Hashable, Sendable {
        enum Kind: Sendable { case bearer, token }
        var kind: Kind
        var text: String
    }

    private struct Key: Hashable {
        var credential: Credential
        var product: String
    }

    private struct Grant {
        var session: String
        var until: UInt64
        /// A renewal was asked for and has not answered yet.
        var renewing = false
    }

    private struct State {
        var grants: [Key: Grant] = [:]
        /// Counts `clear()`s: a check that began before one does not record its grant.
        var generation = 0
    }

    private let state = Mutex(State())
    /// How long a grant holds, in nanoseconds of `NIODeadline`'s clock.
    let lifetime: UInt64
    /// Most grants kept; when full, the expired ones go, and if none has, all of them.
    static let capacity = 4096

    init(lifetime: Duration) {
        self.lifetime = UInt64(max(0, lifetime.nanoseconds))
    }

    /// Monotonic nanoseconds, the clock grants are timed by.
    static func now() -> UInt64 { NIODeadline.now().uptimeNanoseconds }

    /// The login session of a live grant of `credential` for `product`, or nil; `renew` is true
    /// once per grant in the second half of its lifetime: the caller is to check the catalog again
    /// and call `grant` (or `revoke`) with the answer.
    func session(_ credential: Credential, product: String, now: UInt64 = now()) -> (session: String, renew: Bool)? {
        guard lifetime > 0 else { return nil }
        return state.withLock { s in
            let key = Key(credential: credential, product: product)
            guard let grant = s.grants[key], grant.until > now else { return nil }
            guard !grant.renewing, grant.until - now < lifetime / 2 else { return (grant.session, false) }
            s.grants[key]?.renewing = true
            return (grant.session, true)
        }
    }

    /// Drops the grant of `credential` for `product` (the catalog refused it at a renewal).
    func revoke(_ credential: Credential, product: String) {
        state.withLock { _ = $0.grants.removeValue(forKey: Key(credential: credential, product: product)) }
    }

    /// The generation to pass to `grant` for a check of the catalog beginning now.
    var generation: Int { state.withLock { $0.generation } }

    /// Records that the catalog accepted `credential` for `product` (as `session`'s), unless the
    /// grants were cleared since `generation` was read (the check may predate the change).
    func grant(_ credential: Credential, product: String, session: String, generation: Int, now: UInt64 = now()) {
        guard lifetime > 0 else { return }
        state.withLock { s in
            guard s.generation == generation else { return }
            if s.grants.count >= Self.capacity {
                s.grants = s.grants.filter { $0.value.until > now }
                if s.grants.count >= Self.capacity { s.grants.removeAll() }
            }
            s.grants[Key(credential: credential, product: product)] = Grant(session: session, until: now + lifetime)
        }
    }

    /// Forgets every grant (a change to accounts, purchases or sessions went through this server).
    func clear() {
        state.withLock {
            $0.grants.removeAll()
            $0.generation += 1
        }
    }

    /// Grants kept (live or not yet dropped).
    var count: Int { state.withLock { $0.grants.count } }

    /// Thrown by the fast path for a paid tile whose credential has no live grant: the catalog is
    /// to be asked (`TileAccess.read(.grant(_:))`) before the tile can be answered there.
    struct Needed: Error, Hashable, Sendable {
        var credential: Credential
        var product: String
    }
}

extension TileGrants.Credential {
    /// What a paid tile request presents, read as Hummingbird's path reads it
    /// (`TileAccess.authorize`).
    enum Presented: Equatable {
        /// No credential: no `token` parameter, and no `Authorization` header or one that holds
        /// no bearer token. Hummingbird's path refuses it without asking the catalog.
        case nothing
        /// `?token=` first, else a bearer token.
        case credential(TileGrants.Credential)
        /// Something Hummingbird's path reads its own way: percent escapes, several `token`
        /// parameters, a query that is not ASCII, a blank bearer token, an `Authorization` header
        /// that is not ASCII. Such a request goes to that path, which decides.
        case unclear
    }

    /// What a tile request presents, from its target and its `Authorization` header (nil: not
    /// sent; a caller whose request sends it twice leaves the request to Hummingbird's path). The
    /// query is read as bytes, not as characters (which cost paid tiles dearly,
    /// docs/notes/serving-measurements.md).
    static func presented(target: String, authorization: String?) -> Presented {
        var target = target
        let query = target.withUTF8 { Self.tokenParameter($0) }
        switch query {
        case .unusual:
            return .unclear
        case let .token(text):
            return .credential(Self(kind: .token, text: text))
        case .none:
            guard let authorization else { return .nothing }
            guard let token = StoreAPI.bearer(authorization: authorization) else {
                return authorization.utf8.allSatisfy { $0 < 0x80 } ? .nothing : .unclear
            }
            return token.isEmpty ? .unclear : .credential(Self(kind: .bearer, text: token))
        }
    }

    /// What a request target's query holds for `token`.
    enum TokenParameter {
        case none
        case token(String)
        /// Twice, empty (or without `=`), longer than 512 bytes, with a percent escape or a `+`, or
        /// in a query with a `#` or a byte that is not ASCII.
        case unusual
    }

    private static let tokenName = Array("token=".utf8)

    /// The `token` parameter of the query of `target` (its bytes).
    static func tokenParameter(_ target: UnsafeBufferPointer<UInt8>) -> TokenParameter {
        guard let q = target.firstIndex(of: UInt8(ascii: "?")) else { return .none }
        let name = Self.tokenName
        var found: Range<Int>?
        var start = q + 1
        while start <= target.count {
            var end = start
            while end < target.count, target[end] != UInt8(ascii: "&") {
                guard target[end] < 0x80, target[end] != UInt8(ascii: "#") else { return .unusual }
                end += 1
            }
            let pair = target[start..<end]
            if pair.starts(with: name) {
                guard found == nil else { return .unusual }
                found = start + name.count..<end
            } else if pair.elementsEqual(name.dropLast()) {
                return .unusual // `token` without a value: the tile route reads an empty token
            }
            start = end + 1
        }
        guard let found else { return .none }
        let value = UnsafeBufferPointer(rebasing: target[found])
        guard !value.isEmpty, value.count <= 512, !value.contains(where: { $0 == 0x25 || $0 == 0x2B }) else { return .unusual }
        return .token(String(decoding: value, as: UTF8.self))
    }
}
