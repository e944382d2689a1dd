import Foundation
import Raster
import SourceReaders
import TileGeometry
import TileStore

/// A source as a build plans it: what was read of it and the layer that draws it.
struct PlannedSource {
    var info: SourceInfo
    /// Index into the build's layers.
    var layer: Int
}

/// One zoom band of a build (`ZoomBand`) as the build will render it: its tile ranges, the units
/// they are cut into and the tiles it considers. Its top zoom is rendered from its layers'
/// sources, each lower zoom from the zoom below.
struct BandPlan: Sendable {
    /// The band's zooms.
    var zooms: ClosedRange<Int>
    /// Indices into the build's layers, in drawing order.
    var layers: [Int]
    /// The tile ranges of `zooms`, lowest first (over the band's sources, inside the region).
    var ranges: [TileRange]
    /// The zoom of the band's units (`BuildUnits.unitZoom`).
    var unitZoom: Int
    /// The units this build renders, in Morton order (a shard part: its share).
    var units: [TileID]
    /// The tiles this build considers: its units' subtrees and the tiles above them (a shard
    /// part: its units' subtrees only, as the merge makes the rest).
    var total: Int

    /// The band as `ZoomBand` gives it: zooms and layers.
    var zoomBand: ZoomBand { ZoomBand(zooms: zooms, layers: layers) }

    /// Tiles of the band's ranges in the subtree of `t`, down to the top zoom.
    func subtreeCount(_ t: TileID) -> Int { Self.subtreeCount(t, ranges: ranges, maxZoom: zooms.upperBound) }

    /// Tiles of `ranges` in the subtree of `t`, down to `maxZoom`.
    static func subtreeCount(_ t: TileID, ranges: [TileRange], maxZoom: Int) -> Int {
        subtreeRanges(t, ranges: ranges, maxZoom: maxZoom).reduce(0) { $0 + $1.count }
    }

    /// The parts of `ranges` in the subtree of `t`, one range a zoom from `t.z` to `maxZoom`
    /// (zooms where the subtree misses the ranges are left out).
    static func subtreeRanges(_ t: TileID, ranges: [TileRange], maxZoom: Int) -> [TileRange] {
        let minZ = ranges[0].z
        return (t.z...maxZoom).compactMap { z in ranges[z - minZ].intersection(TileRange(under: t, zoom: z)) }
    }
}

/// What a checked build will do: its sources (in drawing order, each with its layer), its zoom
/// bands with their units, its extent, and the tiles it considers.
struct BuildPlan {
    var sources: [PlannedSource]
    /// Lowest zooms first.
    var bands: [BandPlan]
    /// The region: the union of the sources, inside the clip bounds and the Mercator range.
    var bounds: GeoBounds
    /// Per layer without a given scale range, the joint range its non-8-bit sources are mapped from
    /// (derived from the sources, so part of what decides the tiles).
    var sharedScales: [String: [Double]] = [:]

    /// What was read of each source, in drawing order.
    var infos: [SourceInfo] { sources.map(\.info) }
    /// Tiles this build considers, over every band.
    var total: Int { bands.reduce(0) { $0 + $1.total } }

    /// Plans a build of `options` over `sources`: the region, the bands' tile ranges (refused
    /// above `BundleBuilder.maxTiles`), their units (a shard part: its share) and the tiles each
    /// band considers.
    init(options: BuildOptions, sources: BundleBuilder.InspectedSources) throws(BuildError) {
        self.sources = sources.sources
        sharedScales = sources.sharedScales
        let bounds = try Self.region(sources.sources, options: options)
        self.bounds = bounds
        let zoomBands = ZoomBand.bands(layers: options.layers, build: options.minZoom...options.maxZoom)
        let ranges = zoomBands.map { band in Self.ranges(of: band, sources: sources.sources, bounds: bounds) }
        // Checked before any unit is enumerated, on the smaller of two upper bounds of the tiles
        // made: the ranges (which span every longitude across the antimeridian, and the gap
        // between far-apart sources) and the sources' parts one by one. (The tiles considered,
        // whole units' subtrees, can be several times the parts' tiles for tiny sources.)
        let needed = min(
            ranges.joined().reduce(0) { $0 + $1.count },
            Self.partTiles(sources.sources, bands: zoomBands, bounds: bounds))
        guard needed <= BundleBuilder.maxTiles else { throw .tooManyTiles(count: needed, maxZoom: options.maxZoom) }
        bands = Self.cutIntoUnits(zoomBands, ranges: ranges, sources: sources.sources, shard: options.shard)
    }

    /// `band`'s tile ranges: its zooms over the union of its sources, inside `bounds`.
    static func ranges(of band: ZoomBand, sources: [PlannedSource], bounds: GeoBounds) -> [TileRange] {
        var extent: GeoBounds?
        for source in sources where band.layers.contains(source.layer) {
            extent = extent.map { $0.union(source.info.bounds) } ?? source.info.bounds
        }
        let clipped = extent.flatMap { $0.intersection(bounds) } ?? bounds
        return band.zooms.map { TileRange(bounds: clipped, zoom: $0) }
    }

    /// The bands with their unit zooms, their units (a shard part's share of them, the work
    /// weighed over every band) and the tiles each considers: those of the units' subtrees and,
    /// unless a shard part (the merge makes them), the ones above them.
    static func cutIntoUnits(_ zoomBands: [ZoomBand], ranges: [[TileRange]], sources: [PlannedSource], shard: ShardSpec?) -> [BandPlan] {
        var bands = [BandPlan](), work = [[Int]]()
        for (b, band) in zoomBands.enumerated() {
            let z = BuildUnits.unitZoom(ranges: ranges[b], minZoom: band.zooms.lowerBound, maxZoom: band.zooms.upperBound)
            let parts = sources.filter { band.layers.contains($0.layer) }
                .flatMap { $0.info.parts.compactMap { $0.clippedToMercator } }
            let units = BuildUnits.units(ranges: ranges[b], minZoom: band.zooms.lowerBound, unitZoom: z, footprints: parts)
            bands.append(BandPlan(zooms: band.zooms, layers: band.layers, ranges: ranges[b], unitZoom: z, units: units, total: 0))
            if shard != nil {
                let top = ranges[b][band.zooms.count - 1]
                let footprints = parts.map { TileRange(bounds: $0, zoom: top.z) }
                work.append(units.map { BuildUnits.work(unit: $0, top: top, footprints: footprints) })
            }
        }
        if let shard {
            for (b, units) in BuildUnits.select(shard, units: bands.map(\.units), work: work).enumerated() { bands[b].units = units }
        }
        for b in bands.indices {
            let band = bands[b]
            let above =
                shard == nil
                ? BuildUnits.expectedChildren(units: band.units, unitZoom: band.unitZoom, minZoom: band.zooms.lowerBound).count : 0
            bands[b].total = band.units.reduce(above) { $0 + band.subtreeCount($1) }
        }
        return bands
    }

    /// The region: the union of the sources, inside the clip bounds and the Mercator range.
    static func region(_ sources: [PlannedSource], options: BuildOptions) throws(BuildError) -> GeoBounds {
        var union = sources[0].info.bounds
        for source in sources.dropFirst() { union = union.union(source.info.bounds) }
        if let region = options.clipBounds {
            for source in sources where source.info.parts.allSatisfy({ $0.intersection(region) == nil }) {
                throw .sourceOutsideRegion(path: source.info.path, layer: options.layers[source.layer].name, bounds: region)
            }
            union = union.intersection(region) ?? region
        }
        guard let bounds = union.clippedToMercator else {
            throw .outsideMercator(path: sources[0].info.path, bounds: union)
        }
        return bounds
    }

    /// Tiles of `bands` over the sources' parts, each part counted on its own (an upper bound of
    /// the tiles the build makes: overlaps count twice), so neither a build across the
    /// antimeridian nor one of far-apart sources is counted over the gap between them.
    static func partTiles(_ sources: [PlannedSource], bands: [ZoomBand], bounds: GeoBounds) -> Int {
        var count = 0
        for band in bands {
            for source in sources where band.layers.contains(source.layer) {
                for part in source.info.parts {
                    guard let p = part.intersection(bounds) else { continue }
                    for z in band.zooms { count += TileRange(bounds: p, zoom: z).count }
                }
            }
        }
        return count
    }

    /// The record a shard part keeps for the merge.
    func recordPlan(tileSize: Int, encoding: TileEncoding, trails: TrailLayerOptions?, build: ClosedRange<Int>) -> BuildRecord.Plan {
        BuildRecord.Plan(
            bands: bands.map { band in
                BuildRecord.Plan.Band(
                    zooms: [band.zooms.lowerBound, band.zooms.upperBound], unitZoom: band.unitZoom,
                    ranges: band.ranges.map { [$0.z, $0.minX, $0.maxX, $0.minY, $0.maxY] })
            }, tileSize: tileSize, encoding: encoding,
            trails: trails.map { t in
                let zooms = t.zooms ?? build
                return BuildRecord.Plan.Trails(name: t.name, title: t.title, zooms: [zooms.lowerBound, zooms.upperBound], style: t.style)
            })
    }
}

extension BundleBuilder {
    /// Checks everything that can be checked without writing: options and layers, every
    /// source's header and georeference (unless already read), the zoom range, the output folder.
    func plan(_ read: InspectedSources? = nil) throws(BuildError) -> BuildPlan {
        try options.validate()
        let sources: InspectedSources
        if let read { sources = read } else { sources = try inspectSources() }
        let plan = try BuildPlan(options: options, sources: sources)
        do { try BundleWriter.checkDestination(options.output) } catch { throw .store(error) }
        return plan
    }
}
