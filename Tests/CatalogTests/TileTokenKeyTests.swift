import Catalog
import Foundation
import Testing
import TrailMapTestSupport

/// Tile-token keys rotate, are shared by every server on one catalog, and can all be revoked
/// (issue "Hardening", low finding: "the tile-token key never rotates"), on both backends.
@Suite struct TileTokenKeyTests {
    static let session = "0123456789abcdef"

    @Test(arguments: Backend.allCases)
    func keysRotateAndAReplacedKeyChecksItsTokensUntilTheyExpire(_ backend: Backend) async throws {
        let f = try await CatalogFixture(backend)
        let tokens = TileTokens(catalog: f.store, lifetime: 3600, rotateAfter: 86_400)
        let t0 = Date(timeIntervalSince1970: 2_000_000_000)
        let first = try await tokens.issue(accountID: "a1", productID: "colorado", session: Self.session, now: t0)
        let keyOfFirst = first.token.split(separator: ".")[0]

        // A day and a bit later a new key signs; the old token (signed 59 minutes before the
        // rotation) is still checked by the old key until it expires.
        let later = t0.addingTimeInterval(86_400 + 10)
        let lastOld = try await tokens.issue(
            accountID: "a1", productID: "colorado", session: Self.session,
            now: t0.addingTimeInterval(86_400 - 3540))
        let second = try await tokens.issue(accountID: "a1", productID: "colorado", session: Self.session, now: later)
        #expect(second.token.split(separator: ".")[0] != keyOfFirst, "a new key after rotateAfter")
        #expect(lastOld.token.split(separator: ".")[0] == keyOfFirst)
        #expect(try await tokens.holder(of: lastOld.token, productID: "colorado", now: later)?.accountID == "a1")
        #expect(try await f.store.tileTokenKeys(now: later, rotateAfter: 86_400, keep: 3600).count == 2)

        // Once no token of the old key can be valid, the key is gone.
        let muchLater = later.addingTimeInterval(3600 + 20)
        let keys = try await f.store.tileTokenKeys(now: muchLater, rotateAfter: 86_400, keep: 3600)
        #expect(keys.map { String($0.id) } == [String(second.token.split(separator: ".")[0])])
    }

    @Test(arguments: Backend.allCases)
    func aTokenFromOneServerOpensTilesOnAnotherAndRevocationEndsThemAll(_ backend: Backend) async throws {
        let f = try await CatalogFixture(backend)
        let serverA = TileTokens(catalog: f.store), serverB = TileTokens(catalog: f.store)
        let now = Date()
        let t = try await serverA.issue(accountID: "a1", productID: "colorado", session: Self.session, now: now)
        #expect(try await serverB.holder(of: t.token, productID: "colorado", now: now)?.accountID == "a1")

        // B signs with a key A has not seen (A reloads for an unknown, newer key id).
        let fresh = try await f.store.revokeTileTokenKeys(now: now)
        #expect(try await f.store.tileTokenKeys(now: now, rotateAfter: 86_400, keep: 3600).map(\.id) == [fresh.id], "every old key is gone")
        #expect(try await f.store.auditLog(limit: 100).map(\.action) == ["revoke_tile_token_keys"])
        let fromB = try await TileTokens(catalog: f.store).issue(accountID: "a2", productID: "colorado", session: Self.session, now: now)
        #expect(try await serverA.holder(of: fromB.token, productID: "colorado", now: now)?.accountID == "a2")
        // Revoked: the old token fails at once on a server that reloaded, and on every server
        // after the refresh interval.
        #expect(try await serverA.holder(of: t.token, productID: "colorado", now: now) == nil)
        let afterRefresh = now.addingTimeInterval(TileTokens.refreshInterval + 1)
        #expect(try await serverB.holder(of: t.token, productID: "colorado", now: afterRefresh) == nil)
    }

    @Test(arguments: Backend.allCases)
    func malformedTokensAreRefused(_ backend: Backend) async throws {
        let f = try await CatalogFixture(backend)
        let tokens = TileTokens(catalog: f.store)
        let now = Date()
        let t = try await tokens.issue(accountID: "a1", productID: "colorado", session: Self.session, now: now)
        let parts = t.token.split(separator: ".").map(String.init)
        for bad in [
            parts[1] + "." + parts[2], "x." + parts[1] + "." + parts[2], "999." + parts[1] + "." + parts[2],
            parts[0] + "." + parts[1] + "." + parts[2] + "A", "", "...", String(repeating: "1", count: 600)
        ] {
            #expect(try await tokens.holder(of: bad, productID: "colorado", now: now) == nil, "\(bad.prefix(40))")
        }
    }
}
