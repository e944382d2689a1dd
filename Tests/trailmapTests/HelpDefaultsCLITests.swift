import Foundation
import Testing
import TrailMapTestSupport

/// Every help text says an option's default once: ArgumentParser appends `(default: X)` to an
/// option that has a default value, so its own text must not say it again.
@Suite(.blockingThreads) struct HelpDefaultsCLITests {
    @Test func eachDefaultIsSaidOnce() throws {
        let r = try CLIRunner.run(["--experimental-dump-help"])
        #expect(r.status == 0, "\(r.stderr)")
        let root = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        var twice: [String] = [], options = 0
        func walk(_ command: [String: Any], _ path: String) {
            for argument in command["arguments"] as? [[String: Any]] ?? [] {
                options += 1
                let text = (argument["abstract"] as? String ?? "").lowercased()
                let name = ((argument["names"] as? [[String: Any]])?.first?["name"] as? String) ?? "?"
                if argument["defaultValue"] != nil, text.contains("default") { twice.append("\(path) --\(name)") }
            }
            for sub in command["subcommands"] as? [[String: Any]] ?? [] {
                walk(sub, path + " " + (sub["commandName"] as? String ?? "?"))
            }
        }
        walk(try #require(root["command"] as? [String: Any]), "trailmap")
        #expect(options > 100, "the dump lists every command's options: \(options)")
        #expect(twice.isEmpty, "help texts that repeat the default ArgumentParser shows: \(twice)")
    }
}
