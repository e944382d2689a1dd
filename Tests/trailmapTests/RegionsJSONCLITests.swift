import Foundation
import Testing
import TrailMapTestSupport

/// `--json` on `regions buy`, `install` and `update`: stdout is one JSON document in the house
/// style (no `\/`, though paths are in it), whatever else the command says goes to stderr.
@Suite(.serialized, .blockingThreads) struct RegionsJSONCLITests {
    static let id = RegionsRoughEdgesTests.paidId

    /// The whole of stdout parsed as one JSON object (nothing else mixed in).
    static func object(_ r: CLIRunner.Result) throws -> [String: Any] {
        #expect(r.status == 0, "\(r.status) \(r.stderr)")
        #expect(!r.stdout.contains("\\/"), "\(r.stdout)")
        return try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any], "\(r.stdout)")
    }

    @Test func buyInstallUpdatePrintJSON() throws {
        let server = try RegionsRoughEdgesTests.SouthernServer()
        let phone = server.device("phone")
        let register = try phone.run(["account", "register", "--email", "json@example.com", "--password", "correct-horse-battery"])
        #expect(register.status == 0, "\(register.stderr)")

        let bought = try Self.object(try phone.run(["regions", "buy", Self.id, "--json"]))
        #expect(bought["productId"] as? String == Self.id && bought["result"] as? String == "purchased", "\(bought)")
        #expect(
            !((bought["transactionId"] as? String) ?? "").isEmpty && (bought["price"] as? [String: Any])?["amount"] as? String == "2.99")
        let again = try Self.object(try phone.run(["regions", "buy", Self.id, "--json"]))
        #expect(again["result"] as? String == "already_owned" && again["transactionId"] == nil, "\(again)")

        let installed = try Self.object(try phone.run(["regions", "install", Self.id, "--json"]))
        let region = try #require(installed["region"] as? [String: Any], "\(installed)")
        let file = try #require(region["file"] as? String)
        #expect(file.hasPrefix(phone.tiles + "/") && FileManager.default.fileExists(atPath: file), "\(file)")
        #expect(region["productId"] as? String == Self.id && installed["alreadyInstalled"] as? Bool == false, "\(installed)")
        let twice = try Self.object(try phone.run(["regions", "install", Self.id, "--json"]))
        #expect(twice["alreadyInstalled"] as? Bool == true, "\(twice)")

        let update = try phone.run(["regions", "update", "--json"])
        #expect(update.status == 0 && !update.stdout.contains("\\/"), "\(update.stderr)")
        #expect((try JSONSerialization.jsonObject(with: Data(update.stdout.utf8)) as? [Any])?.isEmpty == true, "\(update.stdout)")

        // A failure is a message on stderr and exit 1, with nothing on stdout to parse.
        let missing = try phone.run(["regions", "install", "com.test.nothing", "--json"])
        #expect(
            missing.status == 1 && missing.stdout.isEmpty && !missing.stderr.isEmpty,
            "\(missing.status) \(missing.stdout) \(missing.stderr)")
    }
}
