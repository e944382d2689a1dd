import Foundation
import Testing
import TrailMapTestSupport

/// Installs, updates and restores leave no lock file in the tiles or state folder, and two
/// installs at once into one device still lose no registry entry.
@Suite(.serialized, .blockingThreads) struct LockFileCLITests {
    @Test func concurrentInstallsAndRestoreLeaveNoLockFiles() throws {
        let server = try FreeAndPaidServer()
        let phone = server.device("phone")
        let login = ["--email", "locks@example.com", "--password", "correct-horse-battery"]
        #expect(try phone.run(["account", "register"] + login).status == 0)
        #expect(try phone.run(["regions", "buy", FreeAndPaidServer.paidId]).status == 0)

        // Two installs at once, as two processes, into one state folder and one tiles folder.
        let starts = try [FreeAndPaidServer.paidId, FreeAndPaidServer.freeId].map { id in
            try CLIRunner.start([
                "regions", "install", id, "--quiet", "--chunk-size", "4KB", "--server", phone.server,
                "--state-dir", phone.state, "--tiles", phone.tiles
            ])
        }
        for (p, _, err) in starts {
            let message = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            p.waitUntilExit()
            #expect(p.terminationStatus == 0, "\(message)")
        }
        let status = try phone.run(["regions", "status", "--json"])
        let report = try #require(try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any], "\(status.stdout)")
        let ids = Set(
            ((report["regions"] as? [[String: Any]]) ?? []).compactMap { ($0["region"] as? [String: Any])?["productId"] as? String })
        #expect(ids == [FreeAndPaidServer.paidId, FreeAndPaidServer.freeId], "\(status.stdout)")
        #expect(
            FreeAndPaidServer.lockFiles(phone.tiles).isEmpty && FreeAndPaidServer.lockFiles(phone.state).isEmpty,
            "\(FreeAndPaidServer.lockFiles(phone.tiles)) \(FreeAndPaidServer.lockFiles(phone.state))")

        // Update with nothing to do, uninstall, then a restore on another device.
        #expect(try phone.run(["regions", "update"]).status == 0)
        #expect(try phone.run(["regions", "uninstall", FreeAndPaidServer.freeId]).status == 0)
        let tablet = server.device("tablet")
        #expect(try tablet.run(["account", "login"] + login).status == 0)
        let restore = try tablet.run(["regions", "restore"])
        #expect(restore.status == 0, "\(restore.stdout)\(restore.stderr)")
        for folder in [phone.tiles, phone.state, tablet.tiles, tablet.state] {
            #expect(FreeAndPaidServer.lockFiles(folder).isEmpty, "\(folder): \(FreeAndPaidServer.lockFiles(folder))")
        }
    }
}
