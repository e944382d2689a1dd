import BundleBuilder
import Foundation
import TileStore

/// `trailmap build --json`: the finished build's summary as one JSON object.
struct BuildSummaryOutput: Encodable {
    struct Resumed: Encodable { var units: Int; var tiles: Int }
    var output: String
    var minzoom: Int
    var maxzoom: Int
    var tilesConsidered: Int
    var tilesStored: Int
    var distinctImages: Int
    var tileBytes: Int
    var seconds: Double
    /// Tiles considered per second, over this run's tiles only.
    var tilesPerSecond: Double
    var resumed: Resumed?
    var startedOver: String?

    init(_ r: BuildReport) {
        output = r.output
        minzoom = r.zooms.lowerBound
        maxzoom = r.zooms.upperBound
        tilesConsidered = r.tilesConsidered
        tilesStored = r.tilesStored
        distinctImages = r.uniqueImages
        tileBytes = r.bytesStored
        seconds = (r.seconds * 1000).rounded() / 1000
        tilesPerSecond = r.tilesPerSecond.rounded()
        switch r.start {
        case .fresh: break
        case let .resumed(units, tiles): resumed = Resumed(units: units, tiles: tiles)
        case let .discarded(reason): startedOver = reason
        }
    }
}

/// `trailmap bundle verify --json`: the verdict and its problems.
struct VerifyOutput: Encodable {
    var file: String
    var ok: Bool
    var tiles: Int
    var problems: [String]
}
