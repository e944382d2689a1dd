import BundlePatch
import Foundation
import RegionManager
import Synchronization
import Testing
import TileGeometry
import TileStore
import TrailMapAPI
import TrailMapTestSupport

/// Issue 36, findings 8 and 9: `regions update` against a server that sends a patch bomb or a
/// product id that is a path, over a real socket, with real SQLite patch files.
@Suite(.blockingThreads) struct HostileUpdateTests {
    /// A store answering as a malicious server would: one product (`productId`, whatever it is),
    /// version 1 until `version` is raised, its whole bundle `bundle`, an update offer of one patch
    /// `patch` to `toContent`.
    final class HostileStore: Sendable {
        let productId: String
        let bundle: BundleRoute
        let patch: BundleRoute
        let toContent: String
        let version = Mutex(1)
        let log = Mutex<[String]>([])

        init(productId: String, bundle: Data, patch: Data, toContent: String) {
            self.productId = productId
            self.bundle = BundleRoute(data: bundle)
            self.patch = BundleRoute(data: patch)
            self.toContent = toContent
        }

        func summary() -> ProductSummary {
            ProductSummary(
                productId: productId, title: "Hostile", category: "Test", price: Price(amount: "1.99", currency: "USD"),
                version: version.withLock { $0 }, size: bundle.size, sha256: bundle.sha256, minzoom: 3, maxzoom: 5,
                bounds: [-110, 36, -101, 42], tileset: "notes", status: .purchased)
        }

        func respond(_ request: TestHTTPServer.Request) -> TestHTTPServer.Response {
            log.withLock { $0.append("\(request.method) \(request.path)") }
            let path = request.path.split(separator: "?").first.map(String.init) ?? request.path
            if request.method == "GET", path == "/api/v1/catalog" {
                return StubStore.json(200, CatalogListing(categories: [], products: [summary()]))
            }
            if request.method == "GET", path.hasPrefix("/api/v1/catalog/") {
                return StubStore.json(
                    200,
                    ProductDetail(
                        summary: summary(),
                        coverage: Coverage(
                            productId: productId, title: "Hostile",
                            west: -110, south: 36, east: -101, north: 42),
                        previewTileURL: "/p.png", downloadURL: "/api/v1/downloads/x", tileJSONURL: "/t.json",
                        publishedAt: "2026-11-26T00:00:00Z"))
            }
            if request.method == "GET", path.hasPrefix("/api/v1/updates/") {
                let link = PatchLink(fromVersion: 1, toVersion: 2, size: patch.size, sha256: patch.sha256, url: "/api/v1/patches/x/1-2")
                return StubStore.json(
                    200,
                    ProductUpdate(
                        productId: productId, fromVersion: 1, toVersion: 2, fullSize: bundle.size,
                        sha256: bundle.sha256, contentHash: toContent, patches: [link]))
            }
            if request.method == "GET", path.hasPrefix("/api/v1/patches/") { return patch.respond(request) }
            if request.method == "GET", path.hasPrefix("/api/v1/downloads/") { return bundle.respond(request) }
            if request.method == "PUT", path.contains("/installs/") {
                return StubStore.json(200, InstallResult(productId: productId, version: 2))
            }
            return StubStore.json(404, APIErrorBody(code: "not_found", message: "no route"))
        }
    }

    /// A real bundle of a few hundred KB: zooms 3-8 over a box, 2.5 KB tiles.
    static func baseBundle(at path: String) throws -> Data {
        var tiles = [TileID: [UInt8]]()
        for z in 3...8 {
            for t in TileRange(bounds: GeoBounds(west: -110, south: 36, east: -101, north: 42), zoom: z) {
                tiles[t] = [UInt8](repeating: UInt8((t.x * 7 + t.y * 3 + z) & 255), count: 2500 + t.x % 50)
            }
        }
        try TestBundle.write(
            tiles, to: path,
            metadata: BundleMetadata(
                name: "Base", bounds: GeoBounds(west: -110, south: 36, east: -101, north: 42),
                minZoom: 3, maxZoom: 8))
        return try Data(contentsOf: URL(fileURLWithPath: path))
    }

    static func manager(_ server: TestHTTPServer, state: String, tiles: String, budget: Int64? = nil) throws -> RegionManager {
        let local = try LocalState(directory: state)
        var account = AccountState(server: server.url.absoluteString)
        account.token = "tok"
        account.accountId = "acc"
        account.deviceId = "dev-1"
        account.deviceServer = server.url.absoluteString
        account.deviceAccountId = "acc"
        try local.saveAccount(account)
        return try RegionManager(
            state: local, server: server.url, installer: Installer(tilesDirectory: tiles, storageBudget: budget),
            http: TestData.http(attempts: 2), chunkSize: 64 * 1024)
    }

    /// Finding 8: a 36 KB patch whose `put` is a recursive view of 4,000 distinct 8 KiB tiles,
    /// its header and the server's content hash naming exactly what it makes (so, unchecked, it
    /// applied, "content verified", 32 MB past a 1 MB storage budget). It is refused before any
    /// row is read, the installed bundle is kept, and the update falls back to the whole bundle.
    @Test func aPatchBombIsRefusedAndTheInstalledBundleKept() async throws {
        let tmp = TemporaryDirectory()
        let base = try Self.baseBundle(at: tmp.file("v1.mbtiles"))
        let from = try ContentHash.of(bundle: tmp.file("v1.mbtiles")).hash
        // What the bomb makes of the base, so that its hash checks out.
        try FileManager.default.copyItem(atPath: tmp.file("v1.mbtiles"), toPath: tmp.file("bombed.mbtiles"))
        try CraftedPatch.addRows(4000, to: tmp.file("bombed.mbtiles"))
        let to = try ContentHash.of(bundle: tmp.file("bombed.mbtiles")).hash
        try CraftedPatch.write(to: tmp.file("bomb.patch"), from: from, to: to, put: CraftedPatch.bombView(rows: 4000))
        let bomb = try Data(contentsOf: URL(fileURLWithPath: tmp.file("bomb.patch")))
        #expect(bomb.count < 64 << 10 && bomb.count < base.count / 4, "a small file: \(bomb.count) bytes, the bundle \(base.count)")

        // The whole bundle the server falls back to is the base's bytes again.
        let store = HostileStore(productId: "com.test.hostile", bundle: base, patch: bomb, toContent: to)
        let server = try TestHTTPServer(handler: store.respond)
        defer { server.stop() }
        let budget = Int64(base.count) + (1 << 20)
        let m = try Self.manager(server, state: tmp.file("state"), tiles: tmp.file("Tiles"), budget: budget)
        let installed = try await m.install(store.productId).region
        store.version.withLock { $0 = 2 }

        let outcomes = try await m.update(store.productId)
        let outcome = try #require(outcomes.first)
        #expect(outcome.patch == nil, "the bomb was applied: \(outcome.region.size) bytes installed")
        let reason = outcome.patchFallback ?? ""
        #expect(reason.contains("refused, not a plain patch") && reason.contains("view \"put\""), "\(reason)")
        #expect(store.log.withLock { $0.filter { $0.hasPrefix("GET /api/v1/patches/") }.count } >= 1, "the patch was offered and fetched")
        #expect(try Data(contentsOf: URL(fileURLWithPath: installed.file)) == base, "the installed bundle is the base's bytes")
        #expect(try ContentHash.of(bundle: installed.file).hash == from)
        #expect(try m.state.loadRegistry()[store.productId].map { $0.size <= budget } == true)
        let left = try FileManager.default.contentsOfDirectory(atPath: tmp.file("Tiles"))
        #expect(left == ["notes.mbtiles"], "no patched copy or patch left: \(left)")
    }

    /// Finding 8, room: a real patch whose result would pass the storage budget is not even
    /// downloaded (unchecked, it was applied past the budget); the whole bundle, which fits,
    /// comes instead.
    @Test func aPatchThatWouldPassTheBudgetIsNotDownloaded() async throws {
        let tmp = TemporaryDirectory()
        let base = try Self.baseBundle(at: tmp.file("v1.mbtiles"))
        let from = try ContentHash.of(bundle: tmp.file("v1.mbtiles")).hash
        try FileManager.default.copyItem(atPath: tmp.file("v1.mbtiles"), toPath: tmp.file("v2.mbtiles"))
        try CraftedPatch.addRows(150, bytes: 1000, to: tmp.file("v2.mbtiles"))
        let to = try ContentHash.of(bundle: tmp.file("v2.mbtiles")).hash
        try CraftedPatch.write(to: tmp.file("big.patch"), from: from, to: to, put: CraftedPatch.realPut(rows: 150, bytes: 1000))
        let patch = try Data(contentsOf: URL(fileURLWithPath: tmp.file("big.patch")))
        #expect(patch.count > 100_000 && patch.count < base.count, "\(patch.count) of \(base.count)")

        let store = HostileStore(productId: "com.test.big", bundle: base, patch: patch, toContent: to)
        let server = try TestHTTPServer(handler: store.respond)
        defer { server.stop() }
        let budget = Int64(base.count) + 100_000
        let m = try Self.manager(server, state: tmp.file("state"), tiles: tmp.file("Tiles"), budget: budget)
        let installed = try await m.install(store.productId).region
        store.version.withLock { $0 = 2 }
        let outcome = try #require(try await m.update(store.productId).first)
        #expect(outcome.patch == nil, "applied past the budget: \(outcome.region.size) bytes")
        #expect(outcome.patchFallback?.contains("storage budget") == true, "\(outcome.patchFallback ?? "no fallback")")
        #expect(store.log.withLock { $0.filter { $0.hasPrefix("GET /api/v1/patches/") } }.isEmpty, "the patch was not downloaded")
        #expect(try Data(contentsOf: URL(fileURLWithPath: installed.file)) == base)
    }

    /// Finding 9: a product id that is a path (`/../victim/notes`) never becomes one. Installed
    /// under that id by an earlier client, `update` would have written the patched copy to
    /// `Tiles/./../victim/notes.patched` (deleting what was there) and moved it over the bundle;
    /// now the catalog is refused with `unsafeName` and nothing outside the tiles folder changes.
    @Test func aProductIdThatIsAPathNeverBecomesOne() async throws {
        let tmp = TemporaryDirectory()
        let id = "/../victim/notes"
        let base = try Self.baseBundle(at: tmp.file("v1.mbtiles"))
        let content = try ContentHash.of(bundle: tmp.file("v1.mbtiles")).hash
        // A harmless patch (real tables, nothing to change) whose result checks out.
        try CraftedPatch.write(to: tmp.file("same.patch"), from: content, to: content, put: CraftedPatch.emptyPut)
        let store = HostileStore(
            productId: id, bundle: base, patch: try Data(contentsOf: URL(fileURLWithPath: tmp.file("same.patch"))),
            toContent: content)
        let server = try TestHTTPServer(handler: store.respond)
        defer { server.stop() }
        let m = try Self.manager(server, state: tmp.file("state"), tiles: tmp.file("Tiles"))
        try FileManager.default.createDirectory(atPath: tmp.file("Tiles"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: tmp.file("victim"), withIntermediateDirectories: true)
        let bundle = tmp.file("Tiles/notes.mbtiles")
        try base.write(to: URL(fileURLWithPath: bundle))
        let victim = tmp.file("victim/notes.patched")
        try Data("precious".utf8).write(to: URL(fileURLWithPath: victim))
        try m.state.saveRegistry([
            id: InstalledRegion(
                productId: id, title: "Hostile", version: 1, sha256: store.bundle.sha256,
                size: Int64(base.count), file: bundle, installedAt: Date())
        ])
        store.version.withLock { $0 = 2 }

        await #expect(throws: RegionManagerError.unsafeName(field: "product id", value: id)) { _ = try await m.update() }
        await #expect(throws: RegionManagerError.unsafeName(field: "product id", value: id)) { _ = try await m.update(id) }
        await #expect(throws: RegionManagerError.unsafeName(field: "product id", value: id)) { _ = try await m.install(id) }
        await #expect(throws: RegionManagerError.unsafeName(field: "product id", value: id)) { _ = try await m.list() }
        #expect(FileManager.default.contents(atPath: victim) == Data("precious".utf8), "the file outside the tiles folder is untouched")
        #expect(FileManager.default.contents(atPath: bundle) == base)
        #expect(store.log.withLock { $0.filter { $0.hasPrefix("GET /api/v1/patches/") || $0.hasPrefix("GET /api/v1/downloads/") } }.isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: tmp.file("Tiles")) == ["notes.mbtiles"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: tmp.file("victim")) == ["notes.patched"])
    }
}
