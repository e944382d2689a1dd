import Essentials
import Foundation
import Logging
import Raster
import SourceReaders
import Synchronization
import TileGeometry
import Terrain
import TileStore

extension BundleBuilder {
    /// What a checked build will do: its sources (in drawing order, with their layers), its zoom
    /// bands, its extent and the tiles each band considers.
    struct Plan {
        var sources: [SourceInfo]
        /// The layer of each source.
        var layerOf: [Int]
        var bands: [ZoomBand]
        var bounds: GeoBounds
        /// Per band, its zooms' tile ranges (over the band's sources, inside the region).
        var ranges: [[TileRange]]
        /// Per band, the zoom of its units and the units this build renders (a shard's share).
        var unitZooms: [Int]
        var units: [[TileID]]
        /// Per band, the tiles this build considers: its units' subtrees and the tiles above them
        /// (a shard part: its units' subtrees only).
        var bandTotals: [Int]
        /// Tiles this build considers, over every band.
        var total: Int { bandTotals.reduce(0, +) }
        /// Per layer without a given scale range, the joint range its non-8-bit sources are mapped from
        /// (derived from the sources, so part of what decides the tiles).
        var sharedScales: [String: [Double]] = [:]

        /// The record a shard part keeps for the merge.
        func recordPlan(tileSize: Int, encoding: TileEncoding, trails: TrailLayerOptions?, build: ClosedRange<Int>) -> BuildRecord.Plan {
            BuildRecord.Plan(bands: bands.indices.map { b in
                BuildRecord.Plan.Band(zooms: [bands[b].zooms.lowerBound, bands[b].zooms.upperBound], unitZoom: unitZooms[b],
                                      ranges: ranges[b].map { [$0.z, $0.minX, $0.maxX, $0.minY, $0.maxY] })
            }, tileSize: tileSize, encoding: encoding, trails: trails.map { t in
                let zooms = t.zooms ?? build
                return BuildRecord.Plan.Trails(name: t.name, title: t.title, zooms: [zooms.lowerBound, zooms.upperBound], style: t.style)
            })
        }
    }

    /// Checks everything that can be checked without writing: options and layers, every
    /// source's header and georeference (unless already read), the zoom range, the output folder.
    func plan(_ read: InspectedSources? = nil) throws(BuildError) -> Plan {
        try options.validate()
        let sources: InspectedSources
        if let read { sources = read } else { sources = try inspectSources() }
        let infos = sources.infos, layerOf = sources.layerOf, sharedScales = sources.sharedScales
        let bounds = try region(infos, layerOf: layerOf)
        let bands = ZoomBand.bands(layers: options.layers, build: options.minZoom...options.maxZoom)
        var ranges = [[TileRange]]()
        for band in bands {
            var extent: GeoBounds?
            for (i, info) in infos.enumerated() where band.layers.contains(layerOf[i]) {
                extent = extent.map { $0.union(info.bounds) } ?? info.bounds
            }
            let clipped = extent.flatMap { $0.intersection(bounds) } ?? bounds
            ranges.append(band.zooms.map { TileRange(bounds: clipped, zoom: $0) })
        }
        // Checked before any unit is enumerated, on the smaller of two upper bounds of the tiles
        // made: the ranges (which span every longitude across the antimeridian, and the gap
        // between far-apart sources) and the sources' parts one by one. (The tiles considered,
        // whole units' subtrees, can be several times the parts' tiles for tiny sources.)
        let needed = min(ranges.joined().reduce(0) { $0 + $1.count },
                         Self.partTiles(infos, layerOf: layerOf, bands: bands, bounds: bounds))
        guard needed <= BundleBuilder.maxTiles else { throw .tooManyTiles(count: needed, maxZoom: options.maxZoom) }
        var unitZooms = [Int](), units = [[TileID]](), work = [[Int]]()
        var bandTotals = [Int]()
        for (b, band) in bands.enumerated() {
            let z = BuildUnits.unitZoom(ranges: ranges[b], minZoom: band.zooms.lowerBound, maxZoom: band.zooms.upperBound)
            unitZooms.append(z)
            let parts = infos.indices.filter { band.layers.contains(layerOf[$0]) }
                .flatMap { infos[$0].parts.compactMap { $0.clippedToMercator } }
            units.append(BuildUnits.units(ranges: ranges[b], minZoom: band.zooms.lowerBound, unitZoom: z, footprints: parts))
            if options.shard != nil {
                let top = ranges[b][band.zooms.count - 1]
                let footprints = parts.map { TileRange(bounds: $0, zoom: top.z) }
                work.append(units[b].map { BuildUnits.work(unit: $0, top: top, footprints: footprints) })
            }
        }
        if let shard = options.shard { units = BuildUnits.select(shard, units: units, work: work) }
        // The tiles to consider: those of the units' subtrees and, unless a shard part (the merge
        // makes them), the ones above them.
        for (b, band) in bands.enumerated() {
            let above = options.shard == nil
                ? BuildUnits.expectedChildren(units: units[b], unitZoom: unitZooms[b], minZoom: band.zooms.lowerBound).count : 0
            bandTotals.append(units[b].reduce(above) { $0 + Self.subtreeCount($1, ranges: ranges[b], maxZoom: band.zooms.upperBound) })
        }
        try checkOutput()
        return Plan(sources: infos, layerOf: layerOf, bands: bands, bounds: bounds, ranges: ranges, unitZooms: unitZooms,
                    units: units, bandTotals: bandTotals, sharedScales: sharedScales)
    }

    /// Tiles of `bands` over the sources' parts, each part counted on its own (an upper bound of
    /// the tiles the build makes: overlaps count twice), so neither a build across the
    /// antimeridian nor one of far-apart sources is counted over the gap between them.
    static func partTiles(_ infos: [SourceInfo], layerOf: [Int], bands: [ZoomBand], bounds: GeoBounds) -> Int {
        var count = 0
        for band in bands {
            for (i, info) in infos.enumerated() where band.layers.contains(layerOf[i]) {
                for part in info.parts {
                    guard let p = part.intersection(bounds) else { continue }
                    for z in band.zooms { count += TileRange(bounds: p, zoom: z).count }
                }
            }
        }
        return count
    }

    /// A recorded unit root's pixels (nil: transparent).
    static func decodeRoot(_ data: [UInt8]?, unit: TileID) throws(BuildError) -> RGBAImage? {
        guard let data else { return nil }
        do throws(TileCodecError) { return try TileDecoder.decode(data) } catch { throw .encode(tile: unit, error) }
    }

    /// The parts of `ranges` in the subtree of `t`, one range a zoom from `t.z` to `maxZoom`
    /// (zooms where the subtree misses the ranges are left out).
    static func subtreeRanges(_ t: TileID, ranges: [TileRange], maxZoom: Int) -> [TileRange] {
        let minZ = ranges[0].z
        return (t.z...maxZoom).compactMap { z in ranges[z - minZ].intersection(TileRange(under: t, zoom: z)) }
    }

    /// Tiles of `ranges` in the subtree of `t`, down to `maxZoom`.
    static func subtreeCount(_ t: TileID, ranges: [TileRange], maxZoom: Int) -> Int {
        subtreeRanges(t, ranges: ranges, maxZoom: maxZoom).reduce(0) { $0 + $1.count }
    }

    private func checkOutput() throws(BuildError) {
        do { try BundleWriter.checkDestination(options.output) } catch { throw .store(error) }
    }
}
