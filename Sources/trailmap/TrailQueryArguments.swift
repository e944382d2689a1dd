import ArgumentParser
import Foundation
import Trails

/// Words of a comma-separated list as a trail search takes them: trimmed, any case, empty ones
/// left out.
private func listWords(_ text: String) -> [String] {
    text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }.filter { !$0.isEmpty }
}

/// `--difficulty easy,moderate` (repeatable): the difficulties a trail search keeps.
struct DifficultyListArgument: ExpressibleByArgument {
    let difficulties: Set<TrailDifficulty>

    init?(argument: String) {
        let values = listWords(argument).map(TrailDifficulty.init(rawValue:))
        guard values.allSatisfy({ $0 != nil }) else { return nil }
        difficulties = Set(values.compactMap { $0 })
    }

    @Sendable static func parse(_ text: String) throws -> DifficultyListArgument {
        guard let list = DifficultyListArgument(argument: text) else {
            let bad = listWords(text).first { TrailDifficulty(rawValue: $0) == nil } ?? text
            throw ValidationError("--difficulty: \(bad) is not one of \(TrailDifficulty.allCases.map(\.rawValue).joined(separator: ", ")).")
        }
        return list
    }
}

/// `--uses foot,bicycle` or `--exclude-uses horse` (repeatable): uses by name, `motor-vehicle`
/// also written with a hyphen.
struct UseListArgument: ExpressibleByArgument {
    let uses: TrailUses

    init?(argument: String) {
        let values = listWords(argument).map(Self.use)
        guard values.allSatisfy({ $0 != nil }) else { return nil }
        uses = TrailUses(values.compactMap { $0 })
    }

    private static func use(_ word: String) -> TrailUse? { TrailUse(rawValue: word.replacingOccurrences(of: "-", with: "_")) }

    /// The parser of `option`, whose name its message gives.
    private static func parser(_ option: String) -> @Sendable (String) throws -> UseListArgument {
        { text in
            guard let list = UseListArgument(argument: text) else {
                let bad = listWords(text).first { use($0) == nil } ?? text
                throw ValidationError("\(option): \(bad) is not one of \(TrailUse.allCases.map(\.rawValue).joined(separator: ", ")).")
            }
            return list
        }
    }

    /// `--uses`.
    static let parseUses = parser("--uses")
    /// `--exclude-uses`.
    static let parseExcludeUses = parser("--exclude-uses")
}

extension Array where Element == UseListArgument {
    /// Every use of every list given.
    var union: TrailUses { reduce(into: TrailUses()) { $0.formUnion($1.uses) } }
}
