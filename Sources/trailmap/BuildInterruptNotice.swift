import Foundation
import TileStore

/// Ctrl-C during `trailmap build`: the tiles made so far stay in the partial build beside the
/// output, and the same command resumes from them.
enum BuildInterruptNotice {
    static func install(output: String) {
        let partial = BundleWriter.partialPath(for: output)
        InterruptNotice.install(
            message: "Interrupted. The work done so far is kept in \(partial): run the same command again to resume the build from it "
                + "(delete that file to start over).",
            cleanUp: { try? FileManager.default.removeItem(atPath: partial + ".lock") })
    }
}
