import Foundation
#if canImport(Glibc)
import Glibc
#endif
import RegionManager
import Synchronization
import Testing
import TrailMapAPI
import TrailMapTestSupport

/// The facade against a stub store on a real socket: install, reinstall, uninstall, restore, refusals.
@Suite struct RegionManagerTests {
    let id = StubStore.productId

    func manager(
        _ server: TestHTTPServer, state: String, tiles: String, budget: Int64? = nil,
        freeSpace: @escaping Installer.FreeSpace = Installer.systemFreeSpace
    ) throws -> RegionManager {
        let local = try LocalState(directory: state)
        if try local.loadAccount() == nil {
            var account = AccountState(server: server.url.absoluteString)
            account.token = "tok"
            account.accountId = "acc"
            account.deviceId = "dev-1"
            account.deviceServer = server.url.absoluteString
            account.deviceAccountId = "acc"
            try local.saveAccount(account)
        }
        return try RegionManager(
            state: local, server: server.url,
            installer: Installer(tilesDirectory: tiles, storageBudget: budget, freeSpace: freeSpace),
            http: TestData.http(attempts: 2), chunkSize: 32 * 1024)
    }

    @Test func installUninstallReinstall() async throws {
        let tmp = TemporaryDirectory()
        let store = StubStore(route: BundleRoute(data: TestData.bytes(100_000)))
        let server = try TestHTTPServer(handler: store.respond)
        let m = try manager(server, state: tmp.file("state"), tiles: tmp.file("Tiles"))

        let first = try await m.install(id)
        #expect(!first.alreadyInstalled)
        #expect(first.warning == nil)
        #expect(first.region.file == tmp.file("Tiles/test.mbtiles"))
        #expect(try FileDigest.sha256(path: first.region.file) == store.route.sha256)
        #expect(try FileManager.default.contentsOfDirectory(atPath: tmp.file("Tiles")) == ["test.mbtiles"])
        #expect(store.count("PUT /api/v1/devices/dev-1/installs/") == 1)
        #expect(try await m.list().first?.status == .installed)

        let again = try await m.install(id)
        #expect(again.alreadyInstalled)
        #expect(store.downloads == 4) // 100,000 bytes in 32 KiB chunks, once

        let removed = try await m.uninstall(id)
        #expect(removed.freedBytes == 100_000)
        #expect(!FileManager.default.fileExists(atPath: first.region.file))
        #expect(store.count("DELETE /api/v1/devices/dev-1/installs/") == 1)
        #expect(try m.state.loadRegistry().isEmpty)
        #expect(try await m.show(id).status == .purchased)

        _ = try await m.install(id)
        #expect(FileManager.default.fileExists(atPath: first.region.file))
        await #expect(throws: RegionManagerError.notInstalled("other")) { _ = try await m.uninstall("other") }
    }

    @Test func budgetAndDiskRefuseBeforeAnyByte() async throws {
        let tmp = TemporaryDirectory()
        let store = StubStore(route: BundleRoute(data: TestData.bytes(100_000)))
        let server = try TestHTTPServer(handler: store.respond)
        let tight = try manager(server, state: tmp.file("state"), tiles: tmp.file("Tiles"), budget: 50_000)
        await #expect(throws: RegionManagerError.overBudget(needed: 100_000, used: 0, budget: 50_000)) { _ = try await tight.install(id) }
        let full = try manager(server, state: tmp.file("state"), tiles: tmp.file("Tiles"), freeSpace: { _ in 1000 })
        await #expect(throws: RegionManagerError.insufficientDisk(needed: 100_000, available: 1000, path: tmp.file("Tiles"))) {
            _ = try await full.install(id)
        }
        #expect(store.downloads == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: tmp.file("Tiles")).isEmpty)
    }

    @Test func corruptedUpdateKeepsThePreviousInstall() async throws {
        let tmp = TemporaryDirectory()
        let store = StubStore(route: BundleRoute(data: TestData.bytes(100_000)))
        let server = try TestHTTPServer(handler: store.respond)
        let m = try manager(server, state: tmp.file("state"), tiles: tmp.file("Tiles"))
        let v1 = try await m.install(id)
        let v1Hash = store.route.sha256

        let v2 = TestData.bytes(120_000, seed: 9)
        store.route.state.withLock {
            $0.data = v2; $0.sha256 = FileDigest.sha256(data: v2); $0.corruptAt = 5
        }
        store.version.withLock { $0 = 2 }
        #expect(try await m.status().regions.first?.status == .updateAvailable)
        await #expect(throws: RegionManagerError.self) { _ = try await m.update() }
        #expect(try FileDigest.sha256(path: v1.region.file) == v1Hash)
        #expect(try m.state.loadRegistry()[id]?.version == 1)
        #expect(try FileManager.default.contentsOfDirectory(atPath: tmp.file("Tiles")) == ["test.mbtiles"])

        store.route.state.withLock { $0.corruptAt = nil }
        let updated = try await m.update()
        #expect(updated.map(\.previousVersion) == [1])
        #expect(try FileDigest.sha256(path: v1.region.file) == FileDigest.sha256(data: v2))
    }

    @Test func revokedRegionIsReportedAndNotDownloaded() async throws {
        let tmp = TemporaryDirectory()
        let store = StubStore(route: BundleRoute(data: TestData.bytes(10_000)))
        let server = try TestHTTPServer(handler: store.respond)
        let m = try manager(server, state: tmp.file("state"), tiles: tmp.file("Tiles"))
        _ = try await m.install(id)
        store.status.withLock { $0 = .revoked }
        #expect(try await m.status().regions.first?.status == .revoked)
        #expect(try await m.show(id).status == .revoked)
        let other = try manager(server, state: tmp.file("state2"), tiles: tmp.file("Tiles2"))
        await #expect(throws: RegionManagerError.revoked(id)) { _ = try await other.install(id) }
        #expect(try await other.restore().map(\.result) == ["revoked"])
    }

    @Test func restoreOnASecondStateFolder() async throws {
        let tmp = TemporaryDirectory()
        let store = StubStore(route: BundleRoute(data: TestData.bytes(70_000)))
        let server = try TestHTTPServer(handler: store.respond)
        let m = try manager(server, state: tmp.file("state2"), tiles: tmp.file("Tiles2"))
        #expect(try await m.restore().map(\.result) == ["installed"])
        #expect(try await m.restore().map(\.result) == ["already_installed"])
        #expect(try FileDigest.sha256(path: tmp.file("Tiles2/test.mbtiles")) == store.route.sha256)
    }

    @Test func forSaleIsNotDownloadedAndOfflineStatusStillWorks() async throws {
        let tmp = TemporaryDirectory()
        let store = StubStore(route: BundleRoute(data: TestData.bytes(10_000)))
        store.status.withLock { $0 = .forSale }
        let server = try TestHTTPServer(handler: store.respond)
        let m = try manager(server, state: tmp.file("state"), tiles: tmp.file("Tiles"))
        await #expect(throws: RegionManagerError.notEntitled(id)) { _ = try await m.install(id) }
        #expect(try await m.near(latitude: 5, longitude: 5).map(\.productId) == [id])
        #expect(try await m.near(latitude: 50, longitude: 5).isEmpty)
        server.stop()
        let report = try await m.status()
        #expect(report.offlineReason?.contains("Cannot reach") == true)
    }

    @Test func buyChecksOwnershipFirstAndHandlesAlreadyOwned() async throws {
        let tmp = TemporaryDirectory()
        let store = StubStore(route: BundleRoute(data: TestData.bytes(1000)))
        let server = try TestHTTPServer(handler: store.respond)
        let m = try manager(server, state: tmp.file("state"), tiles: tmp.file("Tiles"))
        guard case .alreadyOwned = try await m.buy(id) else { Issue.record("bought an owned region"); return }
        #expect(store.count("POST") == 0)
        store.status.withLock { $0 = .forSale }
        guard case .purchased = try await m.buy(id) else { Issue.record("no purchase"); return }
        // The server knows better than a stale status: a second purchase answers alreadyOwned.
        guard case .alreadyOwned = try await m.buy(id) else { Issue.record("bought twice"); return }
        #expect(store.count("POST /api/v1/purchases") == 2)
        store.status.withLock { $0 = .unavailable }
        await #expect(throws: RegionManagerError.unavailable(id)) { _ = try await m.buy(id) }
    }

    @Test func aSecondDownloadOfTheSameRegionIsRefused() async throws {
        let tmp = TemporaryDirectory()
        let store = StubStore(route: BundleRoute(data: TestData.bytes(10_000)))
        let server = try TestHTTPServer(handler: store.respond)
        let m = try manager(server, state: tmp.file("state"), tiles: tmp.file("Tiles"))
        try FileManager.default.createDirectory(atPath: tmp.file("Tiles"), withIntermediateDirectories: true)
        let partial = PartialDownload(productId: id, directory: tmp.file("Tiles"))
        // CLOEXEC: a child process spawned meanwhile by another test must not keep the lock.
        let fd = open(partial.lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        #expect(flock(fd, LOCK_EX) == 0)
        await #expect(throws: RegionManagerError.downloadInProgress(id)) { _ = try await m.install(id) }
        #expect(store.downloads == 0)
        close(fd)
        // A download that fails half-way keeps its partial to resume, but not its lock file.
        store.route.state.withLock {
            $0.cutAtOffset = 5000; $0.cutsLeft = 2
        }
        await #expect(throws: RegionManagerError.self) { _ = try await m.install(id) }
        #expect(partial.bytesOnDisk > 0 && !FileManager.default.fileExists(atPath: partial.lockPath))
        _ = try await m.install(id)
        #expect(try FileManager.default.contentsOfDirectory(atPath: tmp.file("Tiles")) == ["test.mbtiles"])
    }
}
