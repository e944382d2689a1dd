import Foundation
import Testing
import TrailMapTestSupport

/// Bad store options and catalog files stop the command with a clear message and a non-zero exit.
@Suite(.blockingThreads) struct StoreCommandErrorTests {
    @Test func badStoreOptionsAreRefused() throws {
        let dir = TemporaryDirectory()
        let cases: [([String], String)] = [
            (["serve", "--tiles", dir.path, "--catalog", dir.file("none.sqlite")], "does not exist"),
            (["serve", "--tiles", dir.path, "--store-root-cert", dir.file("root.pem")], "--store-bundle-id"),
            (["serve", "--tiles", dir.path, "--available-products", "a,b c"], "product ids"),
            (["serve", "--tiles", dir.path, "--area-quote-space", "0"], "--area-quote-space must be a number of megabytes"),
            (["serve", "--tiles", dir.path, "--area-quote-space", "lots"], "area-quote-space"),
            (["serve", "--tiles", dir.path, "--request-timeout", "0"], "--request-timeout must be in (0, 3600]"),
            (["serve", "--tiles", dir.path, "--idle-timeout=-5"], "--idle-timeout must be in (0, 86400]"),
            (
                [
                    "catalog", "publish", "--products", dir.file("missing.json"), "--tiles", dir.path,
                    "--catalog", dir.file("c.sqlite")
                ], "missing.json"
            ),
            (["catalog", "list", "--catalog", dir.file("none.sqlite")], "catalog publish"),
            (["catalog", "revoke-tile-tokens", "--catalog", dir.file("none.sqlite")], "catalog publish")
        ]
        for (args, message) in cases {
            let r = try CLIRunner.run(args)
            #expect(r.status != 0, "\(args)")
            #expect(r.stderr.contains(message), "\(args): \(r.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: dir.file("c.sqlite")), "a failed publish creates no catalog")
    }

    /// Hardening finding 6: a sandbox store never runs beside a real store's root certificate.
    // Hardening finding 6 (docs/notes/hardening.md).
    @Test func sandboxAndRealRootAreRefusedTogether() throws {
        let dir = TemporaryDirectory()
        let r = try CLIRunner.run([
            "serve", "--tiles", dir.path, "--store-sandbox", dir.file("sandbox"),
            "--store-root-cert", dir.file("root.pem"), "--store-bundle-id", "com.example.app"
        ])
        #expect(r.status != 0 && r.stderr.contains("--store-sandbox and --store-root-cert exclude each other"), "\(r.stderr)")
    }

    /// Hardening finding 11: a short admin token is refused, on the command line or in the environment.
    // Hardening finding 11 (docs/notes/hardening.md).
    @Test func aShortAdminTokenIsRefused() throws {
        let dir = TemporaryDirectory()
        let r = try CLIRunner.run(["serve", "--tiles", dir.path, "--admin-token", "hunter2"])
        #expect(r.status != 0 && r.stderr.contains("at least 24 characters"), "\(r.stderr)")
        let e = try CLIRunner.run(
            ["TRAILMAP_ADMIN_TOKEN=short", CLIRunner.binary, "serve", "--tiles", dir.path], executable: "/usr/bin/env")
        #expect(e.status != 0 && e.stderr.contains("at least 24 characters"), "\(e.stderr)")
    }
}
