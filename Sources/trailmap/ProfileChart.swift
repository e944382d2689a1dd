import Foundation
import Terrain

/// A profile drawn in the terminal: elevation (rows) against distance (columns), filled below
/// the line; columns with no elevation left blank.
enum ProfileChart {
    static func render(_ p: ElevationProfile, width: Int = 64, height: Int = 12) -> String {
        let low = p.lowest.elevation, high = max(p.highest.elevation, p.lowest.elevation + 1)
        // Per column, the mean elevation of the samples falling in it.
        var sums = [Double](repeating: 0, count: width), counts = [Int](repeating: 0, count: width)
        for s in p.samples {
            guard let e = s.elevation else { continue }
            let c = p.length > 0 ? min(width - 1, Int(s.distance / p.length * Double(width))) : 0
            sums[c] += e
            counts[c] += 1
        }
        var rows = [String]()
        for r in (0..<height).reversed() {
            let level = low + (high - low) * Double(r) / Double(height - 1)
            let label = String(Int(level.rounded())).leftPadded(to: 6)
            var line = ""
            for c in 0..<width {
                guard counts[c] > 0 else { line += " "; continue }
                line += sums[c] / Double(counts[c]) >= level - (high - low) / Double(2 * (height - 1)) ? "█" : " "
            }
            rows.append("\(label) m │\(line)")
        }
        rows.append(String(repeating: " ", count: 9) + "└" + String(repeating: "─", count: width))
        let end = String(format: "%.2f km", p.length / 1000)
        rows.append(String(repeating: " ", count: 10) + "0 km" + String(repeating: " ", count: max(1, width - 4 - end.count)) + end)
        return rows.joined(separator: "\n")
    }
}

extension String {
    /// The string with spaces in front up to `width` characters.
    func leftPadded(to width: Int) -> String { String(repeating: " ", count: max(0, width - count)) + self }
}
