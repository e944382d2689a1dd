import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing
import TileCache
import TileGeometry
import TileStore
@testable import TrailMapServer
import TrailMapTestSupport

/// Bundles added, replaced, removed and broken while the server runs.
@Suite struct HotReloadTests {
    let fixture = ServerFixture()

    /// Polls until `check` holds (the folder is rescanned every 100 ms).
    func eventually(_ check: () async throws -> Bool) async throws -> Bool {
        for _ in 0..<100 {
            if try await check() { return true }
            try await Task.sleep(for: .milliseconds(50))
        }
        return false
    }

    @Test func noticesAddedReplacedRemovedAndBrokenBundles() async throws {
        try fixture.bundle("a")
        var config = ServerConfiguration(tilesDirectory: fixture.dir.path)
        config.port = 0
        config.reloadInterval = .milliseconds(100)
        let tile = "/tiles/b/2/0/1.png"
        try await TileServer.makeApplication(config: config).test(.live) { client in
            #expect(try await client.execute(uri: tile, method: .get).status == .notFound)
            try fixture.bundle("b")
            #expect(try await eventually { try await client.execute(uri: tile, method: .get).status == .ok }, "added")
            let before = try await client.execute(uri: tile, method: .get).headers[.eTag]

            try fixture.bundle("b", shade: 99)
            #expect(try await eventually { try await client.execute(uri: tile, method: .get).headers[.eTag] != before }, "replaced")

            try FileManager.default.removeItem(atPath: fixture.dir.file("b.mbtiles"))
            #expect(try await eventually { try await client.execute(uri: tile, method: .get).status == .serviceUnavailable }, "removed")

            try Data(repeating: 7, count: 8192).write(to: URL(fileURLWithPath: fixture.dir.file("broken.mbtiles")))
            #expect(
                try await eventually {
                    try await client.execute(uri: "/tiles/broken/2/0/1.png", method: .get).status == .serviceUnavailable
                }, "corrupt")
            let broken = try await client.execute(uri: "/tiles/broken.json", method: .get)
            #expect(broken.status == .serviceUnavailable && String(buffer: broken.body).contains("tileset_unavailable"))
            #expect(try await client.execute(uri: "/tiles/a/2/0/1.png", method: .get).status == .ok, "the rest keep serving")
        }
    }

    @Test func requestsInFlightFinishOnTheOldFile() throws {
        let path = try fixture.bundle("c")
        let registry = TilesetRegistry(directory: fixture.dir.path)
        registry.refresh()
        guard case let .found(old) = registry.lookup("c") else { Issue.record("not found"); return }
        let t = TileID(z: 3, x: 1, y: 3)!
        let oldBytes = try old.read(t)?.bytes
        try fixture.bundle("c", shade: 42)
        #expect(registry.refresh() == 1)
        guard case let .found(new) = registry.lookup("c") else { Issue.record("not found"); return }
        #expect(new !== old)
        // The old tileset (held by a request in flight) still reads the file it was opened on.
        #expect(try old.read(t)?.bytes == oldBytes)
        #expect(try new.read(t)?.bytes != oldBytes)
        #expect(FileManager.default.fileExists(atPath: path))
    }
}
