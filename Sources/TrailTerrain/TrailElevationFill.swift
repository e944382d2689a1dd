import Terrain
import Trails

/// Fills the elevation figures of a bundle's trails from an elevation source: the single call a
/// build with terrain makes once its trails are written.
public enum TrailElevationFill {
    /// What a fill did.
    public struct Outcome: Sendable, Equatable {
        /// Trails given figures.
        public var filled = 0
        /// Trails with no elevation anywhere along them (outside the source, or over voids).
        public var withoutElevation = 0

        public init(filled: Int = 0, withoutElevation: Int = 0) {
            self.filled = filled
            self.withoutElevation = withoutElevation
        }
    }

    /// Profiles every trail of the bundle at `path` every `spacing` metres over `source` and
    /// stores its ascent, descent and steepest grade (either direction).
    @discardableResult
    public static func fill(
        bundle path: String, from source: some ElevationSource,
        spacing: Double = ProfileOptions.defaultSpacing
    ) throws(TrailElevationFillError) -> Outcome {
        let records: [TrailRecord]
        do { records = try TrailIndex(bundle: path).all() } catch { throw .store(error) }
        var figures = [TrailID: TrailElevation]()
        var outcome = Outcome()
        for r in records {
            let line = r.geometry.parts.flatMap { $0 }.map { GeoPoint(lat: $0.lat, lon: $0.lon) }
            do {
                let p = try ProfileBuilder.profile(
                    line, options: ProfileOptions(spacing: spacing, maxPoints: max(2, line.count)), source: source)
                let steepest = max(p.maxGrade ?? 0, -(p.minGrade ?? 0), 0)
                figures[r.id] = TrailElevation(ascentMetres: p.ascent, descentMetres: p.descent, maxGradePercent: steepest)
                outcome.filled += 1
            } catch let .source(e) {
                throw .elevation(e)
            } catch {
                outcome.withoutElevation += 1
            }
        }
        do { try TrailElevationStore.write(figures, toBundle: path) } catch { throw .store(error) }
        return outcome
    }
}

/// Why trails' elevations could not be filled.
public enum TrailElevationFillError: Error, Sendable, Equatable, CustomStringConvertible {
    case store(TrailStoreError)
    case elevation(ElevationError)

    public var description: String {
        switch self {
        case let .store(e): e.description
        case let .elevation(e): e.description
        }
    }
}
