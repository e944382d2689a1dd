import ArgumentParser
import Foundation
import Terrain

/// `--line LAT,LON;LAT,LON...`: a profile's line given as text, parsed as the command line is
/// read. The count is checked before points are parsed, then every point's range.
struct ProfileLineArgument: ExpressibleByArgument {
    let points: [GeoPoint]

    init?(argument: String) {
        guard let points = try? Self.points(argument) else { return nil }
        self.points = points
    }

    @Sendable static func parse(_ text: String) throws -> ProfileLineArgument {
        ProfileLineArgument(checked: try points(text))
    }

    private init(checked points: [GeoPoint]) { self.points = points }

    /// The points of `text`, or a usage error naming `--line` (in the profile's own wording).
    private static func points(_ text: String) throws -> [GeoPoint] {
        let count = text.utf8.reduce(1) { $1 == UInt8(ascii: ";") ? $0 + 1 : $0 }
        do { try LineValidation.checkCount(count, limit: ProfileOptions().maxPoints) } catch { throw usage(error) }
        var points = [GeoPoint]()
        points.reserveCapacity(count)
        for (i, pair) in text.split(separator: ";", omittingEmptySubsequences: false).enumerated() {
            let parts = pair.split(separator: ",", omittingEmptySubsequences: false)
            guard parts.count == 2, let lat = Double(parts[0].trimmingCharacters(in: .whitespaces)),
                let lon = Double(parts[1].trimmingCharacters(in: .whitespaces))
            else {
                throw ValidationError("--line: point \(i + 1) is not LAT,LON: \(pair.prefix(60))")
            }
            points.append(GeoPoint(lat: lat, lon: lon))
        }
        do { try LineValidation.checkCoordinates(points) } catch { throw usage(error) }
        return points
    }

    private static func usage(_ error: ProfileError) -> ValidationError {
        ValidationError(RegionsProfileCommand.message(error, flag: "--line"))
    }
}
