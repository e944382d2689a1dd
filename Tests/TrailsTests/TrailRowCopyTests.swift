import Foundation
import GRDB
import Testing
import TrailMapTestSupport
import TrailSources
import Trails

/// `TrailStoreWriter.copyRows`: whole rows from several bundles into one, each id once; rows that
/// must agree and do not are an error that leaves the destination as it was.
@Suite(.computeThreads) struct TrailRowCopyTests {
    let dir = TemporaryDirectory()

    func trails() throws -> [TrailRecord] {
        let src = try TrailFixtures.geoJSON(in: dir)
        return try TrailIngest.read(path: src, options: TrailIngestOptions(mapping: try TrailFixtures.mapping(in: dir))).trails
    }

    static func rows(_ path: String) throws -> [[DatabaseValue]] {
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        return try queue.read { db in try Row.fetchAll(db, sql: "SELECT * FROM trails ORDER BY id").map { Array($0.databaseValues) } }
    }

    /// Elevation figures a build stored travel with their rows (areas, shard merges, patches).
    @Test func elevationFiguresAreCopiedWithTheirRows() throws {
        let records = try trails().sorted { $0.id < $1.id }
        let a = try TrailFixtures.bundle(in: dir, name: "ea.mbtiles"), b = try TrailFixtures.bundle(in: dir, name: "eb.mbtiles")
        let out = try TrailFixtures.bundle(in: dir, name: "eout.mbtiles")
        try TrailStoreWriter.write(Array(records.prefix(4)), toBundle: a)
        try TrailStoreWriter.write(Array(records.suffix(3)), toBundle: b)
        let first = TrailElevation(ascentMetres: 412.5, descentMetres: 98.25, maxGradePercent: 17.5)
        try TrailElevationStore.write([records[0].id: first], toBundle: a)
        #expect(try TrailStoreWriter.copyRows(from: [a, b], to: out, within: nil, duplicates: .reject) == records.count)
        let index = try TrailIndex(bundle: out)
        #expect(try index.elevation(records[0].id) == first)
        #expect(try index.elevation(records[1].id) == nil, "a trail without figures stays without")
        #expect(try index.elevation(records.last!.id) == nil, "b had no elevation columns")
    }

    @Test func rowsOfSeveralBundlesAreCopiedOnceAndConflictsRefusedWhenTheyMustAgree() throws {
        let records = try trails().sorted { $0.id < $1.id }
        let a = try TrailFixtures.bundle(in: dir, name: "a.mbtiles"), b = try TrailFixtures.bundle(in: dir, name: "b.mbtiles")
        let plain = try TrailFixtures.bundle(in: dir, name: "plain.mbtiles"), out = try TrailFixtures.bundle(in: dir, name: "out.mbtiles")
        // a: the first four trails; b: the last three (one shared with a, identical).
        try TrailStoreWriter.write(Array(records.prefix(4)), toBundle: a)
        try TrailStoreWriter.write(Array(records.suffix(3)), toBundle: b)
        #expect(try TrailStoreWriter.copyRows(from: [plain, a, b], to: out, within: nil, duplicates: .reject) == records.count)
        let aRows = try Self.rows(a)
        #expect(try Self.rows(out) == aRows + Self.rows(b).filter { !aRows.contains($0) })
        let index = try TrailIndex(bundle: out)
        #expect(try index.count() == records.count && index.verify().isEmpty)

        // The shared trail renamed in b: refused when the rows must agree, out unchanged; the first kept otherwise.
        var renamed = Array(records.suffix(3))
        renamed[0].name = "Renamed Trail"
        try TrailStoreWriter.write(renamed, toBundle: b)
        let before = try Self.rows(out)
        #expect(throws: TrailStoreError.conflictingTrail(id: renamed[0].id, paths: [a, b])) {
            try TrailStoreWriter.copyRows(from: [a, b], to: out, within: nil, duplicates: .reject)
        }
        #expect(try Self.rows(out) == before)
        try TrailStoreWriter.copyRows(from: [a, b], to: out, within: nil, duplicates: .keepFirst)
        #expect(try TrailIndex(bundle: out).trail(renamed[0].id)?.name == records[3].name)

        // No source with trails: nothing written, nil.
        #expect(try TrailStoreWriter.copyRows(from: [plain], to: out, within: nil, duplicates: .reject) == nil)
        #expect(try Self.rows(out).count == records.count)
    }
}
