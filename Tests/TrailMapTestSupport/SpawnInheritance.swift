import Foundation

/// Spawning helpers (tests start servers and browsers with posix_spawn).
public enum SpawnInheritance {
    /// Adds a close action for every descriptor of this process from `first` up, so a spawned
    /// program inherits only what the other actions give it. Without it a long-lived child (a
    /// PostgreSQL server, a browser) keeps another test's pipe ends open, and that test waits
    /// for an end of file that never comes. (glibc's `addclosefrom_np` is not visible to Swift;
    /// a descriptor closed meanwhile is ignored by the close action.) A descriptor another thread
    /// opens between the listing and the spawn escapes it: spawn through `closing(from:)` too.
    public static func closeInherited(_ actions: inout posix_spawn_file_actions_t, from first: Int32) {
        let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        for fd in open.compactMap({ Int32($0) }).sorted() where fd >= first {
            posix_spawn_file_actions_addclose(&actions, fd)
        }
    }

    /// The program and arguments that run `tool arguments...` after closing, in the child itself,
    /// every descriptor from `first` up (bash, then exec: the pid stays the tool's). Race-free,
    /// where `closeInherited` misses a pipe another test's thread creates while this one spawns
    /// (a PostgreSQL cluster kept a CLI test's output pipe open that way, and the run hung).
    public static func closing(from first: Int32, _ tool: String, _ arguments: [String]) -> (program: String, argv: [String]) {
        let script = "for f in /proc/$$/fd/*; do n=${f##*/}; if [ \"$n\" -ge \(first) ]; then eval \"exec $n>&-\" 2>/dev/null; fi; done; exec \"$@\""
        return ("/bin/bash", ["/bin/bash", "-c", script, "bash", tool] + arguments)
    }
}
