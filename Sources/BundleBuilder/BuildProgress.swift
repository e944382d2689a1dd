import Foundation
import TileStore

/// A snapshot of a running build, passed to the progress callback.
public struct BuildProgress: Sendable {
    public enum Phase: String, Sendable {
        case decoding
        case rendering
        /// Hashing the sources for the build record (updates, merges): `done` of `total` sources.
        case hashing
        case finishing
    }

    public var phase: Phase
    /// Tiles looked at so far (stored or skipped as transparent).
    public var done: Int
    public var total: Int
    public var stored: Int
    public var elapsed: TimeInterval
    /// Sources whose pages are being drawn now (GeoPDFs, drawn once when a tile first needs
    /// them, which can take minutes): what the rendering waits on.
    public var drawing: [String] = []
    /// Of `done`, the tiles an earlier, interrupted run of the build made (a resumed build):
    /// not this run's work, so not counted in `rate` and `eta`.
    public var doneBefore: Int = 0

    /// Tiles per second of this run's work since rendering started.
    public var rate: Double { elapsed > 0 ? Double(max(done - doneBefore, 0)) / elapsed : 0 }

    /// Estimated seconds left, or nil before there is a rate.
    public var eta: TimeInterval? {
        guard rate > 0, total >= done else { return nil }
        return Double(total - done) / rate
    }

    /// A line for a person: the phase, counts, rate and time left; while GeoPDF pages are drawn,
    /// which ones.
    public var line: String {
        switch phase {
        case .decoding: return "decoding source \(done + 1) of \(total)"
        case .hashing: return "hashing sources for the build record: \(done) of \(total)"
        case .finishing: return "finishing: \(stored) tiles stored"
        case .rendering:
            let pct = total > 0 ? Double(done) * 100 / Double(total) : 100
            let left = eta.map(Self.clock) ?? "--:--"
            let pages =
                drawing.isEmpty
                ? ""
                : ", drawing " + drawing.map { URL(fileURLWithPath: $0).lastPathComponent }.joined(separator: ", ")
            return String(format: "tiles %d/%d (%.1f%%), %.0f tiles/s, %d stored, ETA %@", done, total, pct, rate, stored, left) + pages
        }
    }

    /// Seconds as m:ss, or h:mm:ss from an hour.
    public static func clock(_ seconds: TimeInterval) -> String {
        let s = Int(seconds.rounded())
        return s >= 3600 ? String(format: "%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60) : String(format: "%d:%02d", s / 60, s % 60)
    }
}

/// What a finished build produced.
public struct BuildReport: Sendable {
    public var output: String
    public var tilesConsidered: Int
    public var tilesStored: Int
    public var uniqueImages: Int
    public var bytesStored: Int
    public var tileBytes: Int
    public var tilesPerZoom: [Int: Int]
    public var seconds: TimeInterval
    /// Whether any source was spilled to a temporary file because it exceeded the memory budget.
    public var spilledSources: Int
    /// A new build, or the continuation of a killed one's partial file, or a start over.
    public var start: BuildStart = .fresh
    /// Of `tilesConsidered`, those an earlier, interrupted run made (a resumed build).
    public var tilesResumed = 0
    /// An update: what changed and what was made again.
    public var update: UpdateSummary?
    /// The build's zoom range.
    public var zooms: ClosedRange<Int> = 0...0
    /// The ends of `zooms` taken from the sources (`BuildOptions.zoomsFromSources`).
    public var zoomsFromSources: SourceZooms = []

    /// Tiles considered per second of this run's work (a resumed build's earlier tiles left out).
    public var tilesPerSecond: Double { Double(max(tilesConsidered - tilesResumed, 0)) / max(seconds, 0.001) }
}
