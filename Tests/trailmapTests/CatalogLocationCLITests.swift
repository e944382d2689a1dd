import Foundation
import Testing
import TileGeometry
import TileStore
import TrailMapTestSupport

/// `--catalog` takes a SQLite path or a PostgreSQL URL; bad URLs and unreachable databases stop
/// the command with a clear message, never showing the password.
@Suite(.blockingThreads) struct CatalogLocationCLITests {
    @Test func badPostgresURLsAreRefusedWithoutShowingThePassword() throws {
        let dir = TemporaryDirectory()
        let cases: [([String], String)] = [
            (["catalog", "list", "--catalog", "postgres://ann:hunter2@db.example.com:5432"], "names no database"),
            (["catalog", "list", "--catalog", "postgresql://db.example.com/trail"], "names no user"),
            (["catalog", "revoke-tile-tokens", "--catalog", "postgres://ann:hunter2@db/trail?sslmode=maybe"], "sslmode"),
            (["catalog", "publish", "--tiles", dir.path, "--catalog", "mysql://ann:hunter2@db/trail"], "only postgres://"),
            (["serve", "--tiles", dir.path, "--catalog", "postgres://ann:hunter2@db:99999/trail"], "port")
        ]
        for (args, message) in cases {
            let r = try CLIRunner.run(args)
            #expect(r.status != 0, "\(args)")
            #expect(r.stderr.contains(message), "\(args): \(r.stderr)")
            #expect(!r.stderr.contains("hunter2") && !r.stdout.contains("hunter2"), "\(args): \(r.stderr)")
        }
    }

    /// Without the connect deadline the pool retries forever: the command ends, and its message
    /// says the deadline was the one asked for. (The time limit only guards a hang, generously: it
    /// counts the time the test waits for a thread too.)
    @Test(.timeLimit(.minutes(10))) func anUnreachableDatabaseIsAClearError() throws {
        let r = try CLIRunner.run([
            "catalog", "list", "--catalog", "postgres://ann:hunter2@127.0.0.1:1/trail?connect_timeout=1&sslmode=disable"
        ])
        #expect(r.status != 0)
        #expect(r.stderr.contains("cannot reach the PostgreSQL catalog postgres://ann:***@127.0.0.1:1/trail"), "\(r.stderr)")
        #expect(!r.stderr.contains("hunter2"))
        #expect(r.stderr.contains("within 1 s"), "\(r.stderr)")
    }

    @Test func publishListAndRevokeOnPostgres() async throws {
        let dir = TemporaryDirectory()
        let url = try await PostgresTestServer.freshDatabase()
        let meta = BundleMetadata(name: "world", bounds: .world, minZoom: 0, maxZoom: 1)
        let tile = try #require(TileID(z: 0, x: 0, y: 0))
        _ = try TestBundle.write([(tile, [1, 2, 3] as [UInt8])], to: dir.file("world.mbtiles"), metadata: meta)
        let products = dir.file("products.json")
        try Data(
            """
            {"products": [{"productId": "base", "title": "Base", "category": "Base maps",
              "price": {"amount": "0", "currency": "USD"}, "bundle": "world.mbtiles"}]}
            """.utf8
        ).write(to: URL(fileURLWithPath: products))
        let publish = try CLIRunner.run(["catalog", "publish", "--products", products, "--tiles", dir.path, "--catalog", url])
        #expect(publish.status == 0, "\(publish.stderr)")
        #expect(publish.stdout.contains("base: added, version 1"), "\(publish.stdout)")
        let list = try CLIRunner.run(["catalog", "list", "--json", "--catalog", url])
        #expect(list.status == 0 && list.stdout.contains("\"productId\" : \"base\""), "\(list.stdout) \(list.stderr)")
        let revoke = try CLIRunner.run(["catalog", "revoke-tile-tokens", "--catalog", url])
        #expect(revoke.status == 0 && revoke.stdout.contains("tile-token keys replaced"), "\(revoke.stdout) \(revoke.stderr)")
    }
}
