import SourceReaders
import Testing
import TrailMapTestSupport
import TileGeometry
@testable import BundleBuilder

/// The structured errors and notices the CLI words: every case's own message names no flag,
/// keeps the facts it carries, and an empty list in a case does not crash its description.
@Suite(.computeThreads) struct StructuredErrorTests {
    static let readerErrors: [SourceReaderError] = [
        .noCRS(path: "a.tif"), .tooManyOpenFiles(path: "a.tif", reason: "Too many open files"),
        .tooFewGroundControlPoints(path: "a.tif", count: 4, fit: .order3), .localCRS(path: "a.tif", reason: "no transform"),
        .containerOfRasters(path: "a.gpkg", names: ["GPKG:a.gpkg:x", "GPKG:a.gpkg:y"]), .containerOfRasters(path: "a.gpkg", names: []),
        .bandChoiceCount(path: "a.tif", count: 5), .bandChoiceOutOfRange(path: "a.tif", band: 9, bandCount: 3, names: "Red, Green, Blue"),
        .tooManyBands(path: "a.tif", count: 5, names: "Gray, Gray, Gray, Gray, Gray"),
        .nodataCount(path: "a.tif", given: 2, colourBands: 3),
        .bandRangeUnreadable(path: "a.tif", reason: "GDAL could not read the band")
    ]

    static let buildErrors: [BuildError] =
        [
            .noSources, .tooManyTiles(count: 300_000_000, maxZoom: 22),
            .pngRowsTooWide(path: "w.png", width: 2_200_000, decodeBytes: 35_200_000, memoryLimit: 64 << 20),
            .notAShardPart(path: "p.mbtiles"), .update(path: "u.mbtiles", .noSourcesRecorded), .update(path: "u.mbtiles", .shardPart),
            .update(
                path: "u.mbtiles",
                .otherSettings(
                    differing: [.setting("clip"), .setting("crs"), .layerFields(layer: 1, fields: ["name"])],
                    builtBy: "trailmap-builder 0.2.0")),
            .update(path: "u.mbtiles", .otherSettings(differing: [], builtBy: nil))
        ] + problems.map { .invalidOption($0) } + readerErrors.map { .source($0) }

    static let problems: [BuildOptionProblem] = [
        .clipBounds(GeoBounds(west: 10, south: 0, east: 0, north: 1)), .threads(0), .memoryLimit(1 << 20), .tileSize(300), .emptyName,
        .qualityForPNG, .quality(101), .qualityWithLossless, .losslessNotWebP, .updateWithShard, .scale(min: 5, max: 5),
        .shardCount(0), .shardIndex(4, count: 3), .shardSyntax("two of five")
    ]

    static let notices: [BuildNotice] = [
        .optionNotApplied(.scaleOn8Bit(palette: true), path: "a.tif", others: 2), .sharedScale(layer: "dem", min: 1, max: 2),
        .noTiles(output: "o.mbtiles", minZoom: 3, maxZoom: 5), .fewerRenderThreads(used: 2, asked: 8)
    ]

    @Test func messagesNameNoFlag() {
        let messages = Self.buildErrors.map(\.description) + Self.notices.map(\.description)
        for m in messages { #expect(!m.contains("--") && !m.contains("trailmap "), "\(m)") }
    }

    @Test func messagesKeepTheirFacts() {
        #expect(
            SourceReaderError.bandChoiceOutOfRange(path: "a.tif", band: 9, bandCount: 3, names: "Red").description
                .contains("band 9 is not one of its bands 1-3"))
        #expect(
            SourceReaderError.tooFewGroundControlPoints(path: "a.tif", count: 4, fit: .order3).description
                .contains("4 point(s); the order3 fit needs at least 10"))
        let update = BuildError.update(
            path: "u.mbtiles",
            .otherSettings(
                differing: [.setting("clip"), .layerFields(layer: 2, fields: ["opacity"])],
                builtBy: "trailmap-builder 0.2.0")
        ).description
        #expect(
            update.contains("these differ: bounds, layer 2's opacity") && update.contains("built by trailmap-builder 0.2.0"), "\(update)")
        #expect(
            BuildNotice.optionNotApplied(.scaleOn8Bit(palette: false), path: "a.tif", others: 1).description
                .hasPrefix("a.tif and 1 other source(s) like it: "))
    }
}
