import Foundation

/// `trailmap bundle inspect --json`. `tileSize` (null for an invalid value) and `layers` (null
/// when the recorded value is invalid) are always written; `layersProblem` only when there is one;
/// `pmtiles` for a PMTiles archive (whose `layout` is `pmtiles`). `trails` is null for a bundle
/// without trails; `trailsProblem` says why trails tables could not be read, when they could not.
struct BundleInspection: Encodable {
    /// The trails a bundle holds: how many, by difficulty (every step of the ladder), their length.
    struct Trails: Encodable {
        var count: Int
        var byDifficulty: [String: Int]
        var totalLengthKm: Double
    }

    /// One zoom level's tiles, bytes and tile ranges.
    struct Level: Encodable {
        var zoom: Int
        var tiles: Int
        var bytes: Int
        var minX: Int
        var maxX: Int
        var minY: Int
        var maxY: Int
    }

    var file: String
    var layout: String
    var fileBytes: Int
    var format: String
    var tileSize: Int?
    var metadata: [String: String]
    var tiles: Int
    var tileBytes: Int
    var storedImages: Int
    var storedBytes: Int
    var dedupRatio: Double
    var zoomLevels: [Level]
    var layers: [BundleLayersOutput.Layer]?
    var layersProblem: String?
    var pmtiles: PMTilesInspection?
    var trails: Trails?
    var trailsProblem: String?

    private enum CodingKeys: String, CodingKey {
        case file, layout, fileBytes, format, tileSize, metadata, tiles, tileBytes, storedImages, storedBytes, dedupRatio, zoomLevels,
            layers, layersProblem, pmtiles, trails, trailsProblem
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(file, forKey: .file)
        try c.encode(layout, forKey: .layout)
        try c.encode(fileBytes, forKey: .fileBytes)
        try c.encode(format, forKey: .format)
        try c.encode(tileSize, forKey: .tileSize) // null when invalid
        try c.encode(metadata, forKey: .metadata)
        try c.encode(tiles, forKey: .tiles)
        try c.encode(tileBytes, forKey: .tileBytes)
        try c.encode(storedImages, forKey: .storedImages)
        try c.encode(storedBytes, forKey: .storedBytes)
        try c.encode(dedupRatio, forKey: .dedupRatio)
        try c.encode(zoomLevels, forKey: .zoomLevels)
        try c.encode(layers, forKey: .layers) // null when invalid
        try c.encodeIfPresent(layersProblem, forKey: .layersProblem)
        try c.encodeIfPresent(pmtiles, forKey: .pmtiles)
        if pmtiles == nil {
            try c.encode(trails, forKey: .trails) // null without trails
            try c.encodeIfPresent(trailsProblem, forKey: .trailsProblem)
        }
    }
}
