import Foundation

/// Where a download stands, reported after every chunk.
public struct DownloadProgress: Sendable, Equatable {
    /// Bytes on disk so far (resumed bytes included).
    public var received: Int64
    /// Size of the whole file.
    public var total: Int64
    /// Bytes already on disk when this run started.
    public var resumedFrom: Int64
    /// Bytes per second in this run.
    public var bytesPerSecond: Double

    /// Seconds left at the current rate, when known.
    public var eta: TimeInterval? {
        guard bytesPerSecond > 0 else { return nil }
        return Double(total - received) / bytesPerSecond
    }

    public var fraction: Double { total > 0 ? Double(received) / Double(total) : 1 }
}
