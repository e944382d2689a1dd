import Foundation
import Testing
import TrailMapTestSupport

/// The server's answer for a missing Leaflet file names no flag (it is a library's); `serve`
/// says at start which flag gives the folder.
@Suite(.blockingThreads) struct ServeLeafletWarningCLITests {
    /// Starts `serve` with `leafletDir`, waits for its URL, stops it, and returns what it logged.
    private func startLog(tiles: String, leafletDir: String) throws -> String {
        let (p, out, err) = try CLIRunner.start(["serve", "--tiles", tiles, "--port", "0", "--leaflet-dir", leafletDir])
        let line = String(decoding: out.fileHandleForReading.availableData, as: UTF8.self)
        p.terminate()
        p.waitUntilExit()
        #expect(line.contains("http://"), "the server started: \(line)")
        return String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    }

    @Test func aLeafletFolderWithoutLeafletIsNamedWithItsFlag() throws {
        let dir = TemporaryDirectory()
        let tiles = dir.file("tiles"), leaflet = dir.file("leaflet")
        for folder in [tiles, leaflet] { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }
        let missing = try startLog(tiles: tiles, leafletDir: leaflet)
        #expect(missing.contains("holds no leaflet.js") && missing.contains("--leaflet-dir"), "\(missing)")

        #expect(FileManager.default.createFile(atPath: leaflet + "/leaflet.js", contents: Data("// leaflet".utf8)))
        let present = try startLog(tiles: tiles, leafletDir: leaflet)
        #expect(!present.contains("holds no leaflet.js"), "\(present)")
    }
}
