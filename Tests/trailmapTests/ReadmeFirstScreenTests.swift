import Foundation
import Testing
import TrailMapTestSupport

/// README.md's first screen, tried as a new user would: it says what `scripts/run.sh` does and
/// that its first run compiles for about ten minutes, indexes the docs (every linked page exists),
/// and its three commands "by hand" build, serve and open a region. They are run as written, with
/// the tests' binary for `.build/release/trailmap`, the output and the served folder in a temporary
/// folder and any free port.
@Suite(.blockingThreads) struct ReadmeFirstScreenTests {
    static let readme = (try? String(contentsOf: ArchitectureDocTests.root.appendingPathComponent("README.md"), encoding: .utf8)) ?? ""

    @Test func firstScreenSaysWhatRunDoesAndIndexesTheDocs() throws {
        let top = String(Self.readme.prefix(4000))
        #expect(top.contains("scripts/run.sh") && top.contains("about ten minutes"), "the first screen: \(top.prefix(600))")
        #expect(Self.readme.contains("## Documentation"))
        let links = Self.readme.matches(of: /\]\((docs\/[a-z0-9-]+\.md)\)/).map { String($0.1) }
        #expect(links.count >= 10, "the docs index: \(links)")
        for link in Set(links) {
            #expect(
                FileManager.default.fileExists(atPath: ArchitectureDocTests.root.appendingPathComponent(link).path),
                "\(link) is linked but missing")
        }
    }

    @Test func theThreeCommandsBuildServeAndOpenARegion() throws {
        let block = try #require(
            Self.readme.components(separatedBy: "## By hand").dropFirst().first?
                .components(separatedBy: "```sh\n").dropFirst().first?.components(separatedBy: "```").first, "no 'By hand' block")
        let commands = block.split(separator: "\n").map {
            String($0.split(separator: "#").first ?? "").trimmingCharacters(in: .whitespaces)
        }
        #expect(commands.count == 3, "\(commands)")
        let dir = TemporaryDirectory()
        let tiles = dir.file("Tiles")
        try FileManager.default.createDirectory(atPath: tiles, withIntermediateDirectories: true)
        // Words as a shell splits these (no quotes but the URL's).
        func words(_ line: String) -> [String] { line.split(separator: " ").map { $0.replacingOccurrences(of: "'", with: "") } }

        // 1. build, from the repository (the sample source), into the temporary Tiles folder.
        var build = words(commands[0])
        #expect(build.first == ".build/release/trailmap" && build.dropFirst().first == "build", "\(build)")
        build = build.dropFirst().map {
            $0.hasPrefix("Tiles/my-") ? (tiles as NSString).appendingPathComponent(($0 as NSString).lastPathComponent) : $0
        }
        let built = try CLIRunner.run(build, cwd: ArchitectureDocTests.root.path)
        #expect(built.status == 0, "\(build): \(built.stderr)")

        // 2. serve that folder on a free port.
        var serve = Array(words(commands[1]).dropFirst())
        #expect(serve.first == "serve", "\(serve)")
        serve = serve.map { $0 == "Tiles" ? tiles : $0 }
        if let p = serve.firstIndex(of: "--port") { serve[p + 1] = "0" }
        let (server, out, _) = try CLIRunner.start(serve)
        defer {
            server.terminate()
            server.waitUntilExit()
        }
        let firstLine = String(decoding: out.fileHandleForReading.availableData, as: UTF8.self)
        let base = try #require(firstLine.split(separator: " ").first { $0.hasPrefix("http://") }.map(String.init), "\(firstLine)")

        // 3. the address it opens: the viewer, and the tileset it names is served.
        let url = try #require(words(commands[2]).first { $0.hasPrefix("http://") }, "\(commands[2])")
        let path = String(url[try #require(url.range(of: #"/\?tileset="#, options: .regularExpression)).lowerBound...])
        let tileset = String(path.dropFirst("/?tileset=".count))
        let page = try CLIRunner.run(
            ["-sS", "-o", "/dev/null", "-w", "%{http_code}", base.trimmingCharacters(in: ["/"]) + path], executable: "/usr/bin/curl")
        #expect(page.stdout == "200", "\(path): \(page.stdout) \(page.stderr)")
        let tilejson = try CLIRunner.run(["-sS", base + "tiles/\(tileset).json"], executable: "/usr/bin/curl")
        #expect(tilejson.stdout.contains("\"minzoom\":3") || tilejson.stdout.contains("\"minzoom\": 3"), "\(tilejson.stdout.prefix(300))")
    }
}
