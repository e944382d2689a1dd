import Foundation

/// Spawning helpers (tests start servers and browsers with posix_spawn).
public enum SpawnInheritance {
    /// Adds a close action for every descriptor of this process from `first` up, so a spawned
    /// program inherits only what the other actions give it. Without it a long-lived child (a
    /// PostgreSQL server, a browser) keeps another test's pipe ends open, and that test waits
    /// for an end of file that never comes. (glibc's `addclosefrom_np` is not visible to Swift;
    /// a descriptor closed meanwhile is ignored by the close action.)
    public static func closeInherited(_ actions: inout posix_spawn_file_actions_t, from first: Int32) {
        let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        for fd in open.compactMap({ Int32($0) }).sorted() where fd >= first {
            posix_spawn_file_actions_addclose(&actions, fd)
        }
    }
}
