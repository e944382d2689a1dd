import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Runs `serve` with one glibc malloc arena. Cached tiles are allocated by the thread that reads
/// them and freed by whichever thread evicts them; with glibc's default arenas (8 per core) the
/// freed memory piles up in arenas other threads do not reuse, and the process grew 68 MB past a
/// 64 MB cache budget (peak 132 MB) against 51 MB with one arena, at the same request rate
/// (docs/cache.md). `mallopt` cannot help once threads have their arenas, so the process
/// re-executes itself with `MALLOC_ARENA_MAX=1` before anything else happens.
enum OneMallocArena {
    static func reexecIfNeeded() {
        #if os(Linux)
        guard getenv("MALLOC_ARENA_MAX") == nil else { return }
        setenv("MALLOC_ARENA_MAX", "1", 1)
        var args = CommandLine.arguments.map { strdup($0) }
        args.append(nil)
        execv("/proc/self/exe", &args)
        // execv returns only on failure: carry on with the default arenas.
        for p in args { free(p) }
        #endif
    }
}
