import ArgumentParser
import Foundation
import Hummingbird
import Metrics
import Prometheus
import TrailMapServer

extension ServerConfiguration.EmptyTiles: ExpressibleByArgument {}

/// `trailmap serve`: tiles, TileJSON, the viewer and metrics over HTTP.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve every MBTiles bundle of a folder over HTTP, with a map viewer at /."
    )

    @Option(name: .long, help: "Folder of .mbtiles bundles (watched for added, removed and replaced files).")
    var tiles: String = "Tiles"

    @Option(name: .long, help: "Address to listen on.")
    var host: String = "127.0.0.1"

    @Option(name: .long, help: "Port to listen on (0 picks a free one).")
    var port: Int = 8080

    @Option(name: .long, help: "Answer for a missing tile inside a tileset's range: 404 or transparent.")
    var emptyTiles: ServerConfiguration.EmptyTiles = .notFound

    @Option(name: .long, help: "Folder of Debian's libjs-leaflet.")
    var leafletDir: String = "/usr/share/javascript/leaflet"

    @Option(name: .long, help: "Seconds between rescans of the tiles folder.")
    var reloadInterval: Double = 1

    @OptionGroup(title: "Store") var store: StoreOptions

    @OptionGroup var global: GlobalOptions

    func validate() throws {
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: tiles, isDirectory: &isDir), isDir.boolValue else {
            throw ValidationError("--tiles \(tiles) is not a folder")
        }
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0...65535") }
        guard reloadInterval > 0, reloadInterval <= 3600 else { throw ValidationError("--reload-interval must be in (0, 3600] seconds") }
    }

    func run() async throws {
        let logger = global.logger("trailmap.serve")
        let registry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
        var config = ServerConfiguration(tilesDirectory: tiles)
        config.host = host
        config.port = port
        config.emptyTiles = emptyTiles
        config.leafletDirectory = leafletDir
        config.reloadInterval = .milliseconds(Int(reloadInterval * 1000))
        let quiet = global.quiet
        let storeSettings = try store.settings(logger: logger)
        let app = TileServer.makeApplication(config: config, metrics: ServerMetrics(registry: registry), logger: logger,
                                             store: storeSettings) { bound in
            guard !quiet else { return }
            let shown = host == "0.0.0.0" ? "127.0.0.1" : host
            FileHandle.standardOutput.write(Data("TrailMap is serving \(tiles) at http://\(shown):\(bound)/ (Ctrl-C to stop)\n".utf8))
        }
        try await app.runService()
    }
}
