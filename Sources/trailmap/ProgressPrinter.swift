import BundleBuilder
import Foundation
import Synchronization

/// Prints build progress to stderr: a live line on a terminal, a line every few seconds otherwise.
final class ProgressPrinter: Sendable {
    private let interactive = isatty(STDERR_FILENO) == 1
    private let lastLine = Mutex<Date>(.distantPast)
    private let quiet: Bool

    init(quiet: Bool) { self.quiet = quiet }

    func report(_ p: BuildProgress) {
        guard !quiet else { return }
        let line: String
        switch p.phase {
        case .decoding: line = "decoding source \(p.done + 1) of \(p.total)"
        case .hashing: line = "hashing sources for the build record: \(p.done) of \(p.total)"
        case .finishing: line = "finishing: \(p.stored) tiles stored"
        case .rendering:
            let pct = p.total > 0 ? Double(p.done) * 100 / Double(p.total) : 100
            let eta = p.eta.map(ProgressPrinter.clock) ?? "--:--"
            line = String(format: "tiles %d/%d (%.1f%%), %.0f tiles/s, %d stored, ETA %@",
                          p.done, p.total, pct, p.rate, p.stored, eta)
        }
        if interactive {
            FileHandle.standardError.write(Data(("\r\u{1B}[K" + line + (p.phase == .finishing ? "\n" : "")).utf8))
        } else {
            let now = Date()
            let due = lastLine.withLock { last -> Bool in
                guard (p.phase != .rendering && p.phase != .hashing) || now.timeIntervalSince(last) >= 5 else { return false }
                last = now
                return true
            }
            if due { FileHandle.standardError.write(Data((line + "\n").utf8)) }
        }
    }

    static func clock(_ seconds: TimeInterval) -> String {
        let s = Int(seconds.rounded())
        return s >= 3600 ? String(format: "%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60) : String(format: "%d:%02d", s / 60, s % 60)
    }
}
