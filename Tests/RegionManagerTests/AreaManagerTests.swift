import Foundation
import RegionManager
import Synchronization
import Testing
import TrailMapAPI
import TrailMapTestSupport

/// `RegionManager` with area offers and bought areas in the catalog: an offer is never bought or
/// installed like a region, and a bought area installs, shows and uninstalls like one.
@Suite struct AreaManagerTests {
    let id = StubStore.productId

    func manager(_ server: TestHTTPServer, _ tmp: TemporaryDirectory, _ name: String = "") throws -> RegionManager {
        try RegionManagerTests().manager(server, state: tmp.file("state\(name)"), tiles: tmp.file("Tiles\(name)"))
    }

    @Test func anAreaOfferIsNeitherBoughtNorInstalledWhole() async throws {
        let tmp = TemporaryDirectory()
        let store = StubStore(route: BundleRoute(data: TestData.bytes(10_000)))
        store.kind.withLock { $0 = .areaProduct }
        store.status.withLock { $0 = .forSale }
        let server = try TestHTTPServer(handler: store.respond)
        let m = try manager(server, tmp)
        do {
            _ = try await m.buy(id)
            Issue.record("bought an area offer as a region")
        } catch let error as RegionManagerError {
            #expect(error == .areaProduct(id))
            #expect(error.description.contains("sold per area") && !error.description.contains("trailmap"))
        }
        await #expect(throws: RegionManagerError.areaProduct(id)) { _ = try await m.install(id) }
        #expect(store.count("POST") == 0 && store.downloads == 0)
        #expect(try await m.list().first?.area == AreaTerms(maxBytes: 10 << 20, sources: ["test.mbtiles"]))
    }

    @Test func aBoughtAreaInstallsShowsAndUninstallsLikeARegion() async throws {
        let tmp = TemporaryDirectory()
        let store = StubStore(route: BundleRoute(data: TestData.bytes(50_000)))
        store.kind.withLock { $0 = .area }
        let server = try TestHTTPServer(handler: store.respond)
        let m = try manager(server, tmp)
        guard case .alreadyOwned = try await m.buy(id) else { Issue.record("bought an area twice"); return }
        let installed = try await m.install(id)
        #expect(installed.region.kind == .area)
        #expect(try FileDigest.sha256(path: installed.region.file) == store.route.sha256)
        #expect(try m.state.loadRegistry()[id]?.kind == .area, "the registry keeps the kind")
        let report = try await m.status()
        #expect(report.regions.map(\.kind) == [.area] && report.regions.first?.status == .installed)
        #expect(try await m.list().first?.areaOf == "com.test.areas")
        _ = try await m.uninstall(id)
        #expect(try m.state.loadRegistry().isEmpty)
        // Restored on a second device like any purchase.
        #expect(try await manager(server, tmp, "2").restore().map(\.result) == ["installed"])
        // Refunded: never bought again as a region (a new area is a new quote).
        store.status.withLock { $0 = .revoked }
        await #expect(throws: RegionManagerError.revoked(id)) { _ = try await m.buy(id) }
        #expect(store.count("POST") == 0)
    }

    @Test func registriesWrittenBeforeAreasStillRead() throws {
        let tmp = TemporaryDirectory()
        let state = try LocalState(directory: tmp.file("state"))
        let old =
            #"[{"productId":"a","title":"A","version":1,"sha256":"ab","size":3,"file":"/x/a.mbtiles","#
            + #""installedAt":"2026-11-22T01:02:03Z"}]"#
        try Data(old.utf8).write(to: URL(fileURLWithPath: state.registryPath))
        let region = try #require(try state.loadRegistry()["a"])
        #expect(region.kind == nil && region.version == 1)
    }
}
