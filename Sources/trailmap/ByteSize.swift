import ArgumentParser
import Foundation

/// A byte count given as `512MB`, `1G`, `64KiB` or a plain number of bytes.
struct ByteSize: ExpressibleByArgument, Sendable, CustomStringConvertible {
    let bytes: Int

    init(bytes: Int) { self.bytes = bytes }

    init?(argument: String) {
        let text = argument.trimmingCharacters(in: .whitespaces).uppercased()
        let digits = text.prefix { $0.isNumber || $0 == "." }
        guard let value = Double(digits), value >= 0 else { return nil }
        let unit = text.dropFirst(digits.count).replacingOccurrences(of: "IB", with: "B")
        let multiplier: Double
        switch unit {
        case "", "B": multiplier = 1
        case "K", "KB": multiplier = 1024
        case "M", "MB": multiplier = 1024 * 1024
        case "G", "GB": multiplier = 1024 * 1024 * 1024
        default: return nil
        }
        let bytes = value * multiplier
        guard bytes < Double(Int.max / 2) else { return nil }
        self.bytes = Int(bytes)
    }

    var description: String { ByteSize.format(bytes) }

    /// Human-readable size, e.g. `12.3 MB`: units of 1024 bytes, one decimal, a tie rounded up, as
    /// the pages write sizes (JavaScript's `toFixed(1)`). `%.1f` would round a tie to even
    /// (1.25 MB exactly: `1.2 MB` here, `1.3 MB` on the page). Dividing by 1024 and multiplying by
    /// ten are exact for any file size, so the tenths are rounded from the exact value.
    static func format(_ bytes: Int) -> String {
        let units = ["B", "KB", "MB", "GB", "TB"]
        var v = Double(bytes)
        var i = 0
        while v >= 1024 && i < units.count - 1 {
            v /= 1024
            i += 1
        }
        let tenths = (v * 10).rounded(.toNearestOrAwayFromZero)
        return i == 0 ? "\(bytes) B" : String(format: "%.1f %@", tenths / 10, units[i])
    }
}
