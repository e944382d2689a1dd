import Foundation
import TileGeometry

/// Fits an area to an area product's cap: the zooms it gets, or how large it may be.
struct AreaPlanner {
    /// What a quote will cut.
    struct Plan: Sendable {
        var bounds: GeoBounds
        var zooms: ClosedRange<Int>
        /// The top zoom asked for.
        var requestedMaxZoom: Int
        var tiles: Int
        /// The estimated file size (at most the cap).
        var estimate: Int64
    }

    let sources: AreaSources
    let cap: Int64
    let productId: String

    /// The plan for `shape` at `zooms`: the top zoom lowered until the estimate fits the cap,
    /// unless `fixedTop` (then a too-large area is refused). Nil when the sources hold no tile there.
    func plan(_ shape: AreaShape, zooms: ClosedRange<Int>, fixedTop: Bool) throws(AreaError) -> Plan? {
        guard let bounds = shape.bounds.intersection(sources.coverage) else { return nil }
        var tiles = 0, bytes = 0, fitted: (top: Int, tiles: Int, estimate: Int64)?
        for z in zooms {
            let e = try sources.estimate(bounds: bounds, zoom: z)
            tiles += e.tiles
            bytes += e.bytes
            let size = AreaSources.fileBytes(tiles: tiles, bytes: bytes)
            if size > cap { break }
            if tiles > 0 { fitted = (z, tiles, size) }
        }
        // The loop stops early only once it has counted tiles: none means no source has any there.
        if tiles == 0 { return nil }
        guard let fitted, !fixedTop || fitted.top == zooms.upperBound else {
            throw .tooLarge(productId: productId, maxBytes: cap, largestRadiusKm: try largestRadius(shape, zooms: zooms), zooms: zooms)
        }
        return Plan(
            bounds: bounds, zooms: zooms.lowerBound...fitted.top, requestedMaxZoom: zooms.upperBound, tiles: fitted.tiles,
            estimate: fitted.estimate)
    }

    /// About the largest radius whose area fits the cap at all of `zooms` (0 when none does):
    /// the area scales with the radius squared, so a few corrected guesses find it.
    func largestRadius(_ shape: AreaShape, zooms: ClosedRange<Int>) throws(AreaError) -> Double {
        // First guess from the zooms that are cheap to count, the higher ones extrapolated (4x a zoom).
        var tiles = 0, bytes = 0, last = (tiles: 0, bytes: 0)
        for z in zooms {
            if AreaSources.fileBytes(tiles: tiles, bytes: bytes) > 4 * cap {
                last = (last.tiles * 4, last.bytes * 4)
            } else {
                let bounds = shape.bounds.intersection(sources.coverage)
                last = try bounds.map { b throws(AreaError) in try sources.estimate(bounds: b, zoom: z) } ?? (0, 0)
            }
            tiles += last.tiles
            bytes += last.bytes
        }
        var r = shape.radiusKm * min(1, sqrt(Double(cap) * 0.9 / Double(max(1, AreaSources.fileBytes(tiles: tiles, bytes: bytes)))))
        var fits: Double?
        var tooLarge = shape.radiusKm
        for _ in 0..<12 {
            guard r >= 0.05 else { return 0 }
            let size = try total(shape.scaled(toRadiusKm: r), zooms: zooms)
            if size <= cap {
                fits = r
                break
            }
            tooLarge = r
            r *= min(0.97, sqrt(Double(cap) * 0.9 / Double(size)))
        }
        guard var low = fits else { return 0 }
        // Then halve the gap to the smallest radius known too large, to within about 2%.
        var high = tooLarge
        for _ in 0..<8 where high / low > 1.02 {
            let mid = (low * high).squareRoot()
            if try total(shape.scaled(toRadiusKm: mid), zooms: zooms) <= cap { low = mid } else { high = mid }
        }
        return (low * 10).rounded(.down) / 10
    }

    /// The estimated file size of `shape` at all of `zooms`.
    private func total(_ shape: AreaShape, zooms: ClosedRange<Int>) throws(AreaError) -> Int64 {
        guard let bounds = shape.bounds.intersection(sources.coverage) else { return 0 }
        var tiles = 0, bytes = 0
        for z in zooms {
            let e = try sources.estimate(bounds: bounds, zoom: z)
            tiles += e.tiles
            bytes += e.bytes
            if AreaSources.fileBytes(tiles: tiles, bytes: bytes) > 2 * cap { break }
        }
        return AreaSources.fileBytes(tiles: tiles, bytes: bytes)
    }
}
