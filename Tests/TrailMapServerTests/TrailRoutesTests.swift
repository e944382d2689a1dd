import Catalog
import CatalogSQLite
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import Trails
import TrailSources
@testable import TrailMapServer
import TrailMapTestSupport

/// `GET /api/v1/trails`: the published regions' trails, searched by everyone (discovery sells
/// regions), their lines only for owners (free regions: everyone). Real bundles with trails GDAL
/// read from a GeoJSON file written here.
@Suite struct TrailRoutesTests {
    /// OSM-tagged lines: four in the paid Colorado bundle (near Estes Park), one in the free world bundle.
    static let coloradoLines: [(id: Int, tags: [String: String], points: [[Double]])] = [
        (
            101,
            ["highway": "path", "name": "Bear Lake Trail", "sac_scale": "hiking", "foot": "designated", "bicycle": "no", "horse": "no"],
            [[-105.6450, 40.3130], [-105.6400, 40.3150], [-105.6350, 40.3180]]
        ),
        (
            102, ["highway": "path", "name": "Emerald Lake Trail", "sac_scale": "mountain_hiking", "foot": "yes", "horse": "yes"],
            [[-105.6450, 40.3130], [-105.6550, 40.3100], [-105.6650, 40.3090]]
        ),
        (
            103, ["highway": "track", "name": "Piñon Ridge Track", "mtb:scale": "3", "bicycle": "yes", "foot": "yes"],
            [[-105.5800, 40.3700], [-105.5500, 40.3900], [-105.5200, 40.4100]]
        ),
        (
            104, ["highway": "path", "name": "Longs Peak Trail", "sac_scale": "difficult_alpine_hiking", "foot": "yes"],
            [[-105.5300, 40.2700], [-105.5700, 40.2600], [-105.6150, 40.2550]]
        )
    ]
    static let worldLines: [(id: Int, tags: [String: String], points: [[Double]])] = [
        (201, ["highway": "footway", "name": "Free Loop"], [[-104.0, 38.0], [-104.01, 38.01], [-104.02, 38.0]])
    ]

    /// Writes `lines` as a GeoJSON file and stores what GDAL reads of them in `bundle`.
    static func addTrails(
        _ lines: [(id: Int, tags: [String: String], points: [[Double]])], to bundle: String, dir: TemporaryDirectory
    ) throws -> [TrailRecord] {
        let features: [[String: Any]] = lines.map { l in
            // Every tag the preset reads is a column, null where a line lacks it (as ogr2ogr writes an OSM extract).
            var props: [String: Any] = Dictionary(
                uniqueKeysWithValues: [
                    "name", "ref", "surface", "highway", "sac_scale", "mtb:scale", "foot",
                    "bicycle", "horse", "motor_vehicle", "ski"
                ].map { ($0, NSNull() as Any) })
            for (k, v) in l.tags { props[k] = v }
            props["osm_id"] = String(l.id)
            return ["type": "Feature", "properties": props, "geometry": ["type": "LineString", "coordinates": l.points]]
        }
        let file = dir.file("lines-\(UUID().uuidString).geojson")
        try JSONSerialization.data(withJSONObject: ["type": "FeatureCollection", "features": features]).write(
            to: URL(fileURLWithPath: file))
        var mapping = TrailFieldMapping.osm
        mapping.layers = nil // the preset reads GDAL's OSM "lines" layer; here, the GeoJSON's one layer
        let records = try TrailIngest.read(path: file, options: TrailIngestOptions(mapping: mapping)).trails
        try TrailStoreWriter.write(records, toBundle: bundle)
        return records
    }

    /// The store fixture with trails in its Colorado (paid) and world (free) bundles, published again.
    static func fixture() throws -> (StoreFixture, colorado: [TrailRecord], world: [TrailRecord]) {
        let f = try StoreFixture()
        let co = try addTrails(coloradoLines, to: f.tiles.dir.file("co.mbtiles"), dir: f.tiles.dir)
        let world = try addTrails(worldLines, to: f.tiles.dir.file("world.mbtiles"), dir: f.tiles.dir)
        _ = try f.catalog.publish(try ProductFile.load(path: f.tiles.dir.file("products.json")), tilesDirectory: f.tiles.dir.path)
        return (f, co, world)
    }

    static func names(_ r: TestResponse) -> [String] {
        (StoreFixture.json(r)["trails"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
    }

    @Test func searchesFilterAndNameTheRegionsHoldingEachTrail() async throws {
        let (f, _, _) = try await computed { try Self.fixture() }
        try await f.app().test(.live) { client in
            func get(_ q: String) async throws -> TestResponse { try await client.execute(uri: "/api/v1/trails?" + q, method: .get) }
            let near = try await get("near=40.3130,-105.6450&radiusKm=3")
            #expect(near.status == .ok)
            #expect(Self.names(near) == ["Bear Lake Trail", "Emerald Lake Trail"], "nearest first")
            let first = try #require((StoreFixture.json(near)["trails"] as? [[String: Any]])?.first)
            let products = first["products"] as? [[String: Any]] ?? []
            #expect(products.map { $0["productId"] as? String } == ["colorado"] && products.first?["owned"] as? Bool == false)
            #expect(first["difficulty"] as? String == "easy" && (first["distanceKm"] as? Double ?? 9) < 0.01)
            // Moderate, for hikers, without horses: "near Mars, Colorado" as the app asks it.
            let moderate = try await get("near=40.3,-105.6&radiusKm=30&difficulty=moderate,easy&uses=foot&excludeUses=horse")
            #expect(Set(Self.names(moderate)) == ["Bear Lake Trail"])
            #expect(Set(Self.names(try await get("bbox=-106,40,-105,41&difficulty=expert"))) == ["Longs Peak Trail"])
            #expect(Self.names(try await get("q=bear%20lake%20trial")) == ["Bear Lake Trail"], "a typo")
            #expect(Self.names(try await get("q=pinon")) == ["Piñon Ridge Track"], "accents")
            #expect(Set(Self.names(try await get("q=free"))) == ["Free Loop"])
            let long = try await get("bbox=-106,40,-105,41&sort=length&limit=1")
            #expect(
                StoreFixture.json(long)["total"] as? Int == 4 && Self.names(long).count == 1
                    && StoreFixture.json(long)["nextCursor"] is String)
            // Bad input: the parameter named.
            for (q, status, word) in [
                ("radiusKm=5", HTTPResponse.Status.unprocessableContent, "radiusKm"),
                ("minLengthKm=5&maxLengthKm=1", .unprocessableContent, "minLengthKm"),
                ("near=40,-105&radiusKm=5&bbox=-106,40,-105,41", .unprocessableContent, "bbox"),
                ("difficulty=scary", .unprocessableContent, "difficulty"), ("uses=foot&excludeUses=foot", .unprocessableContent, "uses"),
                ("radiusKm=abc&near=40,-105", .badRequest, "radiusKm"), ("limit=x", .badRequest, "limit"),
                ("near=Nowhere%20Town", .notFound, "near")
            ] {
                let r = try await get(q)
                let message = (StoreFixture.json(r)["error"] as? [String: Any])?["message"] as? String ?? ""
                #expect(r.status == status && message.contains(word), "\(q): \(r.status) \(message)")
            }
        }
    }

    @Test func aTrailsLineIsForOwnersOfARegionHoldingIt() async throws {
        let (f, colorado, world) = try await computed { try Self.fixture() }
        let paid = try #require(colorado.first { $0.name == "Bear Lake Trail" }), free = try #require(world.first)
        try await f.app().test(.live) { client in
            let anonymous = StoreFixture.json(try await client.execute(uri: "/api/v1/trails/\(paid.id)", method: .get))
            #expect((anonymous["trail"] as? [String: Any])?["name"] as? String == "Bear Lake Trail")
            #expect(anonymous["geometry"] == nil && anonymous["gpxURL"] == nil)
            #expect(try await client.execute(uri: "/api/v1/trails/\(paid.id)/gpx", method: .get).status == .unauthorized)
            let ann = try await APIUser.register(client, email: "ann@example.com")
            #expect(try await ann.call(.get, "/api/v1/trails/\(paid.id)/gpx").status == .forbidden)
            #expect(try await ann.buy("colorado").status == .created)
            let owned = StoreFixture.json(try await ann.call(.get, "/api/v1/trails/\(paid.id)"))
            let geometry = try #require(owned["geometry"] as? [String: Any])
            let coords = ((geometry["geometry"] as? [String: Any])?["coordinates"] as? [[Double]]) ?? []
            #expect(coords.count == 3 && abs(coords[0][0] + 105.645) < 1e-6)
            let gpx = try await ann.call(.get, "/api/v1/trails/\(paid.id)/gpx")
            #expect(gpx.status == .ok && gpx.headers[.contentType]?.hasPrefix("application/gpx+xml") == true)
            #expect(String(buffer: gpx.body).contains("<trkpt") || String(buffer: gpx.body).contains("<rtept"))
            // A free region's trail: everyone gets its line.
            let open = StoreFixture.json(try await client.execute(uri: "/api/v1/trails/\(free.id)", method: .get))
            #expect(open["geometry"] != nil)
            #expect(try await client.execute(uri: "/api/v1/trails/\(free.id)/gpx", method: .get).status == .ok)
            // Unknown and malformed ids.
            #expect(try await client.execute(uri: "/api/v1/trails/0123456789abcdef", method: .get).status == .notFound)
            #expect(try await client.execute(uri: "/api/v1/trails/..%2Fetc", method: .get).status == .badRequest)
        }
    }

    @Test func nearTakesAPlaceOfTheOperatorsList() async throws {
        let (f, _, _) = try await computed { try Self.fixture() }
        let list = f.tiles.dir.file("places.txt")
        try [
            "5400000\tEstes Park\tEstes Park\t\t40.3772\t-105.5217\tP\tPPL\tUS\t\tCO\t\t\t\t5904\t\t\tAmerica/Denver\t2026-11-26",
            "5400001\tDenver\tDenver\t\t39.7392\t-104.9903\tP\tPPL\tUS\t\tCO\t\t\t\t715522\t\t\tAmerica/Denver\t2026-11-26"
        ]
        .joined(separator: "\n").write(toFile: list, atomically: true, encoding: .utf8)
        try Gazetteer.write(try PlaceReader.read(path: list), to: Gazetteer.defaultPath(tilesDirectory: f.tiles.dir.path))
        try await f.app().test(.live) { client in
            let r = try await client.execute(uri: "/api/v1/trails?near=estes%20park,%20colorado&radiusKm=15", method: .get)
            #expect(r.status == .ok)
            let place = StoreFixture.json(r)["place"] as? [String: Any]
            #expect(place?["name"] as? String == "Estes Park")
            #expect(Set(Self.names(r)) == ["Bear Lake Trail", "Emerald Lake Trail", "Piñon Ridge Track", "Longs Peak Trail"])
            #expect(Self.names(try await client.execute(uri: "/api/v1/trails?near=Denver&radiusKm=5", method: .get)).isEmpty)
        }
    }
}
