import Foundation

/// Spawning helpers (tests start servers and browsers with posix_spawn).
public enum SpawnInheritance {
    /// Adds to `actions` the closing, in the child itself, of every descriptor from `first` up
    /// (`posix_spawn_file_actions_addclosefrom_np`, as `ChildProcess` does); false when glibc
    /// refuses it. Without it a long-lived child (a PostgreSQL server, a browser) keeps another
    /// test's pipe ends open, and that test waits for an end of file that never comes. Closing in
    /// the child is race-free: a list of descriptors made before `posix_spawn` misses a pipe
    /// another test's thread creates meanwhile (a cluster kept a CLI test's output pipe open that
    /// way, and the run hung).
    public static func closeInChild(_ actions: inout posix_spawn_file_actions_t, from first: Int32) -> Bool {
        Spawn.closeFrom(&actions, first) == 0
    }
}
