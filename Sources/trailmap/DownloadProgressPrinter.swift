import Foundation
import RegionManager
import Synchronization

/// A live download line on stderr (bytes, rate, ETA), on a terminal only.
final class DownloadProgressPrinter: Sendable {
    private let enabled: Bool
    private let lastDraw = Mutex<ContinuousClock.Instant?>(nil)
    private let killAfter: Int64?

    /// - Parameter killAfter: test hook: SIGKILL this process once that many bytes are on disk.
    init(quiet: Bool, killAfter: Int64? = nil) {
        enabled = !quiet && isatty(STDERR_FILENO) == 1
        self.killAfter = killAfter
    }

    func report(_ name: String, _ p: DownloadProgress) {
        if let killAfter, p.received >= killAfter, p.received < p.total { kill(getpid(), SIGKILL) }
        guard enabled else { return }
        let done = p.received >= p.total
        let now = ContinuousClock.now
        let due = lastDraw.withLock { last -> Bool in
            if !done, let last, now - last < .milliseconds(100) { return false }
            last = now
            return true
        }
        guard due else { return }
        let width = 24
        let fraction = p.fraction.isFinite ? min(1, max(0, p.fraction)) : 0
        let filled = Int(fraction * Double(width))
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        // A size the server made up can make the estimate anything: only a finite one under ~11 years shows.
        let eta = p.eta.flatMap { $0.isFinite && $0 >= 0 && $0 < 360_000_000 ? ProgressPrinter.clock($0) : nil } ?? "--:--"
        let line = String(
            format: "%@ [%@] %5.1f%% %@ / %@  %@/s  ETA %@", TerminalText.clean(name), bar, fraction * 100,
            ByteSize.format(Int(p.received)), ByteSize.format(Int(p.total)),
            ByteSize.format(Int(min(max(0, p.bytesPerSecond.isFinite ? p.bytesPerSecond : 0), 1e15))), eta)
        FileHandle.standardError.write(Data(("\r\u{1B}[K" + line + (done ? "\n" : "")).utf8))
    }
}
