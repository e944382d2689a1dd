import Foundation
import RegionManager
import Synchronization
import Testing
import TrailMapTestSupport

@Suite struct InstallerTests {
    let file = TestData.bytes(200_000, seed: 3)

    /// Corrupted bytes on the wire: the SHA-256 check refuses them, the partial is removed and
    /// the previously installed bundle is untouched.
    @Test func corruptedDownloadIsRefusedAndPreviousInstallStays() async throws {
        let dir = TemporaryDirectory()
        let previous = dir.file("region.mbtiles")
        try Data("previous version".utf8).write(to: URL(fileURLWithPath: previous))
        let route = BundleRoute(data: file)
        route.state.withLock { $0.corruptAt = 123_456 }
        let server = try TestHTTPServer(handler: route.respond)
        let job = TestData.job(server, route, dir: dir.path)
        try await Downloader(http: TestData.http(), chunkSize: 50_000).download(job)
        let installer = Installer(tilesDirectory: dir.path)
        #expect(throws: RegionManagerError.self) {
            try installer.install(
                job.partial, productId: job.productId, sha256: route.sha256, size: route.size,
                fileName: "region.mbtiles")
        }
        #expect(!FileManager.default.fileExists(atPath: job.partial.path))
        #expect(!FileManager.default.fileExists(atPath: job.partial.sidecarPath))
        #expect(try String(contentsOfFile: previous, encoding: .utf8) == "previous version")
        #expect(dir.contents == ["region.mbtiles"])
    }

    @Test func truncatedFileIsRefused() throws {
        let dir = TemporaryDirectory()
        let partial = PartialDownload(productId: "p", directory: dir.path)
        try file.prefix(1000).write(to: URL(fileURLWithPath: partial.path))
        let installer = Installer(tilesDirectory: dir.path)
        do {
            try installer.install(
                partial, productId: "p", sha256: FileDigest.sha256(data: file), size: Int64(file.count),
                fileName: "p.mbtiles")
            Issue.record("a truncated file was installed")
        } catch let error as RegionManagerError {
            guard case .checksumMismatch = error else { Issue.record("unexpected \(error)"); return }
            #expect(error.description.contains("corrupted"))
        }
        #expect(dir.contents.isEmpty)
    }

    @Test func goodFileIsRenamedIntoPlace() throws {
        let dir = TemporaryDirectory()
        let partial = PartialDownload(productId: "p", directory: dir.path)
        try file.write(to: URL(fileURLWithPath: partial.path))
        let path = try Installer(tilesDirectory: dir.path).install(
            partial, productId: "p", sha256: FileDigest.sha256(data: file), size: Int64(file.count), fileName: "p.mbtiles")
        #expect(path == dir.file("p.mbtiles"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == file)
        #expect(dir.contents == ["p.mbtiles"])
    }

    @Test func budgetRefusesBeforeDownloading() throws {
        let installer = Installer(tilesDirectory: "/tmp", storageBudget: 1000, freeSpace: { _ in .max })
        #expect(throws: RegionManagerError.overBudget(needed: 600, used: 500, budget: 1000)) {
            try installer.checkRoom(size: 600, alreadyDownloaded: 0, usedByOthers: 500)
        }
        try installer.checkRoom(size: 500, alreadyDownloaded: 0, usedByOthers: 500)
    }

    @Test func diskSpaceRefusesBeforeDownloadingAndCountsResumedBytes() throws {
        let installer = Installer(tilesDirectory: "/tmp", freeSpace: { _ in 100 })
        #expect(throws: RegionManagerError.insufficientDisk(needed: 150, available: 100, path: "/tmp")) {
            try installer.checkRoom(size: 200, alreadyDownloaded: 50, usedByOthers: 0)
        }
        try installer.checkRoom(size: 200, alreadyDownloaded: 100, usedByOthers: 0)
    }

    @Test func systemFreeSpaceIsPositive() throws {
        #expect(try Installer.systemFreeSpace("/tmp") > 0)
    }
}
