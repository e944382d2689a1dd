import Dispatch
import Foundation

/// On Ctrl-C during a download: says the partial download is kept and exits 130.
enum InterruptNotice {
    nonisolated(unsafe) private static var source: (any DispatchSourceSignal)?

    static func install() {
        guard source == nil else { return }
        signal(SIGINT, SIG_IGN)
        let s = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        s.setEventHandler {
            FileHandle.standardError.write(Data(
                "\nInterrupted. The partial download is kept: run the same command again to resume it.\n".utf8))
            exit(130)
        }
        s.resume()
        source = s
    }
}
