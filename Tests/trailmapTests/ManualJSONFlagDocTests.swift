import Foundation
import Testing
import TrailMapTestSupport

/// The manual pages (docs/*.md) show `--json` in the synopsis of every command that has it, and
/// of no other: the commands come from the CLI's own help dump, the synopses from the pages.
@Suite(.blockingThreads) struct ManualJSONFlagDocTests {
    /// Every command path (`regions area quote`) and whether it takes `--json`.
    static func commands() throws -> [String: Bool] {
        let r = try CLIRunner.run(["--experimental-dump-help"])
        #expect(r.status == 0, "\(r.stderr)")
        let root = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        var found: [String: Bool] = [:]
        func walk(_ command: [String: Any], _ path: [String]) {
            let names = (command["arguments"] as? [[String: Any]] ?? []).flatMap { $0["names"] as? [[String: Any]] ?? [] }
            if !path.isEmpty { found[path.joined(separator: " ")] = names.contains { $0["name"] as? String == "json" } }
            for sub in command["subcommands"] as? [[String: Any]] ?? [] { walk(sub, path + [sub["commandName"] as? String ?? "?"]) }
        }
        walk(try #require(root["command"] as? [String: Any]), [])
        return found
    }

    /// The synopses in `page`: each text from `trailmap ` to the next `trailmap `, backtick or the
    /// end of its line (a line ending in `\` goes on, and so does one continued by an indented
    /// line of options, `  [--x]`), with the longest command path it starts with.
    static func synopses(in page: String, commands: [String: Bool]) -> [(command: String, text: String)] {
        let joined = page.replacingOccurrences(of: "\\\n", with: " ")
            .replacingOccurrences(of: #"\n[ \t]+\["#, with: " [", options: .regularExpression)
        var found: [(String, String)] = []
        for line in joined.split(separator: "\n") {
            for piece in line.components(separatedBy: "trailmap ").dropFirst() {
                let text = String(piece.prefix { $0 != "`" })
                let words = text.split(separator: " ").map(String.init)
                let command = (0..<min(words.count, 4)).reversed().lazy
                    .map { words[0...$0].joined(separator: " ") }.first { commands[$0] != nil }
                if let command { found.append((command, text)) }
            }
        }
        return found
    }

    @Test func everyJSONCommandSaysSoInTheManual() throws {
        let commands = try Self.commands()
        #expect(commands.values.filter { $0 }.count > 20, "the dump lists the commands with --json: \(commands)")
        let docs = ArchitectureDocTests.root.appendingPathComponent("docs")
        var synopses: [(command: String, text: String, page: String)] = []
        for name in try FileManager.default.contentsOfDirectory(atPath: docs.path) where name.hasSuffix(".md") {
            let page = try String(contentsOf: docs.appendingPathComponent(name), encoding: .utf8)
            synopses += Self.synopses(in: page, commands: commands).map { ($0.command, $0.text, name) }
        }
        let saidWithJSON = Set(synopses.filter { $0.text.contains("--json") }.map(\.command))
        let missing = commands.filter { $0.value && !saidWithJSON.contains($0.key) }.keys.sorted()
        #expect(missing.isEmpty, "commands with --json whose synopsis in docs/ does not show it: \(missing)")
        let wrong = synopses.filter { $0.text.contains("--json") && commands[$0.command] == false }.map {
            "\($0.page): trailmap \($0.text)"
        }
        #expect(wrong.isEmpty, "synopses showing --json for a command without it: \(wrong)")
    }

    /// The parser reads a continued synopsis and stops at the next command or code span.
    @Test func synopsesAreReadAsWritten() {
        let commands = ["regions": false, "regions list": true, "regions trails search": true, "serve": false]
        let page =
            "trailmap regions trails search --near 1,2 \\\n  --radius-km 3\n    [--json]\n"
            + "see `trailmap regions list` and `--json` here\ntrailmap serve --tiles T/"
        let found = Self.synopses(in: page, commands: commands)
        #expect(found.map(\.command) == ["regions trails search", "regions list", "serve"])
        #expect(found[0].text.contains("--json") && !found[1].text.contains("--json"))
    }
}
