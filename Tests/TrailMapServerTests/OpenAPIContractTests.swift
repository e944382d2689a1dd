import CatalogSQLite
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing
import TileGeometry
import TerrainDEM
import Trails
import TrailTerrain
import Catalog
import TrailMapAPI
@testable import TrailMapServer
import TrailMapTestSupport

/// The served OpenAPI document against the TrailMapAPI types (issue "Hardening": one contract).
/// A real session drives every `/api/v1` body through a real server; each request body is a
/// TrailMapAPI value, and each answer is (1) checked as sent against the schema the document
/// names for its path, method and status, (2) decoded into its TrailMapAPI type and encoded
/// again to the same JSON, and (3) as encoded, checked against its schema: every `required`
/// property present, no member the schema does not declare, every value of the schema's JSON
/// type. Each value's stored properties (nil ones too, by reflection) must be declared as well,
/// every component schema must have been checked with a real value, and every optional
/// property must have appeared at least once.
///
/// How it was seen to fail: adding `public var note: String? = nil` to `TileTokenGrant` (not in
/// its schema) fails (3)'s reflection check ("TileTokenGrant.note is not declared"); giving it a
/// value fails the JSON checks too; adding a component schema with no value fails the coverage
/// check. `theChecksHaveTeeth` below keeps the same cases failing in every run.
@Suite struct OpenAPIContractTests {
    /// Runs the checks and keeps what they found.
    final class Checker {
        let contract: OpenAPIContract
        let trace = OpenAPIContract.Trace()
        var problems: [String] = []

        init(contract: OpenAPIContract) { self.contract = contract }

        /// A value of the type whose schema is the component `name`, as the server or client encodes it.
        func check<T: Encodable>(_ value: T, as name: String) {
            guard let schema = contract.component(name) else { problems.append("no component \(name)"); return }
            do {
                let json = try JSONSerialization.jsonObject(with: Data(try JSONReply.bytes(value)), options: .fragmentsAllowed)
                problems += contract.violations(json, schema, at: name, trace: trace, name: name)
            } catch {
                problems.append("\(name): cannot encode \(T.self): \(error)")
            }
            let declared = Set((schema["properties"] as? [String: Any])?.keys.map { $0 } ?? [])
            if !declared.isEmpty {
                for p in Self.storedProperties(value).sorted() where !declared.contains(p) {
                    problems.append("\(name).\(p) is not declared")
                }
            }
        }

        /// A real answer: as sent, against the document's schema for it; decoded into `T`; encoded
        /// again to the same JSON; and that value against its component.
        func answer<T: Codable>(
            _ r: TestResponse, _ type: T.Type, _ method: String, _ path: String,
            _ status: HTTPResponse.Status
        ) throws -> T {
            let place = "\(method.uppercased()) \(path) \(status.code)"
            guard r.status == status else { throw Failure("\(place): got \(r.status): \(String(buffer: r.body))") }
            guard let schema = contract.responseSchema(path: path, method: method, status: String(status.code)),
                let ref = schema["$ref"] as? String
            else { throw Failure("\(place): the document has no body schema") }
            let raw = Data(Array(buffer: r.body))
            problems += contract.violations(try JSONSerialization.jsonObject(with: raw), schema, at: place, trace: trace)
            let value = try JSONDecoder().decode(T.self, from: raw)
            let again = try JSONReply.bytes(value)
            if try JSONDecoder().decode(JSONValue.self, from: Data(again)) != JSONDecoder().decode(JSONValue.self, from: raw) {
                problems.append("\(place): \(T.self) does not encode what the server sent: \(String(decoding: again, as: UTF8.self))")
            }
            check(value, as: ref.replacingOccurrences(of: "#/components/schemas/", with: ""))
            return value
        }

        /// Stored property names, by reflection (nil optionals included); a `summary` of a
        /// `ProductDetail` is flattened, as its encoding is.
        static func storedProperties(_ value: Any) -> Set<String> {
            var names = Set<String>()
            for child in Mirror(reflecting: value).children {
                guard let label = child.label else { continue }
                if label == "summary", child.value is ProductSummary {
                    names.formUnion(storedProperties(child.value))
                } else {
                    names.insert(label)
                }
            }
            return names
        }
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ d: String) { description = d }
    }

    static func send(
        _ client: some TestClientProtocol, _ method: HTTPRequest.Method, _ uri: String, token: String? = nil,
        _ body: (some Encodable)? = nil as JSONValue?
    ) async throws -> TestResponse {
        var headers: HTTPFields = [.contentType: "application/json"]
        if let token { headers[.authorization] = "Bearer \(token)" }
        return try await client.execute(
            uri: uri, method: method, headers: headers,
            body: try body.map { ByteBuffer(bytes: try JSONReply.bytes($0)) })
    }

    @Test func everyBodyKeepsToTheDocumentAndTheDocumentToTheTypes() async throws {
        let f = try await computed { try StoreFixture(coloradoLayers: ProductLevelsTests.layers) }
        let trails = try Self.publishTrailRegion(f)
        try await f.app().test(.live) { client in
            let served = StoreFixture.json(try await client.execute(uri: "/api/v1/openapi.json", method: .get))
            let c = Checker(contract: OpenAPIContract(document: served))

            // Accounts and sessions.
            let creds = Credentials(email: "ann@example.com", password: "correct horse battery")
            c.check(creds, as: "Registration")
            c.check(creds, as: "Credentials")
            let created = try c.answer(
                try await Self.send(client, .post, "/api/v1/accounts", creds), AccountCreated.self,
                "post", "/accounts", .created)
            let session = try c.answer(
                try await Self.send(client, .post, "/api/v1/sessions", creds), TrailMapAPI.Session.self,
                "post", "/sessions", .ok)
            #expect(session.accountId == created.accountId && session.appAccountToken == created.appAccountToken)
            let token = session.token

            // A device, a purchase (new, then again), an install.
            let deviceBody = DeviceRequest(name: "Ann's phone")
            c.check(deviceBody, as: "Device")
            let device = try c.answer(
                try await Self.send(client, .post, "/api/v1/devices", token: token, deviceBody),
                DeviceRegistration.self, "post", "/devices", .created)
            let sandboxBody = SandboxPurchaseRequest(productId: "colorado", appAccountToken: session.appAccountToken)
            c.check(sandboxBody, as: "SandboxPurchase")
            let signed = try c.answer(
                try await Self.send(client, .post, "/api/v1/sandbox/transactions", token: token, sandboxBody),
                SignedTransaction.self, "post", "/sandbox/transactions", .created)
            c.check(signed, as: "Purchase")
            let bought = try c.answer(
                try await Self.send(client, .post, "/api/v1/purchases", token: token, signed),
                PurchaseResult.self, "post", "/purchases", .created)
            let again = try c.answer(
                try await Self.send(client, .post, "/api/v1/purchases", token: token, signed),
                PurchaseResult.self, "post", "/purchases", .ok)
            #expect(!bought.alreadyOwned && again.alreadyOwned && again.message != nil)
            let installBody = InstallRequest(version: 1)
            c.check(installBody, as: "Install")
            _ = try c.answer(
                try await Self.send(client, .put, "/api/v1/devices/\(device.deviceId)/installs/colorado", token: token, installBody),
                InstallResult.self, "put", "/devices/{deviceId}/installs/{productId}", .ok)
            let installs = try c.answer(
                try await Self.send(client, .get, "/api/v1/installs", token: token),
                AccountInstalls.self, "get", "/installs", .ok)
            #expect(installs.productIds == ["colorado"])

            // The catalog as this device sees it (installedVersion present), and a product.
            let listing = try c.answer(
                try await Self.send(client, .get, "/api/v1/catalog?device=\(device.deviceId)", token: token),
                CatalogListing.self, "get", "/catalog", .ok)
            let colorado = try #require(listing.products.first { $0.productId == "colorado" })
            #expect(colorado.installedVersion == 1 && colorado.status == .installed && colorado.levels.count == 3)
            c.check(colorado, as: "ProductSummary")
            c.check(colorado.price, as: "Price")
            c.check(colorado.levels[0], as: "Level")
            c.check(try #require(listing.categories.first), as: "Category")
            let detail = try c.answer(
                try await Self.send(client, .get, "/api/v1/catalog/colorado?device=\(device.deviceId)", token: token),
                ProductDetail.self, "get", "/catalog/{productId}", .ok)
            #expect(detail.summary == colorado && detail.downloadURL == "/api/v1/downloads/colorado")
            c.check(detail.coverage, as: "Coverage")
            var indexed = detail
            indexed.contentHash = String(repeating: "d", count: 64)
            c.check(indexed, as: "ProductDetail")

            // A tile token, then a refund: its notification, and the entitlement revoked with a reason.
            let tokenBody = TileTokenRequest(productId: "colorado")
            c.check(tokenBody, as: "TileToken")
            _ = try c.answer(
                try await Self.send(client, .post, "/api/v1/tile-tokens", token: token, tokenBody),
                TileTokenGrant.self, "post", "/tile-tokens", .created)
            let linkBody = DownloadLinkRequest(productId: "colorado")
            c.check(linkBody, as: "DownloadLinkRequest")
            _ = try c.answer(
                try await Self.send(client, .post, "/api/v1/download-links", token: token, linkBody),
                DownloadLink.self, "post", "/download-links", .created)
            // An update from version 1 (the published one: no patches), and one with patches.
            let update = try c.answer(
                try await Self.send(client, .get, "/api/v1/updates/colorado/1", token: token),
                ProductUpdate.self, "get", "/updates/{productId}/{fromVersion}", .ok)
            #expect(update.toVersion == 1 && update.patches.isEmpty && update.patchSize == 0)
            let patched = ProductUpdate(
                productId: "colorado", fromVersion: 1, toVersion: 3, fullSize: 9_000, sha256: String(repeating: "a", count: 64),
                contentHash: String(repeating: "b", count: 64),
                patches: [
                    PatchLink(
                        fromVersion: 1, toVersion: 3, size: 700, sha256: String(repeating: "c", count: 64),
                        url: "/api/v1/downloads/colorado/patches/1-3")
                ])
            c.check(patched, as: "ProductUpdate")
            c.check(patched.patches[0], as: "PatchLink")
            let refund = SandboxNotificationRequest(notificationType: "REFUND", transactionId: bought.transactionId)
            c.check(refund, as: "SandboxNotification")
            let payload = try c.answer(
                try await Self.send(client, .post, "/api/v1/sandbox/notifications", token: token, refund),
                SignedPayload.self, "post", "/sandbox/notifications", .created)
            c.check(payload, as: "Notification")
            let handled = try c.answer(
                try await Self.send(client, .post, "/api/v1/store/notifications", payload),
                NotificationResult.self, "post", "/store/notifications", .ok)
            #expect(handled.result == .revoked)
            let owned = try c.answer(
                try await Self.send(client, .get, "/api/v1/entitlements", token: token),
                EntitlementList.self, "get", "/entitlements", .ok)
            let entitlement = try #require(owned.entitlements.first)
            #expect(entitlement.status == .revoked && entitlement.revokedReason != nil && entitlement.version == 1)
            c.check(entitlement, as: "Entitlement")

            // An area: quoted (a request of each shape), bought with a Consumable, listed and shown.
            try Self.publishAreaProduct(f)
            let circle = AreaQuoteRequest(center: [-105.5, 39.5], radiusKm: 30)
            c.check(circle, as: "AreaQuoteRequest")
            c.check(AreaQuoteRequest(bbox: [-106, 39, -105, 40], minzoom: 2, maxzoom: 4, productId: "area"), as: "AreaQuoteRequest")
            let quote = try c.answer(
                try await Self.send(client, .post, "/api/v1/areas/quotes", token: token, circle),
                AreaQuote.self, "post", "/areas/quotes", .created)
            _ = try c.answer(
                try await Self.send(client, .get, "/api/v1/areas/quotes/\(quote.quoteId)", token: token),
                AreaQuote.self, "get", "/areas/quotes/{quoteId}", .ok)
            var lowered = quote
            lowered.message = "The top zoom was lowered from 4 to 3."
            c.check(lowered, as: "AreaQuote")
            let consumable = try c.answer(
                try await Self.send(
                    client, .post, "/api/v1/sandbox/transactions", token: token,
                    SandboxPurchaseRequest(productId: quote.productId)),
                SignedTransaction.self, "post", "/sandbox/transactions", .created)
            let purchase = AreaPurchaseRequest(quoteId: quote.quoteId, signedTransaction: consumable.signedTransaction)
            c.check(purchase, as: "AreaPurchase")
            let area = try c.answer(
                try await Self.send(client, .post, "/api/v1/areas", token: token, purchase),
                AreaPurchaseResult.self, "post", "/areas", .created)
            let withAreas = try c.answer(
                try await Self.send(client, .get, "/api/v1/catalog", token: token),
                CatalogListing.self, "get", "/catalog", .ok)
            let offer = try #require(withAreas.products.first { $0.productId == "area" })
            #expect(offer.kind == .areaProduct && offer.area?.sources == ["co", "ut"])
            c.check(try #require(offer.area), as: "AreaTerms")
            let areaDetail = try c.answer(
                try await Self.send(client, .get, "/api/v1/catalog/\(area.areaId)", token: token),
                ProductDetail.self, "get", "/catalog/{productId}", .ok)
            #expect(areaDetail.summary.kind == .area && areaDetail.summary.areaOf == "area")
            let offerDetail = try c.answer(
                try await Self.send(client, .get, "/api/v1/catalog/area", token: token),
                ProductDetail.self, "get", "/catalog/{productId}", .ok)
            #expect(offerDetail.summary.area?.maxBytes == 1_000_000 && offerDetail.previewTileURL.contains("/tiles/co/"))
            let uncovered = try c.answer(
                try await Self.send(
                    client, .post, "/api/v1/areas/quotes", token: token,
                    AreaQuoteRequest(center: [10, 50], radiusKm: 5)),
                APIErrorBody.self, "post", "/areas/quotes", .notFound)
            c.check(try #require(uncovered.error.nearby?.first), as: "NearbyRegion")
            c.check(APIErrorBody(code: "area_too_large", message: "larger than the cap", largestRadiusKm: 2.5), as: "Error")

            // Trails: a page near a place, and one trail with its line.
            let page = try c.answer(
                try await Self.send(client, .get, "/api/v1/trails?near=Estes%20Park&radiusKm=15&limit=2"),
                TrailSearchResult.self, "get", "/trails", .ok)
            #expect(page.trails.count == 2 && page.nextCursor != nil && page.place?.name == "Estes Park")
            let rest = try c.answer(
                try await Self.send(client, .get, "/api/v1/trails?near=Estes%20Park&radiusKm=15&limit=2&cursor=\(page.nextCursor ?? "")"),
                TrailSearchResult.self, "get", "/trails", .ok)
            #expect(rest.trails.count == 2 && rest.nextCursor == nil)
            let trailDetail = try c.answer(
                try await Self.send(client, .get, "/api/v1/trails/\(trails[0].id)"), TrailDetail.self,
                "get", "/trails/{trailId}", .ok)
            #expect(trailDetail.geometry != nil && trailDetail.gpxURL != nil && trailDetail.trail.products.first?.owned == true)
            let rocky = try c.answer(
                try await Self.send(client, .get, "/api/v1/catalog/rocky"), ProductDetail.self,
                "get", "/catalog/{productId}", .ok)
            #expect(rocky.trails?.count == 4 && rocky.trails?.byDifficulty["easy"] == 1 && rocky.trails?.longest.count == 4)

            // Elevation and profiles over the free terrain published with the trails.
            let heights = try c.answer(
                try await Self.send(client, .get, "/api/v1/elevation?points=40.32,-105.6;0,0"), ElevationAnswer.self,
                "get", "/elevation", .ok)
            #expect(heights.points.count == 2 && heights.points[0].elevationM != nil && heights.points[1].elevationM == nil)
            struct LineString: Codable { var type = "LineString", coordinates: [[Double]] }
            struct Feature: Codable { var type = "Feature", properties: [String: String] = [:], geometry: LineString }
            let lineString = LineString(coordinates: [[-105.6, 40.30], [-105.6, 40.31]])
            let feature = Feature(geometry: lineString)
            c.check(lineString, as: "ProfileLineString")
            c.check(feature, as: "ProfileFeature")
            c.check(lineString, as: "ProfileRequest")
            let drawn = try c.answer(
                try await Self.send(client, .post, "/api/v1/profile?spacingM=100", feature), ProfileAnswer.self,
                "post", "/profile", .ok)
            #expect(drawn.samples.count > 2 && drawn.ascentM > 0)
            let trailProfile = try c.answer(
                try await Self.send(client, .get, "/api/v1/trails/\(trails[0].id)/profile"), ProfileAnswer.self,
                "get", "/trails/{trailId}/profile", .ok)
            #expect(trailProfile.samples.first?.gradePct == nil)

            // An error.
            let missing = try c.answer(
                try await Self.send(client, .get, "/api/v1/catalog/nope"), APIErrorBody.self,
                "get", "/catalog/{productId}", .notFound)
            #expect(missing.error.code == "unknown_product")

            #expect(c.problems == [])
            // Every schema of the document was checked with a real value...
            #expect(c.contract.componentNames.subtracting(c.trace.schemas).sorted() == [])
            // ...and every optional property appeared in one.
            for name in c.contract.componentNames.sorted() {
                let schema = try #require(c.contract.component(name))
                let declared = Set((schema["properties"] as? [String: Any])?.keys.map { $0 } ?? [])
                let unseen = declared.subtracting(c.trace.members[name] ?? [])
                #expect(unseen.isEmpty, "\(name): no checked value had \(unseen.sorted())")
            }
        }
    }

    /// Publishes a free region whose bundle holds `TrailRoutesTests`' Colorado trails, and a place list.
    static func publishTrailRegion(_ f: StoreFixture) throws -> [TrailRecord] {
        let bundle = try f.tiles.bundle("rocky")
        var lines = TrailRoutesTests.coloradoLines
        lines[0].tags["ref"] = "E1"
        lines[0].tags["surface"] = "dirt"
        let records = try TrailRoutesTests.addTrails(lines, to: bundle, dir: f.tiles.dir)
        // The trails' ascent and grades from the terrain's DEM (as a build with terrain stores them).
        try TerrainProducts.ramp(
            "rocky-terrain", in: f, bounds: GeoBounds(west: -105.70, south: 40.24, east: -105.50, north: 40.42),
            lat0: 40.3, base: 2500)
        let filled = try TrailElevationFill.fill(bundle: bundle, from: try DEMSampler(path: f.tiles.dir.file("rocky-terrain-dem.tif")))
        #expect(filled.filled > 0)
        let file = f.tiles.dir.file("rocky.json")
        let entry: [String: Any] = [
            "productId": "rocky", "title": "Rocky Mountain", "category": "Parks", "price": ["amount": "0", "currency": "USD"],
            "bundle": "rocky.mbtiles"
        ]
        try JSONSerialization.data(withJSONObject: ["products": [entry]]).write(to: URL(fileURLWithPath: file))
        _ = try f.catalog.publish(try ProductFile.load(path: file), tilesDirectory: f.tiles.dir.path)
        try TerrainProducts.publish([("rocky-terrain", "0", "rocky-terrain")], in: f)
        try Gazetteer.write(
            [Place(name: "Estes Park", lon: -105.5217, lat: 40.3772, population: 5904)],
            to: Gazetteer.defaultPath(tilesDirectory: f.tiles.dir.path))
        return records.sorted { $0.id < $1.id }
    }

    /// Publishes an area product cutting from the fixture's two state bundles.
    static func publishAreaProduct(_ f: StoreFixture) throws {
        let file = f.tiles.dir.file("areas.json")
        let entry: [String: Any] = [
            "productId": "area", "title": "Area around you", "category": "Areas",
            "price": ["amount": "0.99", "currency": "USD"], "area": ["maxBytes": 1_000_000, "from": ["co.mbtiles", "ut.mbtiles"]]
        ]
        try JSONSerialization.data(withJSONObject: ["products": [entry]]).write(to: URL(fileURLWithPath: file))
        _ = try f.catalog.publish(try ProductFile.load(path: file), tilesDirectory: f.tiles.dir.path)
    }

    /// The checks fail on what they are for: a member the schema does not declare (set or nil),
    /// a required one missing, a value of the wrong JSON type.
    @Test func theChecksHaveTeeth() async throws {
        let f = try await computed { try StoreFixture() }
        try await f.app().test(.live) { client in
            let c = Checker(
                contract: OpenAPIContract(document: StoreFixture.json(try await client.execute(uri: "/api/v1/openapi.json", method: .get))))
            /// `TileTokenGrant` with one more field, as if someone added it without documenting it.
            struct Grown: Codable {
                var token = "t", expiresAt = "2026-11-22T01:02:03Z", tilesURL = "/tiles/x/{z}/{x}/{y}.png"
                var note: String?
            }
            c.check(Grown(), as: "TileTokenGrant")
            #expect(c.problems == ["TileTokenGrant.note is not declared"], "a nil property is found by reflection")
            c.problems = []
            c.check(Grown(note: "x"), as: "TileTokenGrant")
            #expect(c.problems.count == 2 && c.problems.allSatisfy { $0.hasSuffix("note is not declared") })
            c.problems = []
            c.check(["token": "t", "expiresAt": "2026-11-22T01:02:03Z"] as [String: String], as: "TileTokenGrant")
            #expect(c.problems == ["TileTokenGrant: missing tilesURL"])
            c.problems = []
            c.check(["version": "1"] as [String: String], as: "Install")
            #expect(c.problems == ["Install.version: expected integer, found 1"])
        }
    }
}
