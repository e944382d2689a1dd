import BundlePatch
import Foundation
import Testing
import TrailMapTestSupport

/// A region updated by patch takes no more room on the device than the published file of that
/// version, and holds the same content (the same content hash).
@Suite(.serialized, .blockingThreads) struct PatchedSizeCLITests {
    static func bytes(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.intValue ?? -1
    }

    /// Pages per table and index (sqlite3's dbstat), for the message when sizes differ.
    static func pages(_ path: String) throws -> String {
        let r = try CLIRunner.run(
            [
                "-readonly", path,
                """
                PRAGMA page_size; PRAGMA auto_vacuum; PRAGMA freelist_count; SELECT name || ' ' || COUNT(*) || ' pages ' || \
                SUM(unused) || ' unused' FROM dbstat GROUP BY name ORDER BY name
                """
            ],
            executable: "/usr/bin/sqlite3")
        return r.stdout.split(separator: "\n").joined(separator: "; ")
    }

    @Test func aBundleUpdatedByPatchTakesNoMoreRoomThanThePublishedOne() throws {
        let id = DeltaUpdateTests.id
        let server = try DeltaUpdateTests.Server()
        let phone = DeltaUpdateTests.Device(
            state: server.dir.file("phone/state"), tiles: server.dir.file("phone/Tiles"), server: server.url)
        #expect(try phone.run(["account", "register", "--email", "size@example.com", "--password", "correct-horse-battery"]).status == 0)
        #expect(try phone.run(["regions", "buy", id]).status == 0)
        #expect(try phone.run(["regions", "install", id, "--quiet"]).status == 0)

        try server.sheet("west", patch: true)
        try server.sheet("east")
        try server.publish(version: "2.0.0", sources: ["west", "east"])
        try DeltaUpdateTests.waitForVersion(2, phone)
        let update = try phone.run(["regions", "update", id, "--json", "--quiet"])
        #expect(update.status == 0 && !update.stdout.contains("\\/"), "\(update.stdout)\(update.stderr)")
        let outcomes = try #require(
            try JSONSerialization.jsonObject(with: Data(update.stdout.utf8)) as? [[String: Any]], "\(update.stdout)")
        let patch = try #require(outcomes.first?["patch"] as? [String: Any], "updated by patch: \(outcomes)")
        #expect(patch["fromVersion"] as? Int == 1 && patch["toVersion"] as? Int == 2, "\(patch)")

        let published = try ContentHash.of(bundle: server.bundle).hash
        #expect(try ContentHash.of(bundle: phone.bundle).hash == published)
        let (device, file) = (Self.bytes(phone.bundle), Self.bytes(server.bundle))
        let (devicePages, filePages) = (try Self.pages(phone.bundle), try Self.pages(server.bundle))
        #expect(device > 0 && device <= file, "patched \(device) bytes [\(devicePages)], published \(file) bytes [\(filePages)]")
    }
}
