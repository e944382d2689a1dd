import Areas
import Catalog
import CatalogSQLite
import StoreVerification
import Crypto
import Essentials
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Raster
import Synchronization
import Testing
import TileGeometry
import TileStore
@testable import TrailMapServer
import TrailMapAPI
import TrailMapTestSupport

/// Areas on demand through the real server: quotes at their exact size, the cap, areas across
/// two bundles, buying with Consumable transactions, the area's life as a region, bad input.
@Suite struct AreaRoutesTests {
    static func quote(_ user: APIUser, _ body: [String: Any]) async throws -> TestResponse {
        try await user.call(.post, "/api/v1/areas/quotes", body)
    }

    /// Buys a quote with a Consumable the sandbox signs for its product.
    static func buy(_ user: APIUser, quote: [String: Any]) async throws -> TestResponse {
        let t = try await user.call(.post, "/api/v1/sandbox/transactions", ["productId": quote["productId"] as? String ?? ""])
        let jws = StoreFixture.json(t)["signedTransaction"] as? String ?? ""
        return try await user.call(.post, "/api/v1/areas", ["quoteId": quote["quoteId"] as? String ?? "", "signedTransaction": jws])
    }

    static func fileBytes(_ path: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path)) }

    @Test func anAreaIsQuotedAtItsExactSizeBoughtDownloadedInstalledAndRefunded() async throws {
        let f = try await computed { try AreaFixture() }
        try await f.store.app().test(.live) { client in
            let ann = try await APIUser.register(client, email: "ann@example.com")
            let bob = try await APIUser.register(client, email: "bob@example.com")
            let r = try await Self.quote(ann, ["center": [-105.5, 40.0], "radiusKm": 8, "productId": "area"])
            #expect(r.status == .created, "\(StoreFixture.json(r))")
            let q = StoreFixture.json(r)
            let quoteID = try #require(q["quoteId"] as? String)
            #expect(q["minzoom"] as? Int == 6 && q["maxzoom"] as? Int == 11 && q["requestedMaxzoom"] as? Int == 11 && q["message"] == nil)
            // The quoted size is the cut bundle's size, byte for byte.
            let file = f.store.tiles.dir.file(".trailmap-areas/\(quoteID).mbtiles")
            let cut = try Self.fileBytes(file)
            #expect(q["size"] as? Int == cut.count)
            let tiles = try TestBundle.tiles(file)
            #expect(q["tiles"] as? Int == tiles.count && tiles.count > 10)
            #expect(Set(tiles.keys.map(\.z)) == Set(6...11))
            let bounds = try #require(q["bounds"] as? [Double])
            let box = GeoBounds(west: bounds[0], south: bounds[1], east: bounds[2], north: bounds[3])
            #expect(tiles.keys.allSatisfy { TileRange(bounds: box, zoom: $0.z).contains($0) })
            // Nobody else can see or buy the quote.
            #expect(try await bob.call(.get, "/api/v1/areas/quotes/\(quoteID)").status == .notFound)
            #expect(try await ann.call(.get, "/api/v1/areas/quotes/\(quoteID)").status == .ok)

            let bought = try await Self.buy(ann, quote: q)
            #expect(bought.status == .created, "\(StoreFixture.json(bought))")
            let area = StoreFixture.json(bought)
            let areaID = try #require(area["areaId"] as? String)
            #expect(
                area["size"] as? Int == cut.count && area["productId"] as? String == "area" && area["alreadyRecorded"] as? Bool == false)
            #expect(area["sha256"] as? String == SHA256.hash(data: cut).map { String(format: "%02x", $0) }.joined())

            // The area downloads like a region, resumable; it is ann's alone.
            let whole = try await ann.call(.get, "/api/v1/downloads/\(areaID)")
            #expect(whole.status == .ok && Data(Array(buffer: whole.body)) == cut)
            let tail = try await ann.call(.get, "/api/v1/downloads/\(areaID)", headers: [.range: "bytes=1000-"])
            #expect(tail.status == .partialContent && Data(Array(buffer: tail.body)) == cut.dropFirst(1000))
            #expect(try await bob.call(.get, "/api/v1/downloads/\(areaID)").status == .forbidden)
            #expect(try await bob.call(.get, "/api/v1/catalog/\(areaID)").status == .notFound)
            let bobs = StoreFixture.json(try await bob.call(.get, "/api/v1/catalog"))["products"] as? [[String: Any]] ?? []
            #expect(!bobs.contains { $0["productId"] as? String == areaID })
            let anns = StoreFixture.json(try await ann.call(.get, "/api/v1/catalog"))["products"] as? [[String: Any]] ?? []
            let listed = try #require(anns.first { $0["productId"] as? String == areaID })
            #expect(
                listed["kind"] as? String == "area" && listed["areaOf"] as? String == "area" && listed["status"] as? String == "purchased")
            #expect(anns.first { $0["productId"] as? String == "area" }?["kind"] as? String == "area_product")
            let owned = StoreFixture.json(try await ann.call(.get, "/api/v1/entitlements"))["entitlements"] as? [[String: Any]] ?? []
            #expect(owned.first { $0["productId"] as? String == areaID }?["size"] as? Int == cut.count)

            // Installed on two devices (the second a restore), uninstalled, reinstalled.
            for name in ["phone", "tablet"] {
                let device = StoreFixture.json(try await ann.call(.post, "/api/v1/devices", ["name": name]))["deviceId"] as? String ?? ""
                #expect(try await ann.call(.put, "/api/v1/devices/\(device)/installs/\(areaID)", ["version": 1]).status == .ok)
                #expect(try await ann.call(.delete, "/api/v1/devices/\(device)/installs/\(areaID)").status == .noContent)
                #expect(try await ann.call(.put, "/api/v1/devices/\(device)/installs/\(areaID)", ["version": 1]).status == .ok)
            }
            // The same transaction posted again is the same area.
            let transactionID = try #require(area["transactionId"] as? String)
            #expect(
                try f.store.catalog.entitlements(account: try f.store.catalog.authenticate(token: ann.token)).filter {
                    $0.productId == areaID
                }.count == 1)

            // A refund revokes it.
            let refund = try await ann.call(
                .post, "/api/v1/sandbox/notifications", ["notificationType": "REFUND", "transactionId": transactionID])
            let payload = StoreFixture.json(refund)["signedPayload"] as? String ?? ""
            #expect(
                try await client.execute(
                    uri: "/api/v1/store/notifications", method: .post, headers: [.contentType: "application/json"],
                    body: StoreFixture.body(["signedPayload": payload])
                ).status == .ok)
            #expect(try await ann.call(.get, "/api/v1/downloads/\(areaID)").status == .forbidden)
        }
    }

    @Test func anAreaAcrossTwoBundlesHoldsBoth() async throws {
        let f = try await computed { try AreaFixture() }
        try await f.store.app().test(.live) { client in
            let ann = try await APIUser.register(client, email: "ann@example.com")
            let r = try await Self.quote(ann, ["center": [-105.0, 40.0], "radiusKm": 12, "productId": "area"])
            #expect(r.status == .created, "\(StoreFixture.json(r))")
            let quoteID = try #require(StoreFixture.json(r)["quoteId"] as? String)
            let tiles = try TestBundle.tiles(f.store.tiles.dir.file(".trailmap-areas/\(quoteID).mbtiles"))
            let west = try TestBundle.tiles(f.store.tiles.dir.file("west.mbtiles"))
            let east = try TestBundle.tiles(f.store.tiles.dir.file("east.mbtiles"))
            // Tiles of one bundle are its bytes; tiles on the shared edge hold both colours, opaque.
            var shared = 0
            for (t, data) in tiles {
                switch (west[t], east[t]) {
                case let (w?, nil): #expect(w == data)
                case let (nil, e?): #expect(e == data)
                case (_?, _?):
                    shared += 1
                    let image = try TileDecoder.decode([UInt8](data))
                    let px = stride(from: 0, to: image.pixels.count, by: 4).map {
                        (image.pixels[$0], image.pixels[$0 + 2], image.pixels[$0 + 3])
                    }
                    #expect(
                        px.contains { $0.0 == 200 && $0.2 == 255 } && px.contains { $0.1 == 200 && $0.2 == 255 }, "red and blue in \(t)")
                    let westOnly = try TileDecoder.decode([UInt8](try #require(west[t])))
                    #expect(
                        zip(stride(from: 3, to: image.pixels.count, by: 4), stride(from: 3, to: westOnly.pixels.count, by: 4))
                            .allSatisfy { image.pixels[$0.0] >= westOnly.pixels[$0.1] }, "nothing of the west tile is lost")
                default: Issue.record("\(t) is in neither bundle")
                }
            }
            #expect(shared >= 6, "one edge tile a zoom at least")
            #expect(
                tiles.keys.contains { west[$0] != nil && east[$0] == nil } && tiles.keys.contains { east[$0] != nil && west[$0] == nil })
        }
    }

    @Test func theCapLowersTheTopZoomOrRefusesWithTheLargestRadiusThatFits() async throws {
        let f = try await computed { try AreaFixture() }
        try await f.store.app().test(.live) { client in
            let ann = try await APIUser.register(client, email: "ann@example.com")
            let lowered = try await Self.quote(ann, ["center": [-105.4, 40.0], "radiusKm": 30, "productId": "area-small"])
            #expect(lowered.status == .created, "\(StoreFixture.json(lowered))")
            let q = StoreFixture.json(lowered)
            let top = try #require(q["maxzoom"] as? Int)
            #expect(top < 11 && q["requestedMaxzoom"] as? Int == 11 && (q["message"] as? String)?.contains("lowered") == true)
            #expect((q["size"] as? Int).map { $0 <= AreaFixture.smallCap } == true)
            let file = f.store.tiles.dir.file(".trailmap-areas/\(q["quoteId"] as? String ?? "").mbtiles")
            #expect(try Self.fileBytes(file).count == q["size"] as? Int)
            #expect(try TestBundle.tiles(file).keys.map(\.z).max() == top)

            // The top zoom fixed: refused, with the largest radius that fits; that radius is quoted.
            let refused = try await Self.quote(ann, ["center": [-105.4, 40.0], "radiusKm": 30, "maxzoom": 11, "productId": "area-small"])
            #expect(refused.status == .unprocessableContent && StoreFixture.errorCode(refused) == "area_too_large")
            let radius = try #require((StoreFixture.json(refused)["error"] as? [String: Any])?["largestRadiusKm"] as? Double)
            #expect(radius > 0 && radius < 30)
            let fits = try await Self.quote(ann, ["center": [-105.4, 40.0], "radiusKm": radius, "maxzoom": 11, "productId": "area-small"])
            #expect(fits.status == .created, "\(StoreFixture.json(fits))")
            #expect((StoreFixture.json(fits)["size"] as? Int).map { $0 <= AreaFixture.smallCap } == true)
            #expect(StoreFixture.json(fits)["maxzoom"] as? Int == 11)
            // Without a product, the one that keeps every zoom is chosen.
            let best = try await Self.quote(ann, ["center": [-105.4, 40.0], "radiusKm": 30])
            #expect(StoreFixture.json(best)["productId"] as? String == "area" && StoreFixture.json(best)["maxzoom"] as? Int == 11)
        }
    }

    @Test func badInputGetsAClearErrorAndRecordsNothing() async throws {
        let f = try await computed { try AreaFixture() }
        try await f.store.app().test(.live) { client in
            let ann = try await APIUser.register(client, email: "ann@example.com")
            let bob = try await APIUser.register(client, email: "bob@example.com")
            for body: [String: Any] in [
                ["center": [-105.5, 40.0], "radiusKm": 0], ["center": [-105.5, 40.0], "radiusKm": -3],
                ["center": [-105.5, 40.0], "radiusKm": 5000], ["center": [-105.5, 40.0]],
                ["center": [-105.5, 40.0], "radiusKm": 5, "bbox": [-106, 39, -105, 40]], ["center": [-105.5], "radiusKm": 5],
                ["center": [-105.5, 91], "radiusKm": 5], ["bbox": [-105, 40, -106, 41]],
                ["center": [-105.5, 40.0], "radiusKm": 5, "minzoom": 9, "maxzoom": 7],
                ["center": [-105.5, 40.0], "radiusKm": 5, "maxzoom": 14, "productId": "area"],
                ["center": [-105.5, 40.0], "radiusKm": 5, "maxzoom": 14],
                ["center": [-105.5, 40.0], "radiusKm": 5, "productId": "west"]
            ] {
                let r = try await Self.quote(ann, body)
                #expect(
                    r.status == .unprocessableContent && ["invalid_area", "not_an_area_product"].contains(StoreFixture.errorCode(r)),
                    "\(body): \(StoreFixture.json(r))")
            }
            #expect(
                try await client.execute(
                    uri: "/api/v1/areas/quotes", method: .post, headers: [.contentType: "application/json"],
                    body: StoreFixture.body(["center": [-105.5, 40.0], "radiusKm": 5])
                ).status == .unauthorized)
            #expect(try await Self.quote(ann, ["center": [-105.5, 40.0], "radiusKm": 5, "productId": "nothing"]).status == .notFound)
            // Far from every area product: 404 with the regions nearest, nearest first.
            let far = try await Self.quote(ann, ["center": [-98.0, 40.0], "radiusKm": 5])
            #expect(far.status == .notFound && StoreFixture.errorCode(far) == "area_not_covered")
            let nearby = (StoreFixture.json(far)["error"] as? [String: Any])?["nearby"] as? [[String: Any]] ?? []
            let distances = nearby.compactMap { $0["distanceKm"] as? Double }
            #expect(nearby.first?["productId"] as? String != nil && distances == distances.sorted() && distances.count == nearby.count)
            #expect(nearby.contains { $0["productId"] as? String == "east" } && !nearby.contains { $0["productId"] as? String == "base" })

            let q = StoreFixture.json(try await Self.quote(ann, ["center": [-105.5, 40.0], "radiusKm": 5, "productId": "area"]))
            let quoteID = try #require(q["quoteId"] as? String)
            // A Non-Consumable for the area product, a Consumable posted as a region purchase.
            let nonConsumable = try f.store.sandbox.signTransaction(
                productId: "area", appAccountToken: UUID(uuidString: ann.appAccountToken)
            ).jws
            let r1 = try await ann.call(.post, "/api/v1/areas", ["quoteId": quoteID, "signedTransaction": nonConsumable])
            #expect(r1.status == .forbidden && StoreFixture.errorCode(r1) == "invalid_transaction")
            #expect(try await ann.call(.post, "/api/v1/purchases", ["signedTransaction": nonConsumable]).status == .unprocessableContent)
            let consumable = try f.store.sandbox.signTransaction(
                productId: "area", appAccountToken: UUID(uuidString: ann.appAccountToken),
                type: "Consumable"
            ).jws
            #expect(try await ann.call(.post, "/api/v1/purchases", ["signedTransaction": consumable]).status == .forbidden)
            // Another account's quote, a made-up one, a transaction for another area product.
            #expect(
                try await bob.call(.post, "/api/v1/areas", ["quoteId": quoteID, "signedTransaction": consumable]).status == .forbidden,
                "ann's appAccountToken")
            let bobs = try f.store.sandbox.signTransaction(
                productId: "area", appAccountToken: UUID(uuidString: bob.appAccountToken), type: "Consumable"
            ).jws
            let foreign = try await bob.call(.post, "/api/v1/areas", ["quoteId": quoteID, "signedTransaction": bobs])
            #expect(foreign.status == .notFound && StoreFixture.errorCode(foreign) == "unknown_quote")
            #expect(
                try await ann.call(
                    .post, "/api/v1/areas", ["quoteId": "q" + String(repeating: "0", count: 24), "signedTransaction": consumable]
                ).status == .notFound)
            let small = try f.store.sandbox.signTransaction(
                productId: "area-small", appAccountToken: UUID(uuidString: ann.appAccountToken), type: "Consumable"
            ).jws
            let wrong = try await ann.call(.post, "/api/v1/areas", ["quoteId": quoteID, "signedTransaction": small])
            #expect(wrong.status == .unprocessableContent && StoreFixture.errorCode(wrong) == "wrong_product")
            let account = try f.store.catalog.authenticate(token: ann.token)
            #expect(try f.store.catalog.entitlements(account: account).isEmpty, "nothing recorded")

            // Bought once; the transaction cannot buy another quote, the quote not twice.
            #expect(try await ann.call(.post, "/api/v1/areas", ["quoteId": quoteID, "signedTransaction": consumable]).status == .created)
            #expect(try await ann.call(.post, "/api/v1/areas", ["quoteId": quoteID, "signedTransaction": consumable]).status == .ok)
            let q2 = StoreFixture.json(try await Self.quote(ann, ["center": [-105.6, 40.1], "radiusKm": 5, "productId": "area"]))
            let reused = try await ann.call(
                .post, "/api/v1/areas", ["quoteId": q2["quoteId"] as? String ?? "", "signedTransaction": consumable])
            #expect(reused.status == .conflict && StoreFixture.errorCode(reused) == "transaction_used")
            let again = try await Self.buy(ann, quote: q)
            #expect(again.status == .conflict && StoreFixture.errorCode(again) == "quote_used")
            // An expired quote.
            let old = AreaQuoteRecord(
                id: AreaQuoteRecord.newID(), accountId: account.id, productId: "area", title: "old", bundlePath: "/nowhere",
                size: 1, sha256: "", tiles: 1, minZoom: 6, maxZoom: 6, requestedMaxZoom: 6, bounds: AreaFixture.west,
                createdAt: Date().addingTimeInterval(-3600), expiresAt: Date().addingTimeInterval(-60))
            _ = try f.store.catalog.saveAreaQuote(old, keepPerAccount: 8)
            #expect(try await ann.call(.get, "/api/v1/areas/quotes/\(old.id)").status == .gone)
            let expired = try await Self.buy(ann, quote: ["quoteId": old.id, "productId": "area"])
            #expect(expired.status == .gone && StoreFixture.errorCode(expired) == "quote_expired")
            #expect(try f.store.catalog.entitlements(account: account).count == 1)
        }
    }

    /// Unbought quotes' cut bundles share one space on the server, whatever the account: a quote
    /// that could pass it answers 503 with Retry-After until a quote is bought (or expires).
    @Test func unboughtQuotesShareOneSpace() async throws {
        let f = try await computed { try AreaFixture() }
        try await f.store.app(areaQuoteSpace: AreaFixture.smallCap).test(.live) { client in
            let ann = try await APIUser.register(client, email: "ann@example.com")
            let bob = try await APIUser.register(client, email: "bob@example.com")
            let ask: [String: Any] = ["center": [-105.5, 40.0], "radiusKm": 2, "productId": "area-small"]
            let first = try await Self.quote(ann, ask)
            #expect(first.status == .created, "\(StoreFixture.json(first))")
            for (user, product) in [(ann, "area-small"), (bob, "area-small"), (bob, "area")] {
                var body = ask
                body["productId"] = product
                let full = try await Self.quote(user, body)
                #expect(
                    full.status == .serviceUnavailable && StoreFixture.errorCode(full) == "busy", "\(product): \(StoreFixture.json(full))")
                #expect(full.headers[.retryAfter] == "60")
                #expect(
                    (StoreFixture.json(full)["error"] as? [String: Any])?["message"] as? String ?? ""
                        == AreaError.quotesFull(retryAfter: 60).description)
            }
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: f.store.tiles.dir.file(".trailmap-areas")).count == 1,
                "nothing cut for the refused quotes")
            // Bought, the first quote's bundle is an area: the space is free again.
            #expect(try await Self.buy(ann, quote: StoreFixture.json(first)).status == .created)
            #expect(try await Self.quote(bob, ask).status == .created)
        }
    }

    /// Hardening round 3, finding 1: quoting is rated per account, so one account cannot keep the
    /// server's cutting slots busy; another account still quotes.
    @Test func quotesAreRatedPerAccount() async throws {
        let f = try await computed { try AreaFixture() }
        var fairness = AreaQuoteFairness()
        fairness.quotesPerAccount = 2
        try await f.store.app(fairness: fairness).test(.live) { client in
            let ann = try await APIUser.register(client, email: "ann@example.com")
            let bob = try await APIUser.register(client, email: "bob@example.com")
            let ask: [String: Any] = ["center": [-105.5, 40.0], "radiusKm": 2, "productId": "area-small"]
            for _ in 0..<2 { #expect(try await Self.quote(ann, ask).status == .created) }
            let refused = try await Self.quote(ann, ask)
            #expect(
                refused.status == .tooManyRequests && StoreFixture.errorCode(refused) == "too_many_quotes", "\(StoreFixture.json(refused))")
            #expect(Int(refused.headers[.retryAfter] ?? "") ?? 0 > 0)
            #expect(try await Self.quote(bob, ask).status == .created)
        }
    }

    /// A quote's cut bundle is hashed once: the quoting tells the server's download check the
    /// file's identity and SHA-256 as they were hashed.
    @Test func aQuoteTellsItsCutFilesIdentityAndHash() async throws {
        let f = try await computed { try AreaFixture() }
        let told = Mutex<[(String, FileStat, String)]>([])
        let quoting = AreaQuoting(catalog: f.store.catalog, tilesDirectory: f.store.tiles.dir.path) { path, identity, sha256 in
            told.withLock { $0.append((path, identity, sha256)) }
        }
        _ = try f.store.catalog.register(email: "ann@example.com", password: "correct horse battery")
        let account = try f.store.catalog.login(email: "ann@example.com", password: "correct horse battery").account
        let q = try await quoting.quote(AreaQuoteRequest(center: [-105.5, 40.0], radiusKm: 5, productId: "area"), account: account).quote
        let (path, identity, sha) = try #require(told.withLock { $0.first })
        #expect(told.withLock { $0.count } == 1)
        #expect(path == q.bundlePath && sha == q.sha256 && identity == FileStat(path: path) && identity.size == q.size)
        #expect(try FileSHA256.digest(path: path).hex == sha)
    }
}
