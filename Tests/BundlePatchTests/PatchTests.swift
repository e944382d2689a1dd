import BundlePatch
import Essentials
import Foundation
import Synchronization
import Testing
import TileGeometry
import TileStore
import TrailMapTestSupport

/// Versions of a bundle, their patches, and applying them: v1 → v2 → v3 with tiles changed,
/// added and removed and metadata changed.
@Suite(.computeThreads) struct PatchTests {
    let dir = TemporaryDirectory()

    /// Tiles of version `v`: z 4–6 over a box; v2 changes some, adds z7 tiles and drops a few; v3
    /// changes others and drops the z7 ones again.
    func version(_ v: Int) throws -> String {
        var tiles = [TileID: [UInt8]]()
        let box = GeoBounds(west: -110, south: 36, east: -101, north: 42)
        for z in 4...6 {
            for t in TileRange(bounds: box, zoom: z) {
                var data = [UInt8](repeating: UInt8((t.x * 7 + t.y * 3 + z) & 255), count: 600 + (t.x * 13) % 400)
                if v >= 2 && t.x % 3 == 0 { data[0] = 200 } // changed in v2
                if v >= 3 && t.y % 4 == 1 { data[1] = 99 } // changed in v3
                if v == 2 && t.x % 5 == 4 && z == 6 { continue } // removed in v2 only
                tiles[t] = data
            }
        }
        if v == 2 {
            for t in TileRange(bounds: GeoBounds(west: -106, south: 38, east: -105, north: 39), zoom: 7) {
                tiles[t] = [7, UInt8(t.x & 255)]
            }
        }
        var meta = BundleMetadata(name: "Region", bounds: box, minZoom: 4, maxZoom: v == 2 ? 7 : 6)
        meta.version = "\(v).0.0"
        if v == 3 { meta.description = "third edition" }
        let path = dir.file("v\(v).mbtiles")
        try TestBundle.write(tiles, to: path, metadata: meta)
        return path
    }

    /// The store after publishing v1, v2, v3 (each bundle kept aside, as a device would have it).
    func published() throws -> (PatchStore, [String], [String]) {
        let store = PatchStore(root: dir.file("patches"), keepVersions: 3)
        var bundles = [String](), contents = [String]()
        for v in 1...3 {
            let path = try version(v)
            let sha = try FileSHA256.digestHex(path)
            contents.append(try store.record(productId: "colorado", version: v, bundle: path, sha256: sha).contentHash)
            bundles.append(path)
        }
        return (store, bundles, contents)
    }

    /// Two publishes of the same version at once (two `catalog publish` runs): they take turns,
    /// both succeed, and the patch and index they leave are whole. Before, both wrote one shared
    /// temporary file and one failed (its rename found the file gone, or its table already made).
    @Test func twoRecordsOfTheSameVersionAtOnceBothSucceed() throws {
        let store = PatchStore(root: dir.file("patches"), keepVersions: 3)
        let v1 = try version(1), v2 = try version(2)
        try store.record(productId: "co", version: 1, bundle: v1, sha256: try FileSHA256.digestHex(v1))
        let sha2 = try FileSHA256.digestHex(v2)
        let failures = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 2) { _ in
            do { try store.record(productId: "co", version: 2, bundle: v2, sha256: sha2) } catch {
                failures.withLock { $0.append("\(error)") }
            }
        }
        #expect(failures.withLock { $0 }.isEmpty)
        let names = try FileManager.default.contentsOfDirectory(atPath: store.folder("co"))
        #expect(!names.contains { $0.contains(".tmp") || $0 == ".lock" }, "\(names)")
        let content = try ContentHash.of(bundle: v2).hash
        let out = dir.file("applied.mbtiles")
        #expect(try PatchApplier.apply([store.patchPath("co", from: 1, to: 2)], to: v1, output: out, expected: content) == content)
        #expect(try TestBundle.tiles(out) == TestBundle.tiles(v2))
    }

    @Test func patchesTakeEveryEarlierVersionToTheNewOne() throws {
        let (store, bundles, contents) = try published()
        #expect(Set(store.patches("colorado").map { "\($0.fromVersion)-\($0.toVersion)" }) == ["1-2", "1-3", "2-3"])
        for (from, chain) in [(1, ["1-3"]), (2, ["2-3"])] {
            let patches = chain.map { c in store.patchPath("colorado", from: Int(c.prefix(1))!, to: 3) }
            let out = dir.file("applied-\(from).mbtiles")
            let result = try PatchApplier.apply(patches, to: bundles[from - 1], output: out, expected: contents[2])
            #expect(result == contents[2])
            #expect(try TestBundle.tiles(out) == TestBundle.tiles(bundles[2]))
            #expect(try BundleReader(path: out).metadataPairs() == BundleReader(path: bundles[2]).metadataPairs())
        }
        // The chain 1 → 2 → 3 ends at the same content.
        let chained = dir.file("chained.mbtiles")
        try PatchApplier.apply(
            [store.patchPath("colorado", from: 1, to: 2), store.patchPath("colorado", from: 2, to: 3)],
            to: bundles[0], output: chained, expected: contents[2])
        #expect(try TestBundle.tiles(chained) == TestBundle.tiles(bundles[2]))
        // The content hash does not depend on the file's layout: a copy written tile by tile matches.
        let copy = dir.file("copy.mbtiles")
        var problems = [String]()
        try TestBundle.write(
            try TestBundle.tiles(bundles[2]).mapValues { [UInt8]($0) }, to: copy,
            metadata: try BundleReader(path: bundles[2]).metadata(problems: &problems))
        #expect(try ContentHash.of(bundle: copy).hash == contents[2])
        #expect(contents[0] != contents[1] && contents[1] != contents[2])
    }

    @Test func aPlanIsTheCheapestChainOrNothing() throws {
        let (store, bundles, _) = try published()
        let sha = try FileSHA256.digestHex(bundles[2])
        let direct = store.patches("colorado").first { $0.fromVersion == 1 && $0.toVersion == 3 }!
        let plan = store.plan("colorado", from: 1, to: 3, sha256: sha, fullSize: 1 << 30)
        let chainCost = store.patches("colorado").filter { ["1-2", "2-3"].contains("\($0.fromVersion)-\($0.toVersion)") }.reduce(0) {
            $0 + $1.size
        }
        #expect(plan.reduce(0) { $0 + $1.size } == min(direct.size, chainCost))
        #expect(store.plan("colorado", from: 1, to: 3, sha256: sha, fullSize: 10).isEmpty, "not smaller than the full bundle")
        #expect(store.plan("colorado", from: 1, to: 3, sha256: "other", fullSize: 1 << 30).isEmpty, "made against another bundle")
        #expect(store.plan("colorado", from: 3, to: 3, sha256: sha, fullSize: 1 << 30).isEmpty)
    }

    @Test func corruptTruncatedOrForeignPatchesAreCaughtBeforeTheSwap() throws {
        let (store, bundles, contents) = try published()
        let good = store.patchPath("colorado", from: 1, to: 3)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: good))
        let out = dir.file("out.mbtiles")
        let expected = try TestBundle.tiles(bundles[2])
        /// "applied" only when the result holds exactly v3's tiles; else the error.
        func attempt(_ data: Data) throws -> String {
            let bad = dir.file("bad.patch")
            try? FileManager.default.removeItem(atPath: out)
            FileManager.default.createFile(atPath: bad, contents: data)
            do {
                try PatchApplier.apply([bad], to: bundles[0], output: out, expected: contents[2])
            } catch {
                #expect(!FileManager.default.fileExists(atPath: out), "nothing left after \(error)")
                return "\(error)"
            }
            return try TestBundle.tiles(out) == expected ? "applied" : "WRONG RESULT"
        }
        // Whatever byte is damaged, the result is refused or exactly the published version (a byte
        // SQLite never reads changes nothing); a damaged tile or page is always refused.
        var refused = 0
        for offset in [0, 20, 100, 4_096 + 10, bytes.count / 2, bytes.count - 50]
            + stride(from: 8_192, to: bytes.count, by: 7_919).map({ $0 })
        {
            var damaged = bytes
            damaged[offset] ^= 0x5A
            let outcome = try attempt(damaged)
            #expect(outcome != "WRONG RESULT", "a flipped byte at \(offset)")
            if outcome != "applied" { refused += 1 }
        }
        #expect(refused >= 5)

        #expect(try attempt(bytes.prefix(bytes.count / 3)) != "applied", "truncated")
        #expect(try attempt(Data("not a patch".utf8)) != "applied")
        // A patch for another base version, and a base modified locally.
        func outcome(_ patch: String, base: String) -> String {
            try? FileManager.default.removeItem(atPath: out)
            do {
                try PatchApplier.apply([patch], to: base, output: out, expected: contents[2])
                return "applied"
            } catch { return "\(error)" }
        }
        #expect(outcome(store.patchPath("colorado", from: 2, to: 3), base: bundles[0]).contains("is not the bundle the patch starts from"))
        let modified = dir.file("modified.mbtiles")
        try FileManager.default.copyItem(atPath: bundles[0], toPath: modified)
        #expect(try CLI.sqlite(modified, "UPDATE metadata SET value = 'changed' WHERE name = 'name'") == 0)
        #expect(outcome(good, base: modified).contains("changed locally"))
        #expect(!FileManager.default.fileExists(atPath: out))
        #expect(try TestBundle.tiles(bundles[0]).count > 0, "the base is left as it was")
    }
}

/// sqlite3 on a file.
enum CLI {
    static func sqlite(_ path: String, _ sql: String) throws -> Int32 {
        let p = ChildProcess()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        p.arguments = [path, sql]
        try p.run()
        p.waitUntilExit()
        return p.terminationStatus
    }
}

extension FileSHA256 {
    static func digestHex(_ path: String) throws -> String { try digest(path: path).hex }
}
