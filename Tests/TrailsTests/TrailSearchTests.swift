import Foundation
import Testing
import TrailMapTestSupport
import TrailSources
import Trails

/// Trails stored in a bundle and searched: every filter returns exactly the trails the fixture
/// puts there.
@Suite(.computeThreads) struct TrailSearchTests {
    let dir = TemporaryDirectory()

    /// A bundle holding the fixture's trails, the index, and the trails' ids by fixture key.
    func indexed() throws -> (TrailIndex, [String: TrailID], String) {
        let src = try TrailFixtures.geoJSON(in: dir)
        let trails = try TrailIngest.read(path: src, options: TrailIngestOptions(mapping: try TrailFixtures.mapping(in: dir))).trails
        let bundle = try TrailFixtures.bundle(in: dir)
        try TrailStoreWriter.write(trails, toBundle: bundle)
        let ids = Dictionary(uniqueKeysWithValues: TrailFixtures.trails.map { ($0.key, TrailID(identity: "field:trail_id:\($0.key)")) })
        return (try TrailIndex(bundle: bundle), ids, bundle)
    }

    func keys(_ page: TrailPage, _ ids: [String: TrailID]) -> Set<String> {
        Set(page.hits.compactMap { hit in ids.first { $0.value == hit.trail.id }?.key })
    }

    func query(_ edit: (inout TrailQuery) -> Void) -> TrailQuery {
        var q = TrailQuery()
        q.limit = 100
        edit(&q)
        return q
    }

    @Test func recordsRoundTripThroughTheBundle() throws {
        let (index, ids, _) = try indexed()
        #expect(try index.count() == TrailFixtures.trails.count)
        let src = try TrailFixtures.geoJSON(in: dir)
        let original = try TrailIngest.read(path: src, options: TrailIngestOptions(mapping: try TrailFixtures.mapping(in: dir))).trails
        for t in original {
            let stored = try #require(try index.trail(t.id))
            #expect(stored.name == t.name && stored.ref == t.ref && stored.difficulty == t.difficulty && stored.surface == t.surface)
            #expect(stored.allowedUses == t.allowedUses && stored.forbiddenUses == t.forbiddenUses)
            #expect(stored.lengthMetres == t.lengthMetres)
            #expect(stored.geometry.parts.count == t.geometry.parts.count)
            for (a, b) in zip(stored.geometry.points, t.geometry.points) {
                #expect(abs(a.lon - b.lon) <= 5e-7 && abs(a.lat - b.lat) <= 5e-7)
            }
        }
        #expect(try index.trail(TrailID(identity: "nothing")) == nil)
        #expect(ids.count == 6)
    }

    @Test func radiusSearchMeasuresToTheNearestPointOfTheLine() throws {
        let (index, ids, _) = try indexed()
        // Nearest points from the Bear Lake trailhead: Bear Lake 0, Emerald ~0.2 km, Glacier Gorge
        // ~1.5 km, Mill Creek ~2.4 km, Longs Peak ~6.8 km, Cherry Creek ~90 km.
        let expectations: [(Double, Set<String>)] = [
            (1, ["RMNP-1", "RMNP-2"]), (2, ["RMNP-1", "RMNP-2", "RMNP-5"]),
            (3.5, ["RMNP-1", "RMNP-2", "RMNP-4", "RMNP-5"]), (10, ["RMNP-1", "RMNP-2", "RMNP-3", "RMNP-4", "RMNP-5"])
        ]
        for (radius, expected) in expectations {
            let page = try index.search(
                query {
                    $0.near = TrailFixtures.bearLake; $0.radiusKm = radius
                })
            #expect(keys(page, ids) == expected, "radius \(radius) km")
            let distances = page.hits.compactMap(\.distanceMetres)
            #expect(distances == distances.sorted() && distances.count == page.hits.count)
        }
        let page = try index.search(
            query {
                $0.near = TrailFixtures.bearLake; $0.radiusKm = 1
            })
        #expect(page.hits.first?.trail.id == ids["RMNP-1"] && page.hits.first?.distanceMetres == 0)
        // Emerald Lake's start is 0.002 deg west and 0.001 deg south: about 200 m.
        let emerald = try #require(page.hits.last?.distanceMetres)
        #expect(emerald > 180 && emerald < 220)
    }

    @Test func boxSearchIsExactOnTheLines() throws {
        let (index, ids, _) = try indexed()
        // The box holds Bear Lake's middle vertex only; Glacier Gorge's box overlaps but its line does not cross it.
        let page = try index.search(query { $0.bbox = TrailBox(west: -105.642, south: 40.3135, east: -105.638, north: 40.316) })
        #expect(keys(page, ids) == ["RMNP-1"])
        let crossing = try index.search(query { $0.bbox = TrailBox(west: -105.62, south: 40.33, east: -105.61, north: 40.34) })
        #expect(keys(crossing, ids) == ["RMNP-4"], "a segment crossing the box with no vertex inside")
        let wrapping = try index.search(query { $0.bbox = TrailBox(west: 170, south: 39, east: -104.92, north: 40) })
        #expect(keys(wrapping, ids) == ["DEN-1"], "a box across the antimeridian")
    }

    @Test func filtersReturnExactlyTheExpectedTrails() throws {
        let (index, ids, _) = try indexed()
        #expect(keys(try index.search(query { $0.difficulties = [.moderate] }), ids) == ["RMNP-2", "RMNP-4"])
        #expect(keys(try index.search(query { $0.difficulties = [.hard, .expert] }), ids) == ["RMNP-3", "RMNP-5"])
        #expect(keys(try index.search(query { $0.difficulties = [.unknown] }), ids) == ["DEN-1"])
        // Hikers only: foot allowed, no horses or bikes (a trail silent about them stays).
        let hikersOnly = try index.search(
            query {
                $0.uses = [.of(.foot)]; $0.excludeUses = TrailUses([.horse, .bicycle])
            })
        #expect(keys(hikersOnly, ids) == ["RMNP-1", "RMNP-3", "RMNP-5"])
        #expect(keys(try index.search(query { $0.uses = TrailUses([.foot, .bicycle]) }), ids) == ["RMNP-4", "DEN-1"])
        // The product question: near Bear Lake, moderate, no horses or bikes.
        let combined = try index.search(
            query {
                $0.near = TrailFixtures.bearLake; $0.radiusKm = 5; $0.difficulties = [.moderate]; $0.excludeUses = TrailUses([.horse])
            })
        #expect(keys(combined, ids) == ["RMNP-4"])
    }

    @Test func lengthFiltersAndSortAgreeWithOGRLengths() throws {
        let (index, ids, _) = try indexed()
        let lengths = try TrailFixtures.ogrLengths(try TrailFixtures.geoJSON(in: dir), in: dir)
        for (min, max) in [(1.0, 3.0), (0.0, 1.0), (2.5, 100.0)] {
            let expected = Set(lengths.filter { $0.value >= min * 1000 && $0.value <= max * 1000 }.keys)
            let page = try index.search(
                query {
                    $0.minLengthKm = min; $0.maxLengthKm = max
                })
            #expect(keys(page, ids) == expected, "\(min)...\(max) km")
        }
        let byName = try index.search(query { $0.sort = .name })
        #expect(
            byName.hits.compactMap(\.trail.name) == [
                "Bear Lake Trail", "Cherry Creek Trail", "Émerald Lake Trail", "Glacier Gorge",
                "Longs Peak Trail", "Mill Creek Bike Path"
            ], "accents do not sort last")
        let sorted = try index.search(query { $0.sort = .length })
        let expectedOrder = lengths.sorted { $0.value > $1.value }.map { ids[$0.key] }
        #expect(sorted.hits.map(\.trail.id) == expectedOrder)
    }

    @Test func pagesFollowTheCursor() throws {
        let (index, _, _) = try indexed()
        var q = TrailQuery()
        q.sort = .length
        q.limit = 4
        let first = try index.search(q)
        #expect(first.hits.count == 4 && first.total == 6)
        q.cursor = try #require(first.nextCursor)
        let second = try index.search(q)
        #expect(second.hits.count == 2 && second.nextCursor == nil)
        #expect(Set(first.hits.map(\.trail.id)).isDisjoint(with: second.hits.map(\.trail.id)))
        // A cursor is good only for its own query.
        q.sort = .name
        #expect(throws: TrailSearchError.query(.badCursor)) { try index.search(q) }
        q.cursor = "not-a-cursor!"
        #expect(throws: TrailSearchError.query(.badCursor)) { try index.search(q) }
    }

    @Test func nameSearchIgnoresCaseAccentsAndTypos() throws {
        let (index, ids, _) = try indexed()
        let cases: [(String, Set<String>)] = [
            ("Bear Lake Trial", ["RMNP-1"]), // transposed letters
            ("bear lake trai", ["RMNP-1"]), // prefix
            ("emerald", ["RMNP-2"]), // without the accent
            ("ÉMERALD LAKE", ["RMNP-2"]),
            ("Emrald", ["RMNP-2"]), // a letter missing
            ("lake trail", ["RMNP-1", "RMNP-2"]),
            ("glacier gorge", ["RMNP-5"]),
            ("BL1", ["RMNP-1"]), // the ref
            ("zzzz qqqq", [])
        ]
        for (text, expected) in cases {
            #expect(keys(try index.search(query { $0.text = text }), ids) == expected, "\(text)")
        }
        #expect(throws: TrailSearchError.query(.invalid(parameter: "q", reason: "has no letters or digits"))) {
            try index.search(query { $0.text = "!!" })
        }
    }

    @Test func searchAcrossBundlesNamesEveryBundleHoldingATrail() throws {
        let (_, ids, bundle) = try indexed()
        let second = try TrailFixtures.bundle(in: dir, name: "second.mbtiles")
        let osm = try TrailIngest.read(path: try TrailFixtures.osm(in: dir)).trails
        let bearID = try #require(ids["RMNP-1"])
        let bear = try #require(try TrailIndex(bundle: bundle).trail(bearID))
        try TrailStoreWriter.write(osm + [bear], toBundle: second)
        let empty = try TrailFixtures.bundle(in: dir, name: "no-trails.mbtiles")
        let page = try TrailSearch.search(
            query {
                $0.near = TrailFixtures.bearLake; $0.radiusKm = 10
            }, bundles: [bundle, second, empty])
        #expect(page.total == 5 + osm.count)
        let hit = try #require(page.hits.first { $0.trail.id == ids["RMNP-1"] })
        #expect(hit.bundles == [bundle, second])
    }

    @Test func summaryCountsByDifficultyAndListsTheLongest() throws {
        let (index, ids, _) = try indexed()
        let lengths = try TrailFixtures.ogrLengths(try TrailFixtures.geoJSON(in: dir), in: dir)
        let summary = try index.summary(longest: 2)
        #expect(summary.count == 6)
        #expect(summary.byDifficulty == [.easy: 1, .moderate: 2, .hard: 1, .expert: 1, .unknown: 1])
        #expect(abs(summary.totalLengthMetres - lengths.values.reduce(0, +)) / summary.totalLengthMetres < 0.005)
        let longest = lengths.sorted { $0.value > $1.value }.prefix(2).map { ids[$0.key] }
        #expect(summary.longest.map(\.id) == longest)
    }
}
