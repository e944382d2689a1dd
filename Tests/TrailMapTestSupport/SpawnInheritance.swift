import Foundation

/// Spawning helpers (tests start servers and browsers with posix_spawn).
public enum SpawnInheritance {
    /// The program and arguments that run `tool arguments...` after closing, in the child itself,
    /// every descriptor from `first` up (bash, then exec: the pid stays the tool's). Without it a
    /// long-lived child (a PostgreSQL server, a browser) keeps another test's pipe ends open, and
    /// that test waits for an end of file that never comes. Closing in the child is race-free: a
    /// list of descriptors made before `posix_spawn` misses a pipe another test's thread creates
    /// meanwhile (a cluster kept a CLI test's output pipe open that way, and the run hung).
    public static func closing(from first: Int32, _ tool: String, _ arguments: [String]) -> (program: String, argv: [String]) {
        let script =
            "for f in /proc/$$/fd/*; do n=${f##*/}; if [ \"$n\" -ge \(first) ]; then eval \"exec $n>&-\" 2>/dev/null; fi; done; exec \"$@\""
        return ("/bin/bash", ["/bin/bash", "-c", script, "bash", tool] + arguments)
    }
}
