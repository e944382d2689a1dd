import ArgumentParser
import Foundation
import Trails

/// `trailmap regions trails ...`: the trails of the regions installed on this device, offline.
struct RegionsTrailsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trails",
        abstract: "Search the trails of the installed regions and show one, with no network.",
        subcommands: [RegionsTrailsSearchCommand.self, RegionsTrailsShowCommand.self]
    )

    /// The installed bundles: the `.mbtiles` files of the tiles folder (hidden partial files aside), by name.
    static func installedBundles(_ folder: String) throws -> [String] {
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDir), isDir.boolValue else {
            throw CommandFailure(description: "\(folder): no such folder of installed regions (give it with --tiles)")
        }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return names.filter { $0.hasSuffix(".mbtiles") && !$0.hasPrefix(".") }.sorted()
            .map { URL(fileURLWithPath: folder).appendingPathComponent($0).path }
    }
}

/// `--tiles` alone (the folder the regions are installed into): these commands use no server.
struct InstalledTilesOption: ParsableArguments {
    @Option(name: .long, help: "Folder the region bundles are installed into.") var tiles: String = "Tiles"
}

struct RegionsTrailsSearchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "search", abstract: "Search the trails of every installed region.")
    @OptionGroup var query: TrailQueryOptions
    @Flag(name: .long, help: "Print JSON.") var json = false
    @OptionGroup var installed: InstalledTilesOption

    func validate() throws { _ = try query.query() }

    func run() throws {
        try TrailsOutput.search(try query.query(), bundles: try RegionsTrailsCommand.installedBundles(installed.tiles), json: json)
    }
}

struct RegionsTrailsShowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show", abstract: "One trail of the installed regions; its line as GPX or GeoJSON.")
    @Argument(help: "The trail id (16 hexadecimal digits, as search prints it).") var id: String
    @Option(name: .long, help: "Write the trail as a GPX track to this file.") var gpx: String?
    @Option(name: .long, help: "Write the trail as a GeoJSON feature to this file.") var geojson: String?
    @Flag(name: .long, help: "Print JSON.") var json = false
    @OptionGroup var installed: InstalledTilesOption

    func validate() throws {
        guard TrailID(id) != nil else { throw ValidationError("\(id) is not a trail id (16 hexadecimal digits).") }
    }

    func run() throws {
        try TrailsOutput.show(
            id: id, bundles: try RegionsTrailsCommand.installedBundles(installed.tiles), gpx: gpx, geojson: geojson, json: json)
    }
}
