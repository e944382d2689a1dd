import Foundation
import TileGeometry

/// The extent `SourceFootprint` builds up from a raster's points: its bounds in degrees, its
/// parts either side of the antimeridian, and the longitude window of a grid past ±180°.
struct FootprintExtent {
    var bounds: GeoBounds
    var parts: [GeoBounds]
    var window: Double?

    /// The extent of the points' box, in one part.
    init(bounds: GeoBounds) {
        self.bounds = bounds
        parts = [bounds]
    }

    /// Places an extent whose longitudes `lons` run past ±180° or are narrowest across the
    /// antimeridian: in degrees (or Web Mercator metres) past ±180° by more than half a pixel (an
    /// edge a rounding error beyond it is clipped), a whole turn or more is the world, else it is
    /// wrapped into ±180°, in two parts when it crosses 180°, and gets a window; through PROJ
    /// (longitudes within ±180°) it is split when it crosses. Degrees from control points or RPCs
    /// across the antimeridian are refused: their fit is not wrapped.
    mutating func placeAcrossAntimeridian(
        lons: [Double], crs: SpatialReference, georeferencing: Georeferencing,
        width: Int, path: String
    ) throws(SourceReaderError) {
        let crossing = Antimeridian.crossingSpan(lons)
        let slack = max(1e-9, 0.5 * (bounds.east - bounds.west) / Double(max(width, 1)))
        if crs.kind != nil, bounds.west < -180 - slack || bounds.east > 180 + slack,
            georeferencing.affine != nil
        {
            window = (bounds.west + bounds.east) / 2
            if bounds.east - bounds.west >= 360 {
                (bounds.west, bounds.east) = (-180, 180)
                parts = [bounds]
            } else if let span = crossing {
                split(across: span)
            } else {
                let wrapped = lons.map(Antimeridian.wrap)
                (bounds.west, bounds.east) = (wrapped.min()!, wrapped.max()!)
                parts = [bounds]
            }
        } else if crs.kind == nil, let span = crossing {
            split(across: span)
        } else if georeferencing.affine == nil,
            crossing.map({ $0.west < 180 - slack && $0.east > 180 + slack }) == true
                || bounds.west < -180 - slack || bounds.east > 180 + slack
        {
            throw .transformFailed(
                path: path,
                reason:
                    """
                    it crosses the antimeridian, where rasters georeferenced in degrees by control points or RPCs are not read; warp it to \
                    a projected CRS first (gdalwarp -t_srs EPSG:32660, or -rpc for RPCs)
                    """
            )
        }
    }

    /// Two parts either side of 180° from `span` (east beyond 180); bounds over every longitude
    /// (MBTiles bounds cannot wrap).
    private mutating func split(across span: (west: Double, east: Double)) {
        parts = Antimeridian.parts(GeoBounds(west: span.west, south: bounds.south, east: span.east, north: bounds.north))
        (bounds.west, bounds.east) = (-180, 180)
    }

    /// A pole inside the raster (a polar stereographic map, an orthographic view): every
    /// longitude, up to the pole, which the grid's points only come near.
    mutating func reachPoles(_ sampler: FootprintSampler) {
        for pole in [90.0, -90.0] where sampler.holds(pole: pole) {
            (bounds.west, bounds.east) = (-180, 180)
            if pole > 0 { bounds.north = 90 } else { bounds.south = -90 }
            parts = [bounds]
        }
    }

    /// For a raster some of whose points `xs`/`ys` (the coarse grid) lie outside the projection's
    /// domain: the outline lies between them and the valid ones, so the extent grows by up to one
    /// grid step further than the valid points reach. On one side of the antimeridian, a grid four
    /// times finer places the outline closer, and its smaller steps grow the bounds less (a
    /// full-disc GEOS view: about ±85° for its ±81°, not ±96°).
    mutating func reachOutline(_ sampler: FootprintSampler, xs: [Double], ys: [Double]) {
        let steps = SourceFootprint.steps
        var step = FootprintSampler.largestStep(xs: xs, ys: ys, side: steps + 1)
        if parts.count == 1, bounds.east - bounds.west < 360 {
            let fine = 4 * steps
            let (fx, fy) = sampler.grid(fine)
            let finePlaced = FootprintSampler.placed(fx, fy)
            let lons = finePlaced.map { fx[$0] }, lats = finePlaced.map { fy[$0] }
            if let w = lons.min(), let e = lons.max(), e - w < 180, let s = lats.min(), let n = lats.max() {
                bounds = GeoBounds(
                    west: min(bounds.west, w), south: min(bounds.south, s),
                    east: max(bounds.east, e), north: max(bounds.north, n))
                parts = [bounds]
                let fineStep = FootprintSampler.largestStep(xs: fx, ys: fy, side: fine + 1)
                step = (min(step.lon, fineStep.lon), min(step.lat, fineStep.lat))
            }
        }
        func grown(_ b: GeoBounds) -> GeoBounds {
            GeoBounds(
                west: max(-180, b.west - step.lon), south: max(-90, b.south - step.lat),
                east: min(180, b.east + step.lon), north: min(90, b.north + step.lat))
        }
        bounds = grown(bounds)
        parts = parts.map(grown)
    }
}
