import Foundation
import Testing
import TrailMapTestSupport

/// Exit statuses: 0 done, 1 failed (a missing catalog, folder or bundle; an address in use), 64
/// only for usage errors; a failure names what it could not use.
@Suite struct ExitStatusCLITests {
    @Test func missingThingsFailWithOneAndUsageErrorsWith64() throws {
        let dir = TemporaryDirectory()
        let failures: [([String], String)] = [
            (["serve", "--tiles", dir.path, "--catalog", dir.file("none.sqlite")], "does not exist"),
            (["serve", "--tiles", dir.file("no-folder")], "is not a folder"),
            (["catalog", "list", "--catalog", dir.file("none.sqlite")], "catalog publish"),
            (["catalog", "revoke-tile-tokens", "--catalog", dir.file("none.sqlite")], "catalog publish"),
            (["trails", "add", dir.file("none.mbtiles"), "--trails", dir.file("t.geojson")], "no such bundle"),
        ]
        for (args, message) in failures {
            let r = try CLIRunner.run(args)
            #expect(r.status == 1 && r.stderr.contains(message), "\(args): \(r.status) \(r.stderr)")
        }
        let usage: [[String]] = [
            ["serve", "--tiles", dir.path, "--port", "70000"],
            ["serve", "--tiles", dir.path, "--port", "many"],
            ["regions", "near", "north"],
        ]
        for args in usage {
            let r = try CLIRunner.run(args)
            #expect(r.status == 64, "\(args): \(r.status) \(r.stderr)")
        }
    }

    /// A second server on the same port names the address and exits 1.
    @Test func addressInUseNamesTheAddress() throws {
        let dir = TemporaryDirectory()
        let (first, out, _) = try CLIRunner.start(["serve", "--tiles", dir.path, "--port", "0", "--log-level", "error"])
        defer { first.terminate(); first.waitUntilExit() }
        let line = String(decoding: out.fileHandleForReading.availableData, as: UTF8.self)
        let port = try #require(line.split(separator: ":").last.flatMap { Int($0.prefix { $0.isNumber }) }, "\(line)")
        let second = try CLIRunner.run(["serve", "--tiles", dir.path, "--host", "127.0.0.1", "--port", "\(port)", "--log-level", "critical"])
        #expect(second.status == 1, "\(second.status) \(second.stderr)")
        #expect(second.stderr.contains("127.0.0.1:\(port)") && second.stderr.contains("in use"), "\(second.stderr)")
    }
}
