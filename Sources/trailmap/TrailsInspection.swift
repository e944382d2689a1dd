import Foundation
import Trails

/// The trails part of `bundle inspect`: read from the bundle's trails tables, if it has them.
enum TrailsInspection {
    /// The trails of `file`, or why they cannot be read; both nil for a bundle without trails.
    static func read(_ file: String) -> (trails: BundleInspection.Trails?, problem: String?) {
        do throws(TrailStoreError) {
            let summary = try TrailIndex(bundle: file).summary(longest: 0)
            let byDifficulty = Dictionary(
                uniqueKeysWithValues: TrailDifficulty.allCases.map { ($0.rawValue, summary.byDifficulty[$0] ?? 0) })
            return (
                BundleInspection.Trails(
                    count: summary.count, byDifficulty: byDifficulty,
                    totalLengthKm: (summary.totalLengthMetres / 10).rounded() / 100), nil
            )
        } catch {
            switch error {
            case .noTrails, .notFound, .notBundle: return (nil, nil)
            default: return (nil, error.description)
            }
        }
    }

    /// The `trails:` line of `inspect`, e.g. `trails: 3 (easy 1, moderate 1, hard 0, expert 1, unknown 0), 12.35 km in all`;
    /// nil for a bundle without trails.
    static func line(_ file: String) -> String? {
        let (trails, problem) = read(file)
        if let problem { return "trails: unreadable: \(problem)" }
        guard let trails else { return nil }
        let steps = TrailDifficulty.allCases.map { "\($0.rawValue) \(trails.byDifficulty[$0.rawValue] ?? 0)" }.joined(separator: ", ")
        return "trails: \(trails.count) (\(steps)), \(String(format: "%.2f", trails.totalLengthKm)) km in all"
    }
}
