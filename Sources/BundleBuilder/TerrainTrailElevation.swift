import Logging
import Terrain
import TerrainDEM
import TrailTerrain

extension TerrainBuild {
    /// Stores each trail's ascent, descent and steepest grade, profiled over the build's DEMs
    /// (later DEMs covering earlier ones, as drawn), in the bundle the trails were written to.
    static func fillTrailElevations(
        of bundle: String, sources: TerrainSources, layer: TerrainLayer,
        logger: Logger
    ) throws(BuildError) {
        var samplers = [any ElevationSource]()
        for dem in sources.dems {
            do { samplers.append(try DEMSampler(path: dem.path, crs: layer.crs, verticalUnit: layer.verticalUnit)) } catch {
                throw .trailElevation(.elevation(error))
            }
        }
        let outcome: TrailElevationFill.Outcome
        do { outcome = try TrailElevationFill.fill(bundle: bundle, from: LayeredElevation(samplers)) } catch {
            throw .trailElevation(error)
        }
        logger.info("trails: ascent and grades of \(outcome.filled) trail(s); \(outcome.withoutElevation) without elevation under them")
    }
}
