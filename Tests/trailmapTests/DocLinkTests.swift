import Foundation
import Testing
import TrailMapTestSupport

/// Every relative link in README.md and the pages under docs/ names a file of the repository, so
/// a page moved or renamed leaves no dead link behind.
@Suite(.blockingThreads) struct DocLinkTests {
    static let root = ArchitectureDocTests.root

    /// The relative targets of Markdown links `[text](target)` in `text` (no scheme, no pure
    /// anchors), without their `#anchor`.
    static func relativeTargets(_ text: String) -> [String] {
        let link = /\]\(([^)\s]+)\)/
        return text.matches(of: link).compactMap { match in
            let target = String(match.output.1)
            guard !target.contains("://"), !target.hasPrefix("#"), !target.hasPrefix("mailto:") else { return nil }
            return String(target.split(separator: "#", maxSplits: 1).first ?? "")
        }
    }

    static func pages() -> [String] {
        let docs = root.appendingPathComponent("docs").path
        let found = FileManager.default.enumerator(atPath: docs)?.compactMap { $0 as? String } ?? []
        return ["README.md"] + found.filter { $0.hasSuffix(".md") }.map { "docs/" + $0 }.sorted()
    }

    @Test func everyRelativeLinkNamesAFile() throws {
        let pages = Self.pages()
        #expect(pages.count > 10, "too few pages found: \(pages)")
        var dead = [String]()
        for page in pages {
            let url = Self.root.appendingPathComponent(page)
            let text = try String(contentsOf: url, encoding: .utf8)
            for target in Self.relativeTargets(text) {
                let resolved = url.deletingLastPathComponent().appendingPathComponent(target).standardizedFileURL.path
                if !FileManager.default.fileExists(atPath: resolved) { dead.append("\(page) → \(target)") }
            }
        }
        #expect(dead.isEmpty, "links to files that do not exist: \(dead)")
    }

    /// The link reader itself: a dead target is found, anchors and web addresses are left alone.
    @Test func theReaderFindsTargets() {
        let text = "see [a](docs/a.md#x), [b](https://x.org/b.md), [c](#here), [d](../d/)"
        #expect(Self.relativeTargets(text) == ["docs/a.md", "../d/"])
    }
}
