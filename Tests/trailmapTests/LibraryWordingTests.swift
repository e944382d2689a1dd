import Foundation
import Testing
import TrailMapTestSupport

/// Libraries speak no CLI: outside comments, the sources of the modules below hold no
/// command-line flag (`--name`) and no `trailmap` command line; the CLI (Sources/trailmap) words
/// their structured errors and notices. A line that must keep one goes in `allowed` with its
/// reason.
@Suite(.blockingThreads) struct LibraryWordingTests {
    /// Modules whose messages are checked.
    static let modules = ["SourceReaders", "BundleBuilder", "RegionManager"]

    /// "Module/File.swift" → the flag-like text that may stay there, and why.
    static let allowed: [String: [(text: String, reason: String)]] = [:]

    /// The code of `line` without its trailing comment (`// ...` after code, or a doc comment).
    static func code(_ line: String) -> String {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        if trimmed.hasPrefix("//") { return "" }
        if let r = line.range(of: " //") { return String(line[..<r.lowerBound]) }
        return line
    }

    /// The CLI words found in `code`: `--flag`s and `trailmap COMMAND`s.
    static func cliWords(_ code: String) -> [String] {
        let pattern = #/(--[a-z][a-z0-9-]*|\btrailmap [a-z]+)/#
        return code.matches(of: pattern).map { String($0.output.1) }
    }

    @Test func libraryMessagesNameNoFlag() throws {
        let root = ArchitectureDocTests.root.appendingPathComponent("Sources")
        var found = [String]()
        var files = 0
        for module in Self.modules {
            let folder = root.appendingPathComponent(module)
            let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".swift") }.sorted()
            for name in names {
                files += 1
                let key = "\(module)/\(name)"
                let text = try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
                for (n, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                    for word in Self.cliWords(Self.code(String(line)))
                    where !(Self.allowed[key] ?? []).contains(where: { line.contains($0.text) }) {
                        found.append("\(key):\(n + 1): \(word)")
                    }
                }
            }
        }
        #expect(files > 20, "too few sources found under \(root.path)")
        #expect(
            found.isEmpty,
            "library code names CLI flags or commands (word them in Sources/trailmap instead):\n\(found.joined(separator: "\n"))")
    }

    /// The scan itself finds a flag in a string and ignores comments.
    @Test func theScanFindsFlagsInCodeOnly() {
        #expect(Self.cliWords(Self.code(#"    throw .invalidOption("--threads must be at least 1")"#)) == ["--threads"])
        #expect(Self.cliWords(Self.code(#"  "merge the parts (trailmap bundle merge)""#)) == ["trailmap bundle"])
        #expect(Self.cliWords(Self.code("    /// `--update EXISTING`: which sources changed")).isEmpty)
        #expect(Self.cliWords(Self.code(#"    let x = 1 // --scale is a comment"#)).isEmpty)
        #expect(Self.cliWords(Self.code(#"    "convert it (gdal_translate -co TILED=YES)""#)).isEmpty)
    }
}
