import Areas
import Catalog
import CatalogSQLite
import Essentials
import Foundation
import GRDB
import Testing
import TrailMapAPI
import TrailMapTestSupport
import Trails

/// Areas on demand carry the trails of their bundles: the trails whose lines cross the area,
/// whole, searchable in the cut file with no server. Trails GDAL read from GeoJSON written here,
/// stored in the area fixture's two bundles.
@Suite struct AreaTrailsTests {
    typealias Line = (id: Int, tags: [String: String], points: [[Double]])

    /// The area asked for: 8 km around (40.0, -105.5), about -105.594 to -105.406 by 39.928 to 40.072.
    static let request = AreaQuoteRequest(center: [-105.5, 40.0], radiusKm: 8, productId: "area")

    static let westLines: [Line] = [
        (301, ["highway": "path", "name": "Inner Loop", "sac_scale": "hiking"], [[-105.52, 40.01], [-105.50, 40.02], [-105.48, 40.01]]),
        (302, ["highway": "path", "name": "Crossing Ridge"], [[-105.55, 40.05], [-105.65, 40.10]]),
        // Its box meets the area's north-east corner; its line goes round it.
        (303, ["highway": "path", "name": "Corner Hook"], [[-105.45, 40.09], [-105.38, 40.09], [-105.38, 40.05]]),
        (304, ["highway": "path", "name": "Far Away Trail"], [[-105.90, 40.40], [-105.85, 40.45]]),
        (305, ["highway": "path", "name": "Shared Divide Trail"], [[-105.46, 39.95], [-105.42, 39.96]]),
        (307, ["highway": "path", "name": "Priority Trail", "sac_scale": "mountain_hiking"], [[-105.56, 39.94], [-105.54, 39.95]])
    ]
    static let eastLines: [Line] = [
        (305, ["highway": "path", "name": "Shared Divide Trail"], [[-105.46, 39.95], [-105.42, 39.96]]),
        (306, ["highway": "path", "name": "East Meadow Trail"], [[-104.50, 40.00], [-104.40, 40.10]]),
        // The same way as the west bundle's, other data: the first bundle's row wins.
        (307, ["highway": "path", "name": "Other Name Trail"], [[-105.56, 39.94], [-105.54, 39.95]])
    ]

    /// Every column of each trail of `path`, by id.
    static func rows(_ path: String) throws -> [Int64: [DatabaseValue]] {
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        return try queue.read { db in
            var out = [Int64: [DatabaseValue]]()
            for row in try Row.fetchAll(db, sql: "SELECT * FROM trails") {
                let id: Int64 = row["id"]
                out[id] = Array(row.databaseValues)
            }
            return out
        }
    }

    static func quote(_ f: AreaFixture) async throws -> AreaQuoteRecord {
        let quoting = AreaQuoting(catalog: f.store.catalog, tilesDirectory: f.store.tiles.dir.path)
        let account = try f.store.catalog.login(email: "ann@example.com", password: "correct horse battery").account
        return try await quoting.quote(request, account: account).quote
    }

    @Test func anAreaCarriesTheTrailsCrossingIt() async throws {
        let f = try await computed { try AreaFixture() }
        _ = try f.store.catalog.register(email: "ann@example.com", password: "correct horse battery")
        // Bundles without trails: the cut has no trails tables either.
        let bare = try await Self.quote(f)
        #expect(throws: TrailStoreError.noTrails(path: bare.bundlePath)) { _ = try TrailIndex(bundle: bare.bundlePath) }

        let westPath = f.store.tiles.dir.file("west.mbtiles"), eastPath = f.store.tiles.dir.file("east.mbtiles")
        let west = try TrailRoutesTests.addTrails(Self.westLines, to: westPath, dir: f.store.tiles.dir)
        let east = try TrailRoutesTests.addTrails(Self.eastLines, to: eastPath, dir: f.store.tiles.dir)
        _ = try f.store.catalog.publish(
            try ProductFile.load(path: f.store.tiles.dir.file("areas.json")), tilesDirectory: f.store.tiles.dir.path)
        func id(_ name: String, in records: [TrailRecord]) throws -> TrailID { try #require(records.first { $0.name == name }).id }

        let q = try await Self.quote(f)
        let cut = q.bundlePath
        // The quoted size and hash are the file's, trails included.
        let digest = try FileSHA256.digest(path: cut)
        #expect(digest.hex == q.sha256 && digest.size == q.size)

        let index = try TrailIndex(bundle: cut)
        let expected: Set<TrailID> = [
            try id("Inner Loop", in: west), try id("Crossing Ridge", in: west),
            try id("Shared Divide Trail", in: west), try id("Priority Trail", in: west)
        ]
        #expect(Set(try index.all().map(\.id)) == expected)
        #expect(try index.count() == 4 && index.verify().isEmpty)
        #expect(try id("Shared Divide Trail", in: west) == id("Shared Divide Trail", in: east))
        #expect(try id("Priority Trail", in: west) == id("Other Name Trail", in: east))
        // Whole rows, as the first bundle holding each stores them.
        let westRows = try Self.rows(westPath), cutRows = try Self.rows(cut)
        #expect(cutRows.count == 4)
        for (id, row) in cutRows { #expect(westRows[id] == row, "trail \(TrailID(value: id))") }

        // Searched offline in the cut file: by name (with a typo), by place, by difficulty.
        var byName = TrailQuery()
        byName.text = "crosing ridge"
        #expect(try index.search(byName).hits.map(\.trail.name) == ["Crossing Ridge"])
        byName.text = "other name"
        #expect(try index.search(byName).hits.isEmpty, "the east bundle's row of a trail the west one holds is not taken")
        var near = TrailQuery()
        near.near = LonLat(lon: -105.5, lat: 40.0)
        near.radiusKm = 50
        near.limit = 50
        let all = try index.search(near)
        #expect(all.total == 4 && Set(all.hits.map(\.trail.id)) == expected)
        near.difficulties = [.moderate]
        #expect(try index.search(near).hits.map(\.trail.name) == ["Priority Trail"])
    }
}
