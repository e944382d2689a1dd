import Foundation
import TileStore

/// A snapshot of a running build, passed to the progress callback.
public struct BuildProgress: Sendable {
    public enum Phase: String, Sendable {
        case decoding
        case rendering
        /// Hashing the sources for the build record (`--update`, merges): `done` of `total` sources.
        case hashing
        case finishing
    }

    public var phase: Phase
    /// Tiles looked at so far (stored or skipped as transparent).
    public var done: Int
    public var total: Int
    public var stored: Int
    public var elapsed: TimeInterval

    /// Tiles per second since rendering started.
    public var rate: Double { elapsed > 0 ? Double(done) / elapsed : 0 }

    /// Estimated seconds left, or nil before there is a rate.
    public var eta: TimeInterval? {
        guard rate > 0, total >= done else { return nil }
        return Double(total - done) / rate
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
    /// `--update`: what changed and what was made again.
    public var update: UpdateSummary?
    /// The build's zoom range.
    public var zooms: ClosedRange<Int> = 0...0
    /// The ends of `zooms` taken from the sources (`BuildOptions.zoomsFromSources`).
    public var zoomsFromSources: SourceZooms = []
}
