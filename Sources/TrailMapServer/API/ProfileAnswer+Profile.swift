import Terrain
import TrailMapAPI

extension ProfileAnswer {
    /// The JSON body of a profile (server and device alike): metres to the centimetre,
    /// degrees to 1e-7.
    public init(_ p: ElevationProfile) {
        func round(_ v: Double, _ scale: Double) -> Double { (v * scale).rounded() / scale }
        func extreme(_ e: ProfilePoint) -> ProfileExtreme {
            ProfileExtreme(
                distanceM: round(e.distance, 100), elevationM: round(e.elevation, 100),
                lat: round(e.point.lat, 1e7), lon: round(e.point.lon, 1e7))
        }
        self.init(
            lengthM: round(p.length, 100), ascentM: round(p.ascent, 100), descentM: round(p.descent, 100),
            maxGradePct: p.maxGrade.map { round($0, 100) }, minGradePct: p.minGrade.map { round($0, 100) },
            lowest: extreme(p.lowest), highest: extreme(p.highest), spacingM: round(p.spacing, 1000),
            samples: p.samples.map {
                ProfileSampleBody(
                    distanceM: round($0.distance, 100), elevationM: $0.elevation.map { round($0, 100) },
                    gradePct: $0.grade.map { round($0, 100) }, lat: round($0.point.lat, 1e7), lon: round($0.point.lon, 1e7))
            })
    }
}
