import Essentials
import Foundation
import Testing
import TileGeometry
@testable import TileStore
import TrailMapTestSupport

/// Malformed archives are typed errors naming the problem, never crashes: truncated files, other
/// magics and versions, sections and entries outside the file, varint overflow, absurd counts,
/// leaf cycles, zip bombs; and thousands of random mutations of small archives.
@Suite(.computeThreads) struct PMTilesRobustnessTests {
    let dir = TemporaryDirectory()
    typealias Entry = PMTilesFormat.Entry

    /// Five tiles: id 0, a run of 1-2, a run of 3-4, over 14 bytes of data.
    static let good = CraftedArchive(
        root: CraftedArchive.directory([
            Entry(tileID: 0, offset: 0, length: 4, runLength: 1), Entry(tileID: 1, offset: 4, length: 6, runLength: 2),
            Entry(tileID: 3, offset: 10, length: 4, runLength: 2)
        ]),
        data: Array("zeroone-223333".utf8))

    /// The problem opening (and reading tile 0/0/0 of) the archive, or nil when it reads.
    func problem(_ archive: CraftedArchive, name: String = "a.pmtiles") throws -> PMTilesProblem? {
        try problem(at: archive.write(to: dir.file(name)))
    }

    func problem(at path: String) -> PMTilesProblem? {
        do {
            let reader = try PMTilesReader(path: path)
            for id in UInt64(0)..<5 { _ = try reader.tile(PMTilesFormat.tile(id: id)!) }
            return nil
        } catch {
            guard case let .pmtiles(p, problem) = error, p == path else { Issue.record("untyped: \(error)"); return nil }
            #expect(error.description.hasPrefix(path + ": unreadable PMTiles archive: "))
            return problem
        }
    }

    @Test func aGoodCraftedArchiveReads() throws {
        for gzip in [false, true] {
            var a = Self.good
            a.gzip = gzip
            let reader = try PMTilesReader(path: a.write(to: dir.file("g.pmtiles")))
            #expect(try reader.tile(TileID(z: 0, x: 0, y: 0)!) == Array("zero".utf8))
            #expect(try reader.tile(PMTilesFormat.tile(id: 1)!) == Array("one-22".utf8))
            #expect(try reader.tile(PMTilesFormat.tile(id: 2)!) == Array("one-22".utf8))
            #expect(try reader.tile(PMTilesFormat.tile(id: 4)!) == Array("3333".utf8))
            #expect(try reader.tile(PMTilesFormat.tile(id: 5)!) == nil)
            #expect(try reader.metadataPairs()["name"] == "Crafted")
        }
    }

    @Test func truncatedBadMagicAndOtherVersions() throws {
        let bytes = Self.good.bytes
        let path = dir.file("t.pmtiles")
        for (count, expected) in [(0, PMTilesProblem.tooShort(size: 0)), (100, .tooShort(size: 100))] {
            try Data(bytes.prefix(count)).write(to: URL(fileURLWithPath: path))
            #expect(problem(at: path) == expected)
        }
        // Cut inside the tile data: the tile data section reaches past the end.
        try Data(bytes.dropLast(3)).write(to: URL(fileURLWithPath: path))
        guard case .sectionOutsideFile(section: "tile data section", _, _, _) = problem(at: path) else { Issue.record("truncated"); return }
        var magic = bytes
        magic[2] = UInt8(ascii: "X")
        try Data(magic).write(to: URL(fileURLWithPath: path))
        #expect(problem(at: path) == .badMagic)
        var v2 = bytes
        v2[7] = 2
        try Data(v2).write(to: URL(fileURLWithPath: path))
        #expect(problem(at: path) == .unsupportedVersion(2))
        // A real version 2 archive starts with "PM" and a 16-bit version.
        try Data([0x50, 0x4D, 2, 0] + [UInt8](repeating: 0, count: 600)).write(to: URL(fileURLWithPath: path))
        #expect(problem(at: path) == .unsupportedVersion(2))
        #expect(throws: TileStoreError.notFound(path: dir.file("missing.pmtiles"))) { try PMTilesReader(path: dir.file("missing.pmtiles")) }
    }

    @Test func headerFieldsOutsideTheirRange() throws {
        var a = Self.good
        a.gzip = true
        var bytes = a.bytes
        PMTilesSurgery.setU64(&bytes, PMTilesSurgery.rootLengthField, UInt64(bytes.count))
        let path = dir.file("h.pmtiles")
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        guard case .sectionOutsideFile(section: "root directory", _, _, _) = problem(at: path) else { Issue.record("root length"); return }
        bytes = a.bytes
        PMTilesSurgery.setU64(&bytes, PMTilesSurgery.tileDataOffsetField, .max - 2)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        guard case .sectionOutsideFile(section: "tile data section", _, _, _) = problem(at: path) else {
            Issue.record("overflowing offset"); return
        }
        var brotli = Self.good
        brotli.gzip = false
        bytes = brotli.bytes
        bytes[97] = 3
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        #expect(problem(at: path) == .unsupportedInternalCompression(.brotli))
        var compressed = Self.good
        compressed.tileCompression = 2
        #expect(try problem(compressed) == .unsupportedTileCompression(.gzip))
        var zooms = Self.good
        zooms.minZoom = 6
        #expect(try problem(zooms) == .zoomRange(min: 6, max: 5))
    }

    @Test func malformedDirectories() throws {
        var a = Self.good
        let root = "root directory"
        a.root = [1] + [UInt8](repeating: 0xff, count: 10) + [1, 1, 1, 1]
        #expect(try problem(a) == .varintOverflow(directory: root))
        a.root = CraftedArchive.varint(1_000_000) + [0, 1, 1, 1]
        #expect(try problem(a) == .absurdEntryCount(directory: root, count: 1_000_000, bytes: 7))
        a.root = [0, 0, 0, 0]
        #expect(try problem(a) == .absurdEntryCount(directory: root, count: 0, bytes: 4))
        a.root = [2, 0, 0, 1, 1, 4, 4, 1, 0]
        #expect(try problem(a) == .unsortedEntries(directory: root, index: 1))
        a.root = [3, 0, 1, 1, 1, 1, 1, 4, 4, 4, 1, 0]
        #expect(try problem(a) == .truncatedDirectory(directory: root))
        a.root = CraftedArchive.directory([
            Entry(tileID: 0, offset: 0, length: 4, runLength: 1), Entry(tileID: 1, offset: 12, length: 5, runLength: 1)
        ])
        #expect(try problem(a) == .entryOutsideSection(directory: root, index: 1, section: "tile data section", end: 17, sectionLength: 14))
        a.root = CraftedArchive.directory([Entry(tileID: 0, offset: 0, length: 9, runLength: 0)])
        #expect(
            try problem(a) == .entryOutsideSection(directory: root, index: 0, section: "leaf directories section", end: 9, sectionLength: 0)
        )
        a.root = CraftedArchive.directory([Entry(tileID: 0, offset: 0, length: 0, runLength: 1)]) + [0]
        guard case .badEntry(directory: root, index: 0, _) = try problem(a) else { Issue.record("zero length"); return }
        a.root = CraftedArchive.directory([
            Entry(tileID: 0, offset: 0, length: 4, runLength: 5), Entry(tileID: 3, offset: 4, length: 4, runLength: 1)
        ])
        guard case .badEntry(directory: root, index: 0, _) = try problem(a) else { Issue.record("overlapping run"); return }
        a.root = CraftedArchive.directory([Entry(tileID: 0, offset: 0, length: 4, runLength: 1)]) + [9, 9, 9]
        #expect(try problem(a) == nil, "bytes after the last entry are ignored, as other readers do")
    }

    @Test func aZipBombDirectoryStopsAtTheLimit() throws {
        var a = Self.good
        a.gzip = true
        a.root = [UInt8](repeating: 0, count: PMTilesReader.maxDirectoryBytes + 1)
        #expect(try problem(a) == .compressedData(section: "root directory", .tooLarge(limit: PMTilesReader.maxRootBytes)))
        // A leaf directory: the larger limit.
        let bomb = try #require(Gzip.compress([UInt8](repeating: 0, count: PMTilesReader.maxDirectoryBytes + 1), level: 9))
        a.root = CraftedArchive.directory([Entry(tileID: 0, offset: 0, length: UInt32(bomb.count), runLength: 0)])
        var bytes0 = a.bytes
        // The leaf section is the bomb itself (already compressed), put before the tile data.
        let leafOffset = UInt64(bytes0.count - a.data.count)
        bytes0.insert(contentsOf: bomb, at: Int(leafOffset))
        PMTilesSurgery.setU64(&bytes0, PMTilesSurgery.leafLengthField, UInt64(bomb.count))
        PMTilesSurgery.setU64(&bytes0, PMTilesSurgery.tileDataOffsetField, leafOffset + UInt64(bomb.count))
        let leafPath = dir.file("leafbomb.pmtiles")
        try Data(bytes0).write(to: URL(fileURLWithPath: leafPath))
        #expect(
            problem(at: leafPath)
                == .compressedData(section: "leaf directory at offset 0", .tooLarge(limit: PMTilesReader.maxDirectoryBytes)))
        // And plain garbage where gzip is announced.
        var bytes = Self.good.bytes
        bytes[97] = 2
        let path = dir.file("garbage.pmtiles")
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        guard case .compressedData(section: "root directory", .corrupt) = problem(at: path) else { Issue.record("garbage"); return }
    }

    /// A leaf that points at itself, and chains of leaves deeper than readers follow.
    @Test func leafCyclesAndDepth() throws {
        // Leaves of one entry each, every one 5 bytes uncompressed: leaf k at offset 5k.
        func leaf(pointingTo next: UInt64) -> [UInt8] {
            CraftedArchive.directory([Entry(tileID: 0, offset: next, length: 5, runLength: 0)])
        }
        let tileLeaf = CraftedArchive.directory([Entry(tileID: 0, offset: 0, length: 4, runLength: 1)])
        #expect(leaf(pointingTo: 10).count == 5 && tileLeaf.count == 5)
        var a = Self.good
        a.root = CraftedArchive.directory([Entry(tileID: 0, offset: 0, length: 5, runLength: 0)])
        a.leaves = leaf(pointingTo: 0)
        #expect(try problem(a) == .leafCycle(offset: 0, depth: PMTilesReader.maxLeafDepth))
        // root → 0 → 5 → 10 (tiles): three levels of leaves read.
        a.leaves = leaf(pointingTo: 5) + leaf(pointingTo: 10) + tileLeaf
        let reader = try PMTilesReader(path: a.write(to: dir.file("deep.pmtiles")))
        #expect(try reader.tile(TileID(z: 0, x: 0, y: 0)!) == Array("zero".utf8))
        // One more level: refused.
        a.leaves = leaf(pointingTo: 5) + leaf(pointingTo: 10) + leaf(pointingTo: 15) + tileLeaf
        #expect(try problem(a, name: "deeper.pmtiles") == .leafCycle(offset: 15, depth: PMTilesReader.maxLeafDepth))
        // The walk reports a cycle instead of looping.
        a.leaves = leaf(pointingTo: 0)
        var found = [String]()
        try PMTilesReader(path: a.write(to: dir.file("cycle.pmtiles"))).walk(tile: { _ in }, problem: { found.append($0) })
        #expect(found.contains { $0.contains("referenced twice") }, "\(found)")
    }

    /// Thousands of random mutations (bytes changed, inserted, removed; files cut) of small
    /// archives: each opens and reads, or throws a `TileStoreError`; nothing crashes or hangs.
    @Test(arguments: [false, true]) func randomMutationsNeverCrash(gzip: Bool) throws {
        let (bundle, tiles) = try PMTilesFixture.bundle(at: dir.file("f.mbtiles"), zooms: 0...5, box: PMTilesFixture.small)
        var original: [UInt8]
        if gzip {
            _ = try PMTilesExporter.export(from: bundle, to: dir.file("f.pmtiles"))
            original = try PMTilesSurgery.bytes(dir.file("f.pmtiles"))
        } else {
            // The same tiles with uncompressed directories: mutations reach the decoder directly.
            let sorted = tiles.map { (PMTilesFormat.tileID($0.key), $0.value) }.sorted { $0.0 < $1.0 }
            var data = [UInt8](), entries = [Entry]()
            for (id, bytes) in sorted {
                entries.append(Entry(tileID: id, offset: UInt64(data.count), length: UInt32(bytes.count), runLength: 1))
                data += bytes
            }
            original = CraftedArchive(root: CraftedArchive.directory(entries), data: data).bytes
        }
        var rng = SplitMix64(seed: gzip ? 7 : 11)
        let path = dir.file("m.pmtiles")
        let probes = Array(tiles.keys.sorted { PMTilesFormat.tileID($0) < PMTilesFormat.tileID($1) }.prefix(40))
        var read = 0, refused = 0
        // Mostly in the header and directories, where the decoding happens.
        let hot = min(original.count, 600)
        for _ in 0..<2_000 {
            var b = original
            for _ in 0..<Int.random(in: 1...4, using: &rng) {
                let at = Int.random(in: 0..<(Bool.random(using: &rng) ? min(hot, b.count) : b.count), using: &rng)
                switch Int.random(in: 0..<10, using: &rng) {
                case 0: b.insert(UInt8.random(in: 0...255, using: &rng), at: at)
                case 1: b.remove(at: at)
                case 2: b.removeSubrange(at...)
                default: b[at] = UInt8.random(in: 0...255, using: &rng)
                }
                if b.isEmpty { break }
            }
            try Data(b).write(to: URL(fileURLWithPath: path))
            do {
                let reader = try PMTilesReader(path: path)
                for t in probes { _ = try reader.tile(t) }
                _ = try? reader.metadataPairs()
                _ = PMTilesSummary(reader)
                read += 1
            } catch {
                refused += 1
            }
        }
        #expect(read + refused == 2_000)
        #expect(refused > 100 && read > 100, "both outcomes occur: \(read) read, \(refused) refused")
    }
}
