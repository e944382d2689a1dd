import Dispatch
import Foundation

/// On Ctrl-C: says what is kept and how to resume, runs a last clean-up, and exits 130.
enum InterruptNotice {
    nonisolated(unsafe) private static var source: (any DispatchSourceSignal)?

    /// During a download: the partial download is kept.
    static func install() {
        install(message: "Interrupted. The partial download is kept: run the same command again to resume it.")
    }

    /// Prints `message` on Ctrl-C after running `cleanUp` (e.g. removing a lock file the
    /// interrupted work held), then exits 130.
    static func install(message: String, cleanUp: @escaping @Sendable () -> Void = {}) {
        guard source == nil else { return }
        signal(SIGINT, SIG_IGN)
        let s = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        s.setEventHandler {
            cleanUp()
            FileHandle.standardError.write(Data("\n\(message)\n".utf8))
            exit(130)
        }
        s.resume()
        source = s
    }
}
