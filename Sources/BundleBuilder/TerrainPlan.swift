import Foundation
import SourceReaders
import TileGeometry

/// What a checked terrain build will do: its region, zooms and tile ranges, and how its zooms are
/// made. The zooms from the pyramid's top up are warped from the DEMs in one pass (the top one
/// feeding the level below it); those below the top are made from the finer zoom's 2×2 means in a
/// second pass (`TerrainLevel`).
struct TerrainPlan: Sendable {
    /// The region: the DEMs' union, inside the clip bounds and the Mercator range.
    var bounds: GeoBounds
    var zooms: ClosedRange<Int>
    /// The tile ranges of `zooms` over `bounds`, lowest first.
    var ranges: [TileRange]
    /// Tile size in pixels.
    var tileSize: Int
    /// Pixels of elevation around each tile (for the hillshade's and contours' neighbours).
    var border: Int
    /// The zoom whose warped elevations make every zoom below it; nil when every zoom is warped
    /// from the DEMs (`pyramidTop`).
    var top: Int?
    /// The finest DEM's pixel size in Web Mercator metres, when known.
    var finestPixel: Double?

    /// Tiles the build considers, over every zoom.
    var total: Int { ranges.reduce(0) { $0 + $1.count } }
    /// The zooms warped from the DEMs: the top and those above it (every zoom without a top).
    var warped: [TileRange] { ranges.filter { top == nil || $0.z >= top! } }
    /// The zooms made from the finer zoom's means: those below the top.
    var means: [TileRange] { top.map { t in ranges.filter { $0.z < t } } ?? [] }

    /// Plans a terrain build of `layer` with `options` over the DEMs `sources`: the region (refused
    /// when outside the clip bounds or the Mercator range), the zooms, the tiles (refused above
    /// `BundleBuilder.maxTiles`) and the pyramid's top (none when the build is clipped).
    init(options: BuildOptions, layer: TerrainLayer, sources: TerrainSources) throws(BuildError) {
        var region = sources.bounds
        if let clip = options.clipBounds {
            guard let inside = region.intersection(clip) else {
                throw .sourceOutsideRegion(path: sources.dems[0].path, layer: layer.name, bounds: clip)
            }
            region = inside
        }
        guard let bounds = region.clippedToMercator else { throw .outsideMercator(path: sources.dems[0].path, bounds: region) }
        self.bounds = bounds
        zooms = try Self.zooms(options: options, layer: layer, finest: sources.finestPixel, bounds: bounds)
        ranges = zooms.map { TileRange(bounds: bounds, zoom: $0) }
        tileSize = options.tileSize
        border = max(layer.hillshade != nil ? 1 : 0, layer.contours?.border ?? 0)
        finestPixel = sources.finestPixel
        top = options.clipBounds == nil ? Self.pyramidTop(ranges: ranges, size: tileSize, border: border) : nil
        guard total <= BundleBuilder.maxTiles else { throw .tooManyTiles(count: total, maxZoom: zooms.upperBound) }
    }

    /// The build's zooms: the layer's, else those given, else from the DEMs (the highest zoom
    /// whose pixels are not finer than the finest DEM's, `finest`; the lowest at which the region
    /// fits a tile).
    static func zooms(
        options: BuildOptions, layer: TerrainLayer, finest: Double?, bounds: GeoBounds
    ) throws(BuildError)
        -> ClosedRange<Int>
    {
        if let z = layer.zooms { return z }
        let from = options.zoomsFromSources
        let box = bounds.mercator
        let z = ZoomChoice.range(
            lowest: from.contains(.min) ? nil : options.minZoom, highest: from.contains(.max) ? nil : options.maxZoom,
            from: from, finest: finest, region: (box.maxX - box.minX, box.maxY - box.minY), tileSize: options.tileSize)
        guard z.min <= z.max else { throw .zoomOrder(min: z.min, max: z.max) }
        guard z.max <= TileID.maxZoom else { throw .zoomTooHigh(z.max) }
        return z.min...z.max
    }

    /// The zoom whose warped elevations make those of every zoom below it (each from the next
    /// finer one's 2×2 means, `TerrainLevel`): the highest zoom above the lowest one whose next
    /// lower zoom's level fits `TerrainLevel.maxPixels`; nil when every zoom is warped from the
    /// DEM. When that zoom is finer than the DEM (bilinear), the zooms below it are means of its
    /// interpolated elevations rather than GDAL's averaging warp of the DEM: the warp of the
    /// first zoom coarser than the DEM is the costliest part of a build, and the means stay far
    /// above the fidelity the benchmark asks (docs/notes/terrain-measurements.md).
    static func pyramidTop(ranges: [TileRange], size: Int, border: Int) -> Int? {
        var top: Int?
        for (i, range) in ranges.enumerated() where i > 0 {
            let (w, h) = TerrainLevel.dimensions(range: ranges[i - 1], size: size, border: border)
            if w * h <= TerrainLevel.maxPixels { top = range.z }
        }
        return top
    }

    /// A level of voids for the zoom just below the top, which the top's warped blocks fill; nil
    /// without a top.
    func topFeeds() -> TerrainLevel? {
        top.flatMap { t in ranges.first { $0.z == t - 1 } }.map { TerrainLevel(range: $0, size: tileSize, border: border) }
    }

    /// The first pass: the blocks of the warped zooms, averaging where a zoom's pixels are coarser
    /// than the finest DEM's (unknown: averaging), bilinear where finer; the top zoom's blocks
    /// fill `feeds`. An averaging block costs the DEM pixels it reads besides its tiles.
    func warpedJobs(feeds: TerrainLevel?, threads: Int) -> [TerrainJob] {
        var jobs = [TerrainJob]()
        let n = tileSize
        for range in warped {
            let pixel = WebMercator.tileSpan(zoom: range.z) / Double(n)
            let sampling: DEMReader.Sampling = finestPixel.map { pixel > $0 } ?? true ? .average : .bilinear
            let perTile = sampling == .average ? 1 + pow(pixel / (finestPixel ?? pixel), 2) : 1
            for block in TerrainBlock.blocks(of: range, side: TerrainBlock.side(for: range, tileSize: n, threads: threads)) {
                jobs.append(
                    TerrainJob(
                        block: block, level: nil, feeds: range.z == top ? feeds : nil, sampling: sampling,
                        cost: Double(block.tiles.count) * perTile))
            }
        }
        return jobs
    }

    /// The second pass: the blocks of the zooms below the top, each zoom's elevations the 2×2
    /// means of the next finer one's, from `level` (the zoom just below the top, filled by the
    /// first pass) down.
    func meanJobs(from level: TerrainLevel, threads: Int) -> [TerrainJob] {
        var level = level, jobs = [TerrainJob]()
        for range in means.sorted(by: { $0.z > $1.z }) {
            if range.z < level.range.z { level = level.coarser(range: range) }
            for block in TerrainBlock.blocks(of: range, side: TerrainBlock.side(for: range, tileSize: level.size, threads: threads)) {
                jobs.append(TerrainJob(block: block, level: level, feeds: nil, sampling: .average, cost: Double(block.tiles.count)))
            }
        }
        return jobs
    }
}
