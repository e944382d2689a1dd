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
        let line = p.line
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

    /// Seconds as m:ss, or h:mm:ss from an hour (as build progress shows them).
    static func clock(_ seconds: TimeInterval) -> String { BuildProgress.clock(seconds) }
}
