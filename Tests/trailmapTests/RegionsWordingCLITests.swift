import Foundation
import Testing
import TrailMapTestSupport

/// The device side's errors in the CLI's words: RegionManager throws structured cases whose own
/// descriptions name no command; the CLI adds the command that helps (`RegionsWording`).
@Suite(.blockingThreads) struct RegionsWordingCLITests {
    @Test func regionErrorsNameTheCommandThatHelps() throws {
        let server = try FreeAndPaidServer()
        let phone = server.device("phone")
        let out = try phone.run(["regions", "buy", FreeAndPaidServer.paidId])
        #expect(out.status == 1 && out.stderr.contains("account login --server"), "\(out.status) \(out.stderr)")
        #expect(try phone.run(["account", "register", "--email", "words@example.com", "--password", "correct-horse-battery"]).status == 0)
        let unowned = try phone.run(["regions", "install", FreeAndPaidServer.paidId])
        #expect(
            unowned.status == 1 && unowned.stderr.contains("Buy it first with `trailmap regions buy \(FreeAndPaidServer.paidId)`"),
            "\(unowned.stderr)")
        let unknown = try phone.run(["regions", "install", "com.test.none"])
        #expect(unknown.status == 1 && unknown.stderr.contains("Run `trailmap regions list` to see the product ids"), "\(unknown.stderr)")
        let missing = try phone.run(["regions", "uninstall", FreeAndPaidServer.freeId])
        #expect(missing.status == 1 && missing.stderr.contains("Run `trailmap regions status` to see what is"), "\(missing.stderr)")
    }
}
