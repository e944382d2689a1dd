import ArgumentParser
import Foundation
import Trails
import TrailSources

/// `trailmap catalog places`: the place names trail searches start from.
struct PlacesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "places",
        abstract: "The place names trail searches may start from (GET /api/v1/trails?near=NAME).",
        subcommands: [PlacesLoadCommand.self, PlacesFindCommand.self]
    )
}

/// `trailmap catalog places load FILE`
struct PlacesLoadCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "load",
        abstract:
            """
            Load a place list (GeoNames text, or any point layer GDAL reads with a 'name' field) for the server of a tiles folder, \
            replacing the one it has.
            """
    )

    @Argument(help: "A GeoNames .txt file (tab-separated) or a vector file of named points.")
    var file: String

    @Option(name: .long, help: "The tiles folder the server serves (the place list is kept there).")
    var tiles: String = "Tiles"

    @Flag(name: .long, help: "Print JSON.") var json = false

    func run() throws {
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: tiles, isDirectory: &isDir), isDir.boolValue else {
            throw CommandFailure("--tiles \(tiles) is not a folder")
        }
        let places: [Place]
        do { places = try PlaceReader.read(path: file) } catch { throw CommandFailure(description: Self.message(error)) }
        let out = Gazetteer.defaultPath(tilesDirectory: tiles)
        do { try Gazetteer.write(places, to: out) } catch { throw CommandFailure(description: Self.message(error)) }
        if json { return try JSONOutput.print(CommandReports.PlacesLoaded(file: file, placeList: out, places: places.count)) }
        print("loaded \(places.count) places from \(file) into \(out)")
    }

    /// What a place-list error says to the user.
    static func message(_ e: GazetteerError) -> String {
        switch e {
        case let .cannotOpen(path, reason): "\(path): \(reason)"
        case let .badLine(path, line, reason): "\(path), line \(line): \(reason)"
        case let .noPlaces(path, reason): "\(path): no places: \(reason)"
        case let .store(path, message): "\(path): cannot write the place list: \(message)"
        }
    }
}

/// `trailmap catalog places find NAME`
struct PlacesFindCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "find", abstract: "Look a place up as trail searches do.")

    @Argument(help: "A place name (case and accents do not matter; a prefix finds the largest match).")
    var name: String

    @Option(name: .long, help: "The tiles folder the server serves.")
    var tiles: String = "Tiles"

    @Flag(name: .long, help: "Print JSON.") var json = false

    func run() throws {
        let g: Gazetteer
        do { g = try Gazetteer(path: Gazetteer.defaultPath(tilesDirectory: tiles)) } catch {
            throw CommandFailure(
                description: "no place list in \(tiles): load one with `trailmap catalog places load FILE --tiles \(tiles)`")
        }
        guard let p = g.lookup(name) else { throw CommandFailure(description: "no place named '\(name)' among \(g.count()) places") }
        if json { return try JSONOutput.print(CommandReports.PlaceFound(name: p.name, lat: p.lat, lon: p.lon)) }
        print("\(p.name)\t\(p.lat)\t\(p.lon)")
    }
}
