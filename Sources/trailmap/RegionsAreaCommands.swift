import ArgumentParser
import Foundation
import RegionManager
import TrailMapAPI

/// `trailmap regions area ...`: buy just the area around a point instead of a whole region.
struct RegionsAreaCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "area",
        abstract: "Buy just the area around a point: get a quote (exact size, zooms, price), then buy it and install the area it gives.",
        subcommands: [RegionsAreaQuoteCommand.self, RegionsAreaBuyCommand.self]
    )
}

struct RegionsAreaQuoteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "quote",
        abstract: "What the area around a point would be: bounds, zooms, exact size, price and how long the quote holds.")
    @Argument(help: "The center as LAT,LON in degrees, e.g. 40.34,-105.68.", transform: PointArgument.parse) var point: PointArgument
    @Option(name: .long, help: "Radius around the point in kilometres (more than 0, at most 200).") var radiusKm: Double
    @Option(name: .long, help: "Lowest zoom (default: the sources' lowest).") var minzoom: Int?
    @Option(name: .long, help: "Top zoom (default: the sources' top zoom, lowered when the area would not fit the product's cap).")
    var maxzoom: Int?
    @Option(name: .long, help: "The area product to quote (default: the best one for the point; see `trailmap regions list`).") var product:
        String?
    @Flag(name: .long, help: "Print JSON.") var json = false
    @OptionGroup var options: RegionOptions

    func validate() throws {
        guard radiusKm.isFinite, radiusKm > 0, radiusKm <= AreaQuoteRequest.maxRadiusKm else {
            throw ValidationError(
                "--radius-km must be more than 0 and at most \(Int(AreaQuoteRequest.maxRadiusKm)) (kilometres), not \(radiusKm).")
        }
        for (name, zoom) in [("--minzoom", minzoom), ("--maxzoom", maxzoom)] {
            if let zoom, !(0...24).contains(zoom) { throw ValidationError("\(name) must be 0...24, not \(zoom).") }
        }
        if let minzoom, let maxzoom, minzoom > maxzoom {
            throw ValidationError("--minzoom \(minzoom) is above --maxzoom \(maxzoom).")
        }
    }

    func run() async throws {
        let (lat, lon) = (point.latitude, point.longitude)
        let quote = try await options.manager().quoteArea(
            latitude: lat, longitude: lon, radiusKm: radiusKm, minzoom: minzoom,
            maxzoom: maxzoom, productId: product)
        if json { try RegionsOutput.json(quote) } else { RegionsAreaOutput.quote(quote, latitude: lat, longitude: lon, radiusKm: radiusKm) }
    }
}

struct RegionsAreaBuyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "buy",
        abstract: "Buy a quoted area through the sandbox store; prints the area's id, which `trailmap regions install` takes.")
    @Argument(help: "The quote id `trailmap regions area quote` printed.") var quoteId: String
    @Flag(name: .long, help: "Print JSON.") var json = false
    @OptionGroup var options: RegionOptions

    func validate() throws {
        guard !quoteId.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw ValidationError("Give the quote id `trailmap regions area quote` printed.")
        }
    }

    func run() async throws {
        let outcome = try await options.manager().buyArea(quoteId: quoteId)
        if json { try RegionsOutput.json(outcome.result) } else { RegionsAreaOutput.bought(outcome) }
    }
}

/// A point given as `LAT,LON` in degrees (parsed as the command line is read).
struct PointArgument: ExpressibleByArgument {
    let latitude: Double
    let longitude: Double

    init?(argument: String) {
        let parts = argument.split(separator: ",", omittingEmptySubsequences: false).map { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard parts.count == 2, let lat = parts[0], let lon = parts[1], (-90...90).contains(lat), (-180...180).contains(lon) else {
            return nil
        }
        (latitude, longitude) = (lat, lon)
    }

    @Sendable static func parse(_ text: String) throws -> PointArgument {
        guard let p = PointArgument(argument: text) else {
            throw ValidationError("Give the point as LAT,LON in degrees, e.g. 40.34,-105.68.")
        }
        return p
    }
}
