import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import RegionManager
import Testing
import TrailMapTestSupport

/// Hardening, finding 10: the CLI never holds a whole HTTP answer in memory and never reads more
/// than it asked for: a ranged request answered with a huge 200 or an over-long 206, and an API
/// call answered with a huge body, are cut off after at most what was asked (plus socket buffers).
@Suite struct ResponseLimitTests {
    static let size: Int64 = 100_000
    /// What the server may push into socket buffers before the client has to read.
    static let socketSlack = 8 << 20

    func job(_ server: TestHTTPServer, dir: String) -> Downloader.Job {
        Downloader.Job(
            url: server.url.appendingPathComponent("api/v1/downloads/r"), token: "t", productId: "r",
            sha256: String(repeating: "0", count: 64), size: Self.size, partial: PartialDownload(productId: "r", directory: dir))
    }

    // Hardening finding 10 (docs/notes/hardening.md).
    @Test(arguments: [nil, 1 << 30])
    func aHugeWholeFileAnswerToARangedRequestIsCutOff(declared: Int?) async throws {
        let dir = TemporaryDirectory()
        let sent = ByteCounter()
        let server = try TestHTTPServer { _ in
            TestHTTPServer.Response(status: 200, flood: .init(count: 1 << 30, declaredLength: declared, sent: sent))
        }
        await #expect(throws: RegionManagerError.self) {
            try await Downloader(http: TestData.http(), chunkSize: 64 << 10).download(job(server, dir: dir.path))
        }
        server.stop()
        #expect(sent.count < Self.socketSlack + Int(Self.size), "the client stopped reading: \(sent.count) bytes sent of 1 GiB")
        #expect(PartialDownload(productId: "r", directory: dir.path).bytesOnDisk <= Self.size)
    }

    // Hardening finding 10 (docs/notes/hardening.md).
    @Test func aPartialAnswerLongerThanItsRangeIsCutOff() async throws {
        let dir = TemporaryDirectory()
        let sent = ByteCounter()
        let server = try TestHTTPServer { _ in
            TestHTTPServer.Response(
                status: 206, headers: [("Content-Range", "bytes 0-65535/\(Self.size)")],
                flood: .init(count: 1 << 30, declaredLength: nil, sent: sent))
        }
        await #expect(throws: RegionManagerError.self) {
            try await Downloader(http: TestData.http(), chunkSize: 64 << 10).download(job(server, dir: dir.path))
        }
        server.stop()
        #expect(sent.count < Self.socketSlack + (64 << 10), "\(sent.count) bytes sent")
        #expect(PartialDownload(productId: "r", directory: dir.path).bytesOnDisk <= 64 << 10)
    }

    // Hardening finding 10 (docs/notes/hardening.md).
    @Test func anAPIAnswerIsCappedInMemory() async throws {
        let sent = ByteCounter()
        let server = try TestHTTPServer { _ in
            TestHTTPServer.Response(
                status: 200, headers: [("Content-Type", "application/json")],
                flood: .init(count: 1 << 30, declaredLength: nil, sent: sent))
        }
        let http = RetryingHTTPClient(retry: .none, timeout: 10, maxBodyBytes: 1 << 20)
        await #expect(throws: RegionManagerError.self) {
            _ = try await http.send(URLRequest(url: server.url.appendingPathComponent("api/v1/catalog")), idempotent: true)
        }
        server.stop()
        #expect(sent.count < Self.socketSlack + (1 << 20), "\(sent.count) bytes sent")
    }
}
