import ArgumentParser
import Foundation
import Terrain
import Trails
import TrailMapAPI
import TrailMapServer

/// `trailmap regions profile`: a line's elevation profile from the installed terrain, offline.
struct RegionsProfileCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "profile",
        abstract: "Elevation profile of a trail, a GPX track or a line, from the installed terrain, with no network.",
        discussion:
            """
            Give exactly one of --trail, --gpx or --line. Prints length, ascent, descent, steepest grades, lowest and highest points \
            and a chart; --json prints the same figures as the server's profile answer.
            """
    )

    @Option(name: .long, help: "An installed trail's id (16 hexadecimal digits, as 'regions trails search' prints it).") var trail: String?
    @Option(name: .long, help: "A GPX file: its track points (or route points).") var gpx: String?
    @Option(
        name: .long, parsing: .unconditional, help: "Points as LAT,LON;LAT,LON... in degrees (negative values allowed).",
        transform: ProfileLineArgument.parse)
    var line: ProfileLineArgument?
    @Option(name: .long, help: "Metres between samples (default \(Int(ProfileOptions.defaultSpacing))).") var spacing: Double?
    @Flag(name: .long, help: "Print JSON.") var json = false
    @OptionGroup var installed: InstalledTilesOption

    func validate() throws {
        guard [trail != nil, gpx != nil, line != nil].filter({ $0 }).count == 1 else {
            throw ValidationError("Give exactly one of --trail, --gpx or --line.")
        }
        if let trail, TrailID(trail) == nil { throw ValidationError("--trail: \(trail) is not a trail id (16 hexadecimal digits).") }
        if let spacing, !(spacing.isFinite && spacing > 0) { throw ValidationError("--spacing must be a positive number of metres.") }
    }

    func run() throws {
        let bundles = try RegionsTrailsCommand.installedBundles(installed.tiles)
        let options = ProfileOptions(spacing: spacing)
        let points: [GeoPoint]
        let flag: String
        if let trail, let id = TrailID(trail) {
            points = try ProfileLineInput.trail(id, bundles: bundles)
            flag = "--trail"
        } else if let gpx {
            points = try ProfileLineInput.gpx(gpx, limit: options.maxPoints)
            flag = "--gpx"
        } else {
            points = line?.points ?? []
            flag = "--line"
        }
        let terrain = try Self.installedTerrain(bundles)
        guard !terrain.isEmpty else {
            throw CommandFailure(
                description: "\(installed.tiles): no terrain region is installed (a bundle whose metadata names an encoding)")
        }
        let profile: ElevationProfile
        do { profile = try ProfileBuilder.profile(points, options: options, source: TerrainSampler(terrain)) } catch {
            throw CommandFailure(description: Self.message(error, flag: flag))
        }
        if json {
            try TrailsOutput.printJSON(ProfileAnswer(profile))
        } else {
            print(ProfileReport.text(profile))
        }
    }

    /// The installed bundles that are terrain; one whose encoding or zooms are bad is reported and left out.
    static func installedTerrain(_ bundles: [String]) throws -> [any TerrainTiles] {
        var out = [any TerrainTiles]()
        for path in bundles {
            do { out.append(try TerrainBundle(path: path)) } catch {
                if case .unknownEncoding(_, nil) = error { continue }
                FileHandle.standardError.write(Data("warning: \(error) (left out)\n".utf8))
            }
        }
        return out
    }

    /// The CLI's wording of a profile error.
    static func message(_ e: ProfileError, flag: String) -> String {
        switch e {
        case let .tooFewPoints(count): "\(flag): a line needs at least 2 points, found \(count)"
        case let .tooManyPoints(count, limit): "\(flag): \(count) points is more than the limit of \(limit)"
        case let .latitudeOutOfRange(index, value): "\(flag): point \(index + 1): latitude \(value) is outside -90 to 90"
        case let .longitudeOutOfRange(index, value): "\(flag): point \(index + 1): longitude \(value) is outside -180 to 180"
        case let .badSpacing(value): "--spacing: \(value) is not a positive number of metres"
        case .noElevation: "\(flag): the line lies outside every installed terrain region (or only over its voids)"
        case let .source(error): "the installed terrain cannot be read: \(error)"
        }
    }
}

/// The text form of a profile.
enum ProfileReport {
    static func text(_ p: ElevationProfile) -> String {
        func m(_ v: Double) -> String { String(format: "%.0f m", v) }
        func pct(_ v: Double?) -> String { v.map { String(format: "%.1f %%", $0) } ?? "-" }
        func at(_ e: ProfilePoint) -> String {
            String(format: "%.0f m at %.2f km (%.5f, %.5f)", e.elevation, e.distance / 1000, e.point.lat, e.point.lon)
        }
        let voids = p.samples.filter { $0.elevation == nil }.count
        var lines = [
            String(format: "Length:    %.2f km (%d samples every %.0f m)", p.length / 1000, p.samples.count, p.spacing),
            "Ascent:    \(m(p.ascent))",
            "Descent:   \(m(p.descent))",
            "Steepest:  \(pct(p.maxGrade.flatMap { $0 > 0 ? $0 : nil })) up, \(pct(p.minGrade.flatMap { $0 < 0 ? $0 : nil })) down",
            "Lowest:    \(at(p.lowest))",
            "Highest:   \(at(p.highest))"
        ]
        if voids > 0 { lines.append("No elevation at \(voids) samples (outside the terrain or voids).") }
        return lines.joined(separator: "\n") + "\n\n" + ProfileChart.render(p)
    }
}
