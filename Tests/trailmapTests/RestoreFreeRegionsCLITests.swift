import Foundation
import Testing
import TrailMapTestSupport

/// `regions restore` on a new device installs what the account bought and the free regions its
/// devices have installed (as the server recorded them), not free regions nobody installed.
@Suite(.serialized, .blockingThreads) struct RestoreFreeRegionsCLITests {
    static func restored(_ device: RegionsEndToEndTests.Device) throws -> [String: String] {
        let r = try device.run(["regions", "restore", "--json", "--quiet"])
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        let items = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]], "\(r.stdout)")
        return Dictionary(
            items.compactMap { i in (i["productId"] as? String).map { ($0, i["result"] as? String ?? "") } },
            uniquingKeysWith: { a, _ in a })
    }

    @Test func restoreReinstallsTheFreeRegionsTheAccountInstalled() throws {
        let server = try FreeAndPaidServer()
        let (paid, free) = (FreeAndPaidServer.paidId, FreeAndPaidServer.freeId)
        let login = ["--email", "restore@example.com", "--password", "correct-horse-battery"]
        let phone = server.device("phone")
        #expect(try phone.run(["account", "register"] + login).status == 0)
        #expect(try phone.run(["regions", "buy", paid]).status == 0)

        // Only the purchase was installed: a restore brings the purchase, not the free region.
        #expect(try phone.run(["regions", "install", paid, "--quiet"]).status == 0)
        let tablet = server.device("tablet")
        #expect(try tablet.run(["account", "login"] + login).status == 0)
        #expect(try Self.restored(tablet) == [paid: "installed"])

        // The free region installed on the phone: the next new device gets it too.
        #expect(try phone.run(["regions", "install", free, "--quiet"]).status == 0)
        let laptop = server.device("laptop")
        #expect(try laptop.run(["account", "login"] + login).status == 0)
        #expect(try Self.restored(laptop) == [paid: "installed", free: "installed"])
        let status = try laptop.run(["regions", "status"])
        #expect(status.stdout.contains(free) && status.stdout.contains(paid), "\(status.stdout)")
        #expect(try Self.restored(laptop) == [paid: "already_installed", free: "already_installed"])

        // Uninstalled everywhere: a restore no longer brings it.
        #expect(try phone.run(["regions", "uninstall", free]).status == 0)
        #expect(try laptop.run(["regions", "uninstall", free]).status == 0)
        let desktop = server.device("desktop")
        #expect(try desktop.run(["account", "login"] + login).status == 0)
        #expect(try Self.restored(desktop) == [paid: "installed"])
    }
}
