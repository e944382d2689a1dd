import Foundation
import Testing
import TrailMapTestSupport

/// docs/architecture.md's module table must match Package.swift: every non-test target, each
/// with exactly its TrailMap dependencies and its outside products.
@Suite(.blockingThreads) struct ArchitectureDocTests {
    struct Module: Equatable, CustomStringConvertible {
        var imports: Set<String>
        var libraries: Set<String>
        var description: String { "imports \(imports.sorted()), libraries \(libraries.sorted())" }
    }

    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test func moduleTableMatchesPackageManifest() throws {
        let manifest = try String(contentsOf: Self.root.appendingPathComponent("Package.swift"), encoding: .utf8)
        let page = try String(contentsOf: Self.root.appendingPathComponent("docs/architecture.md"), encoding: .utf8)
        let declared = try PackageTargets.parse(manifest)
        let documented = try ModuleTable.parse(page)
        #expect(declared.count > 20, "the manifest parser found too few targets: \(declared.keys.sorted())")
        let missing = Set(declared.keys).subtracting(documented.keys)
        let stale = Set(documented.keys).subtracting(declared.keys)
        #expect(missing.isEmpty, "modules in Package.swift but not in docs/architecture.md: \(missing.sorted())")
        #expect(stale.isEmpty, "modules in docs/architecture.md but not in Package.swift: \(stale.sorted())")
        for (name, module) in declared.sorted(by: { $0.key < $1.key }) {
            guard let row = documented[name] else { continue }
            #expect(row == module, "\(name): Package.swift has \(module); docs/architecture.md has \(row)")
        }
    }

    @Test func readmeStaysInsideTheRepository() throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        #expect(!readme.contains("../"), "README.md points outside the repository")
    }

    /// The parsers check each other: a manifest with a dependency the page lacks is caught.
    @Test func aNewDependencyIsCaught() throws {
        let manifest = """
            .target(name: "A", dependencies: ["B", .product(name: "Logging", package: "swift-log")]),
            .systemLibrary(name: "B", path: "Sources/B"),
            .testTarget(name: "ATests", dependencies: ["A"]),
            """
        let page = """
            <!-- module-graph -->
            | Module | Job | Imports | Libraries |
            |---|---|---|---|
            | A | a | B | — |
            | B | b | — | — |
            <!-- /module-graph -->
            """
        let declared = try PackageTargets.parse(manifest)
        let documented = try ModuleTable.parse(page)
        #expect(declared.keys.sorted() == ["A", "B"])
        #expect(declared["A"]?.imports == ["B"])
        #expect(declared["A"] != documented["A"])
        #expect(declared["B"] == documented["B"])
    }
}

/// The non-test targets of a Package.swift, read from its text.
enum PackageTargets {
    struct ParseError: Error, CustomStringConvertible { var description: String }

    static func parse(_ text: String) throws -> [String: ArchitectureDocTests.Module] {
        let chars = Array(text)
        var out: [String: ArchitectureDocTests.Module] = [:]
        let openers = [".target(", ".executableTarget(", ".systemLibrary("]
        var i = 0
        while i < chars.count {
            guard let opener = openers.first(where: { matches(chars, at: i, $0) }) else {
                i += 1
                continue
            }
            let start = i + opener.count
            let end = try closing(chars, from: start, open: "(", close: ")")
            let body = String(chars[start..<end])
            guard let name = firstCapture(#"name:\s*"([^"]+)""#, in: body) else { throw ParseError(description: "a target without a name") }
            var module = ArchitectureDocTests.Module(imports: [], libraries: [])
            if let range = body.range(of: "dependencies:") {
                let rest = Array(body[range.upperBound...])
                guard let open = rest.firstIndex(of: "[") else { throw ParseError(description: "\(name): dependencies without a list") }
                let close = try closing(rest, from: open + 1, open: "[", close: "]")
                var list = String(rest[(open + 1)..<close])
                for product in allCaptures(#"\.product\(\s*name:\s*"([^"]+)"[^)]*\)"#, in: list) {
                    module.libraries.insert(product)
                }
                list = list.replacingOccurrences(of: #"\.product\([^)]*\)"#, with: "", options: .regularExpression)
                module.imports = Set(allCaptures(#""([^"]+)""#, in: list))
            }
            out[name] = module
            i = end
        }
        return out
    }

    private static func matches(_ chars: [Character], at i: Int, _ word: String) -> Bool {
        let w = Array(word)
        guard i + w.count <= chars.count else { return false }
        return Array(chars[i..<(i + w.count)]) == w
    }

    /// The index of the bracket closing one opened just before `from`.
    private static func closing(_ chars: [Character], from: Int, open: Character, close: Character) throws -> Int {
        var depth = 1
        var inString = false
        var j = from
        while j < chars.count {
            let c = chars[j]
            if c == "\"" {
                inString.toggle()
            } else if !inString {
                if c == open {
                    depth += 1
                } else if c == close {
                    depth -= 1
                    if depth == 0 { return j }
                }
            }
            j += 1
        }
        throw ParseError(description: "unbalanced \(open)\(close)")
    }
}

/// The module table between `<!-- module-graph -->` markers in docs/architecture.md.
enum ModuleTable {
    static func parse(_ page: String) throws -> [String: ArchitectureDocTests.Module] {
        guard let start = page.range(of: "<!-- module-graph -->"), let end = page.range(of: "<!-- /module-graph -->"),
            start.upperBound < end.lowerBound
        else { throw PackageTargets.ParseError(description: "no module-graph markers") }
        var out: [String: ArchitectureDocTests.Module] = [:]
        for line in page[start.upperBound..<end.lowerBound].split(separator: "\n") {
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 6, cells[1] != "Module", !cells[1].hasPrefix("---") else { continue }
            func names(_ cell: String) -> Set<String> {
                cell == "—" ? [] : Set(cell.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
            }
            out[cells[1]] = ArchitectureDocTests.Module(imports: names(cells[3]), libraries: names(cells[4]))
        }
        return out
    }
}

private func firstCapture(_ pattern: String, in text: String) -> String? {
    allCaptures(pattern, in: text).first
}

private func allCaptures(_ pattern: String, in text: String) -> [String] {
    guard let re = try? NSRegularExpression(pattern: pattern) else { return [] }
    let ns = text as NSString
    return re.matches(in: text, range: NSRange(location: 0, length: ns.length)).compactMap { m in
        m.numberOfRanges > 1 ? ns.substring(with: m.range(at: 1)) : nil
    }
}
