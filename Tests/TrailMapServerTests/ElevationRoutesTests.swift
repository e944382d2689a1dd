import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import TerrainDEM
import Trails
import TrailTerrain
@testable import TrailMapServer
import TrailMapTestSupport

/// `GET /api/v1/elevation`, `POST /api/v1/profile`, `GET /api/v1/trails/{id}/profile` on a real
/// server (socket), over terrain bundles made by GDAL: a free one and a paid one.
@Suite struct ElevationRoutesTests {
    static func get(_ client: any TestClientProtocol, _ path: String, token: String? = nil) async throws -> TestResponse {
        try await client.execute(uri: path, method: .get, headers: token.map { [.authorization: "Bearer \($0)"] } ?? [:])
    }

    static func post(_ client: any TestClientProtocol, _ path: String, _ body: Any) async throws -> TestResponse {
        try await client.execute(uri: path, method: .post, headers: [.contentType: "application/json"], body: StoreFixture.body(body))
    }

    static func elevations(_ r: TestResponse) -> [Double?] {
        (StoreFixture.json(r)["points"] as? [[String: Any]] ?? []).map { $0["elevationM"] as? Double }
    }

    static func message(_ r: TestResponse) -> String {
        ((StoreFixture.json(r)["error"] as? [String: Any])?["message"] as? String) ?? ""
    }

    /// The free terrain answers everyone; the paid one its buyers only (401 anonymous, 403 not
    /// entitled, 200 after the purchase), as its tiles do. A point on paid terrain asked with
    /// one on free terrain is null for a caller who may not read the paid one.
    @Test func entitlementFollowsTheTiles() async throws {
        let (f, _, _) = try await computed { try TerrainProducts.fixture() }
        try await f.app().test(.live) { client in
            let free = try await Self.get(client, "/api/v1/elevation?points=38.005,-104.01")
            #expect(free.status == .ok)
            let e = try #require(Self.elevations(free).first ?? nil)
            #expect(abs(e - 1550) < 0.5, "\(e)")

            let paidPath = "/api/v1/elevation?points=40.32,-105.6"
            #expect(try await Self.get(client, paidPath).status == .unauthorized)
            #expect(try await client.execute(uri: "/tiles/co-terrain/12/0/0.png", method: .get).status == .unauthorized)
            let ann = try await APIUser.register(client, email: "ann@example.com")
            let refused = try await Self.get(client, paidPath, token: ann.token)
            #expect(refused.status == .forbidden)
            let mixed = try await Self.get(client, "/api/v1/elevation?points=40.32,-105.6;38.005,-104.01", token: ann.token)
            #expect(mixed.status == .ok)
            #expect(Self.elevations(mixed).first! == nil && Self.elevations(mixed).last! != nil)

            #expect(try await ann.buy("colorado-terrain").status == .created)
            let bought = try await Self.get(client, paidPath, token: ann.token)
            #expect(bought.status == .ok)
            let paid = try #require(Self.elevations(bought).first ?? nil)
            #expect(abs(paid - 2700) < 0.5, "\(paid)")
        }
    }

    /// A drawn line and a trail: ascent, descent and grade of the ramp they cross.
    @Test func profilesOfALineAndOfATrail() async throws {
        let (f, _, world) = try await computed { try TerrainProducts.fixture() }
        let loop = try #require(world.first)
        try await f.app().test(.live) { client in
            let line: [String: Any] = ["type": "LineString", "coordinates": [[-104.01, 38.0], [-104.01, 38.02]]]
            let r = try await Self.post(client, "/api/v1/profile?spacingM=50", line)
            #expect(r.status == .ok)
            let p = StoreFixture.json(r)
            #expect(abs((p["ascentM"] as? Double ?? 0) - 200) < 1)
            #expect((p["descentM"] as? Double ?? 1) < 0.5)
            #expect(p["spacingM"] as? Double == 50)
            let samples = p["samples"] as? [[String: Any]] ?? []
            #expect(samples.count == Int(((p["lengthM"] as? Double ?? 0) / 50).rounded(.up)) + 1)
            // The ramp's grade: 200 m over the line's length.
            let grade = 200 / (p["lengthM"] as? Double ?? 1) * 100
            #expect(abs((p["maxGradePct"] as? Double ?? 0) - grade) < 0.2)
            #expect((p["highest"] as? [String: Any])?["lat"] as? Double == 38.02)
            #expect(samples.first?["gradePct"] is NSNull)

            let feature = try await Self.post(client, "/api/v1/profile", ["type": "Feature", "properties": [:], "geometry": line])
            #expect(feature.status == .ok)

            let trail = try await Self.get(client, "/api/v1/trails/\(loop.id)/profile")
            #expect(trail.status == .ok)
            let t = StoreFixture.json(trail)
            // Up 0.01 degree and down again: 100 m each way.
            #expect(abs((t["ascentM"] as? Double ?? 0) - 100) < 1 && abs((t["descentM"] as? Double ?? 0) - 100) < 1)
        }
    }

    /// Bad input: 4xx JSON naming the field; too many points refused from their count.
    @Test func badInputNamesTheField() async throws {
        let (f, colorado, _) = try await computed { try TerrainProducts.fixture() }
        let paidTrail = try #require(colorado.first)
        try await f.app().test(.live) { client in
            func expect(_ r: TestResponse, _ status: HTTPResponse.Status, _ field: String) {
                #expect(r.status == status, "\(String(buffer: r.body))")
                #expect(Self.message(r).hasPrefix(field), "\(Self.message(r))")
            }
            expect(try await Self.get(client, "/api/v1/elevation"), .badRequest, "points")
            expect(try await Self.get(client, "/api/v1/elevation?points=38.0"), .badRequest, "points")
            expect(try await Self.get(client, "/api/v1/elevation?points=91,-104.01"), .unprocessableContent, "points")
            expect(try await Self.get(client, "/api/v1/elevation?points=38,-180.5"), .unprocessableContent, "points")
            let many = Array(repeating: "38.005,-104.01", count: 1001).joined(separator: ";")
            expect(try await Self.get(client, "/api/v1/elevation?points=\(many)"), .unprocessableContent, "points")
            expect(try await Self.get(client, "/api/v1/elevation?points=-33.9,151.2"), .unprocessableContent, "points")

            let one: [String: Any] = ["type": "LineString", "coordinates": [[-104.01, 38.0]]]
            expect(try await Self.post(client, "/api/v1/profile", one), .unprocessableContent, "coordinates")
            let north: [String: Any] = ["type": "LineString", "coordinates": [[-104.01, 38.0], [-104.01, 91]]]
            expect(try await Self.post(client, "/api/v1/profile", north), .unprocessableContent, "coordinates")
            let point: [String: Any] = ["type": "Point", "coordinates": [-104.01, 38.0]]
            expect(try await Self.post(client, "/api/v1/profile", point), .badRequest, "type")
            let text: [String: Any] = ["type": "LineString", "coordinates": [["a", "b"], [-104.01, 38.0]]]
            expect(try await Self.post(client, "/api/v1/profile", text), .badRequest, "coordinates[0]")
            let fine: [String: Any] = ["type": "LineString", "coordinates": [[-104.01, 38.0], [-104.01, 38.01]]]
            expect(try await Self.post(client, "/api/v1/profile?spacingM=0", fine), .unprocessableContent, "spacingM")
            expect(try await Self.post(client, "/api/v1/profile?spacingM=abc", fine), .badRequest, "spacingM")
            let away: [String: Any] = ["type": "LineString", "coordinates": [[151.2, -33.9], [151.3, -33.8]]]
            let outside = try await Self.post(client, "/api/v1/profile", away)
            expect(outside, .unprocessableContent, "coordinates")
            #expect(StoreFixture.errorCode(outside) == "outside_terrain")
            // A paid region's trail: its line is for owners only.
            #expect(try await Self.get(client, "/api/v1/trails/\(paidTrail.id)/profile").status == .unauthorized)
        }
    }

    /// Trails filled with elevation (from the world ramp's DEM) are searched on it; the Colorado
    /// bundle, never filled, has no trail passing an elevation filter.
    @Test func trailSearchFiltersOnElevation() async throws {
        let (f, _, world) = try await computed { try TerrainProducts.fixture() }
        let loop = try #require(world.first)
        let outcome = try TrailElevationFill.fill(
            bundle: f.tiles.dir.file("world.mbtiles"),
            from: try DEMSampler(path: f.tiles.dir.file("world-terrain-dem.tif")))
        #expect(outcome.filled == 1)
        try await f.app().test(.live) { client in
            func ids(_ query: String) async throws -> [String] {
                let r = try await Self.get(client, "/api/v1/trails?\(query)")
                #expect(r.status == .ok, "\(String(buffer: r.body))")
                return (StoreFixture.json(r)["trails"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
            }
            let (low, lower) = (try await ids("maxAscentM=150"), try await ids("maxAscentM=50"))
            let (gentle, flat) = (try await ids("maxGradePct=20"), try await ids("maxGradePct=5"))
            let all = try await ids("limit=50")
            #expect(low == [loop.id.description] && lower.isEmpty)
            #expect(gentle == [loop.id.description] && flat.isEmpty)
            #expect(all.count == 5)
            // Answers carry the stored figures: the filled trail has them (search and detail), the others none.
            let stored = try #require(try TrailIndex(bundle: f.tiles.dir.file("world.mbtiles")).elevation(loop.id))
            let page = StoreFixture.json(try await Self.get(client, "/api/v1/trails?limit=50"))["trails"] as? [[String: Any]] ?? []
            for t in page {
                if t["id"] as? String == loop.id.description {
                    #expect(abs((t["ascentM"] as? Double ?? -1) - stored.ascentMetres) <= 0.05)
                    #expect(abs((t["descentM"] as? Double ?? -1) - stored.descentMetres) <= 0.05)
                    #expect(abs((t["maxGradePct"] as? Double ?? -1) - stored.maxGradePercent) <= 0.05)
                } else {
                    #expect(t["ascentM"] == nil && t["maxGradePct"] == nil)
                }
            }
            let detail = StoreFixture.json(try await Self.get(client, "/api/v1/trails/\(loop.id)"))["trail"] as? [String: Any]
            #expect(abs((detail?["ascentM"] as? Double ?? -1) - stored.ascentMetres) <= 0.05)
            let negative = try await Self.get(client, "/api/v1/trails?maxAscentM=-1")
            #expect(negative.status.code / 100 == 4)
        }
    }
}
