import Foundation
import Synchronization
import RegionManager
import Testing
import TrailMapTestSupport

@Suite struct DownloaderTests {
    let file = TestData.bytes(300_000)
    let chunk = 64 * 1024

    @Test func downloadsInRangedChunksWithProgress() async throws {
        let dir = TemporaryDirectory()
        let route = BundleRoute(data: file)
        let server = try TestHTTPServer(handler: route.respond)
        let seen = ProgressLog()
        try await Downloader(http: TestData.http(), chunkSize: chunk).download(TestData.job(server, route, dir: dir.path)) {
            seen.append($0)
        }
        let job = TestData.job(server, route, dir: dir.path)
        #expect(try FileDigest.sha256(path: job.partial.path) == route.sha256)
        #expect(route.rangeStarts == [0, 65536, 131072, 196608, 262144])
        #expect(seen.values.last?.received == Int64(file.count))
        #expect(seen.values.map(\.received) == seen.values.map(\.received).sorted())
    }

    /// A connection cut at several offsets, no retry: the run fails, the partial keeps whole chunks,
    /// and the next run asks only for the rest (Range: bytes=N-) and ends with the exact SHA-256.
    @Test(arguments: [1, 65_535, 65_536, 100_000, 299_999])
    func resumesAfterACut(at offset: Int) async throws {
        let dir = TemporaryDirectory()
        let route = BundleRoute(data: file)
        route.state.withLock {
            $0.cutAtOffset = Int64(offset); $0.cutsLeft = 1
        }
        let server = try TestHTTPServer(handler: route.respond)
        let job = TestData.job(server, route, dir: dir.path)
        let downloader = Downloader(http: TestData.http(attempts: 1), chunkSize: chunk)
        await #expect(throws: RegionManagerError.self) { try await downloader.download(job) }
        // Whole chunks are kept, and of the cut one what arrived before the cut (streamed to disk).
        let kept = job.partial.bytesOnDisk
        #expect(kept >= Int64(offset / chunk * chunk) && kept <= Int64(offset), "kept \(kept) of a cut at \(offset)")
        #expect(job.partial.resumableBytes(sha256: route.sha256, size: route.size) == kept)

        let before = route.rangeStarts.count
        let seen = ProgressLog()
        try await downloader.download(job) { seen.append($0) }
        #expect(route.rangeStarts[before] == kept)
        #expect(seen.values.first?.resumedFrom == kept)
        let installer = Installer(tilesDirectory: dir.path)
        let installed = try installer.install(
            job.partial, productId: job.productId, sha256: route.sha256, size: route.size,
            fileName: "region.mbtiles")
        #expect(try FileDigest.sha256(path: installed) == FileDigest.sha256(data: file))
    }

    @Test func retriesACutChunkWithinOneRun() async throws {
        let dir = TemporaryDirectory()
        let route = BundleRoute(data: file)
        route.state.withLock {
            $0.cutAtOffset = 150_000; $0.cutsLeft = 2
        }
        let server = try TestHTTPServer(handler: route.respond)
        let job = TestData.job(server, route, dir: dir.path)
        try await Downloader(http: TestData.http(attempts: 4), chunkSize: chunk).download(job)
        #expect(try FileDigest.sha256(path: job.partial.path) == route.sha256)
        // The cut chunk was asked for three times (from where each attempt stopped).
        #expect(route.rangeStarts.filter { (131_072..<196_608).contains($0) }.count == 3)
    }

    @Test func partialOfAnotherVersionStartsAfresh() async throws {
        let dir = TemporaryDirectory()
        let old = BundleRoute(data: TestData.bytes(200_000, seed: 7))
        old.state.withLock {
            $0.cutAtOffset = 150_000; $0.cutsLeft = 1
        }
        let oldServer = try TestHTTPServer(handler: old.respond)
        let downloader = Downloader(http: TestData.http(), chunkSize: chunk)
        await #expect(throws: RegionManagerError.self) { try await downloader.download(TestData.job(oldServer, old, dir: dir.path)) }

        let route = BundleRoute(data: file)
        let server = try TestHTTPServer(handler: route.respond)
        let job = TestData.job(server, route, dir: dir.path)
        #expect(job.partial.resumableBytes(sha256: route.sha256, size: route.size) == 0)
        try await downloader.download(job)
        #expect(route.rangeStarts.first == 0)
        #expect(try FileDigest.sha256(path: job.partial.path) == route.sha256)
    }

    @Test func notEntitledIsReportedAsSuch() async throws {
        let dir = TemporaryDirectory()
        let route = BundleRoute(data: file)
        let server = try TestHTTPServer { _ in .json(403, #"{"error":{"code":"not_entitled","message":"buy it"}}"#) }
        await #expect(throws: RegionManagerError.notEntitled("com.test.region")) {
            try await Downloader(http: TestData.http()).download(TestData.job(server, route, dir: dir.path))
        }
    }
}

/// Collects progress reports from a `@Sendable` callback.
final class ProgressLog: Sendable {
    private let log = Mutex<[DownloadProgress]>([])
    func append(_ p: DownloadProgress) { log.withLock { $0.append(p) } }
    var values: [DownloadProgress] { log.withLock { $0 } }
}
