import Foundation
import TileGeometry

/// Points over a box of a raster's pixels, in longitude/latitude: what `SourceFootprint` measures
/// a raster by. One per thread (it holds a `PixelGeolocator` and a `CoordinateTransformer`).
final class FootprintSampler {
    let crs: SpatialReference
    let box: SourceFootprint.PixelBox
    let path: String
    private let locator: PixelGeolocator
    /// To degrees through PROJ, for a CRS other than EPSG:4326 and EPSG:3857: one transformer
    /// serves every grid (the finer one only where points fall outside the projection's domain).
    private let toDegrees: CoordinateTransformer?

    init(path: String, crs: SpatialReference, georeferencing: Georeferencing, box: SourceFootprint.PixelBox) throws(SourceReaderError) {
        self.crs = crs
        self.box = box
        self.path = path
        locator = try PixelGeolocator(georeferencing, path: path)
        toDegrees = crs.kind == nil ? try CoordinateTransformer(from: crs, to: .wgs84, path: path) : nil
    }

    /// A `steps + 1` × `steps + 1` grid of points over the pixel box, edges included, row by row,
    /// in longitude/latitude (NaN where a point has none).
    func grid(_ steps: Int) -> (xs: [Double], ys: [Double]) {
        let (width, height) = (box.x1 - box.x0, box.y1 - box.y0)
        var xs = [Double](), ys = [Double]()
        for j in 0...steps {
            for i in 0...steps {
                xs.append(Double(box.x0) + Double(i) / Double(steps) * Double(width))
                ys.append(Double(box.y0) + Double(j) / Double(steps) * Double(height))
            }
        }
        locator.toCRS(xs: &xs, ys: &ys)
        switch crs.kind {
        case .epsg4326?:
            break
        case .epsg3857?:
            for i in xs.indices { (xs[i], ys[i]) = WebMercator.unproject(x: xs[i], y: ys[i]) }
        case nil:
            toDegrees?.transform(xs: &xs, ys: &ys)
        }
        return (xs, ys)
    }

    /// The indices of points that have a longitude of their own: finite, and not at a pole
    /// (PROJ gives a pole an arbitrary longitude, e.g. 0 for a polar stereographic quadrant
    /// whose corner is the pole).
    static func placed(_ xs: [Double], _ ys: [Double]) -> [Int] {
        xs.indices.filter { xs[$0].isFinite && ys[$0].isFinite && abs(ys[$0]) < 90 - 1e-7 }
    }

    /// Whether the pixel box holds the pole at latitude `pole`: a ring of points 0.01° from it,
    /// every 45° of longitude, all strictly inside (a raster that only touches the pole, or a CRS
    /// where the pole is a line, fails).
    func holds(pole: Double) -> Bool {
        guard let back = try? CoordinateTransformer(from: .wgs84, to: crs, path: path) else { return false }
        var px = (0..<8).map { Double($0) * 45 - 180 }, py = [Double](repeating: pole * 0.999_9, count: 8)
        back.transform(xs: &px, ys: &py)
        locator.toPixels(xs: &px, ys: &py)
        return px.indices.allSatisfy {
            px[$0] > Double(box.x0) && px[$0] < Double(box.x1) && py[$0] > Double(box.y0) && py[$0] < Double(box.y1)
        }
    }

    /// The largest longitude and latitude steps between neighbouring valid points of a `side` ×
    /// `side` grid (longitudes the short way round).
    static func largestStep(xs: [Double], ys: [Double], side: Int) -> (lon: Double, lat: Double) {
        var step = (lon: 0.0, lat: 0.0)
        for j in 0..<side {
            for i in 0..<side {
                let a = j * side + i
                guard xs[a].isFinite, ys[a].isFinite else { continue }
                for b in [i + 1 < side ? a + 1 : -1, j + 1 < side ? a + side : -1] where b >= 0 && xs[b].isFinite && ys[b].isFinite {
                    let dlon = abs(xs[b] - xs[a]).truncatingRemainder(dividingBy: 360)
                    step.lon = max(step.lon, min(dlon, 360 - dlon))
                    step.lat = max(step.lat, abs(ys[b] - ys[a]))
                }
            }
        }
        return step
    }
}
