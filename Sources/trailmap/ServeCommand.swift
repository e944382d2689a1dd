import BundlePatch
import ArgumentParser
import Foundation
import Logging
import Hummingbird
import Metrics
import NIOCore
import Prometheus
import TileCache
import TrailMapServer

extension ServerConfiguration.EmptyTiles: ExpressibleByArgument {}
extension PolicyKind: ExpressibleByArgument {}

/// `trailmap serve`: tiles, TileJSON, the viewer and metrics over HTTP.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve every MBTiles bundle of a folder over HTTP, with a map viewer at /."
    )

    @Option(name: .long, help: "Folder of .mbtiles bundles and .pmtiles archives (watched for added, removed and replaced files).")
    var tiles: String = "Tiles"

    @Option(
        name: .long,
        help: "Folder of the patches between published versions (made by `trailmap catalog publish`; default TILES/.trailmap-patches).")
    var patches: String?

    @Option(name: .long, help: "Address to listen on.")
    var host: String = "127.0.0.1"

    @Option(name: .long, help: "Port to listen on (0 picks a free one).")
    var port: Int = 8080

    @Option(
        name: .long,
        help:
            """
            Origin clients reach this server at, e.g. https://maps.example.com, written into TileJSON, WMTS and tile-token URLs (default: \
            URLs relative to the server; WMTS uses the listen address).
            """
    )
    var publicURL: String?

    @Option(
        name: .long, parsing: .upToNextOption,
        help:
            """
            With a store: tilesets (file names without extension) served to everyone although no free product sells them. Every other \
            tileset no product sells, areas' sources included, is closed.
            """
    )
    var publicTilesets: [String] = []

    @Option(
        name: .long,
        help: "The free tileset drawn under the viewer's and the store's maps (default: the free tileset with the lowest minzoom).")
    var baseTileset: String?

    @Option(
        name: .long, help: "How many of a paid tileset's lowest zoom levels anyone may read as its preview (never its top zoom; 0: none).")
    var previewZooms: Int = PreviewZooms.defaultLevels

    @Option(
        name: .long,
        help: """
            Seconds a paid tile's credential, once checked, opens that region's tiles without reading the catalog again; a refund or \
            logout made through another replica reaches this one within it (0: check every request).
            """)
    var grantLifetime: Double = Double(ServerConfiguration.defaultGrantLifetime.components.seconds)

    @Option(name: .long, help: "Most connections open at once; a connection beyond it is closed as soon as it is accepted.")
    var maxConnections: Int = 10_000

    @Option(
        name: .long,
        help:
            """
            Threads of the plain-epoll tile layer in front of the HTTP server (free tiles answered there, every other connection handed \
            on); 0: off, the HTTP server owns the port (default: one per processor).
            """
    )
    var tileLoops: Int?

    @Option(
        name: .long,
        help: """
            Memory the tile loops may keep as sealed copies of large tiles asked for again, sent with sendfile; beside the cache's \
            budget, 0 for none (default: a sixteenth of --cache-budget, at most 64MB).
            """)
    var sendfileBudget: ByteSize?

    @Option(name: .long, help: "Answer for a missing tile inside a tileset's range: 404 or transparent.")
    var emptyTiles: ServerConfiguration.EmptyTiles = .notFound

    @Option(name: .long, help: "Folder of Debian's libjs-leaflet.")
    var leafletDir: String = "/usr/share/javascript/leaflet"

    @Option(name: .long, help: "Seconds between rescans of the tiles folder.")
    var reloadInterval: Double = 1

    @Option(name: .long, help: "Seconds a request may take from its first byte to its last; slower connections are closed.")
    var requestTimeout: Double = 30

    @Option(name: .long, help: "Seconds a connection may sit with nothing read or written (keep-alive included) before it is closed.")
    var idleTimeout: Double = 60

    @Option(name: .long, help: "Memory for cached tiles and open bundles, e.g. 256MB or 1G; never exceeded.")
    var cacheBudget: ByteSize = ByteSize(bytes: 256 << 20)

    @Option(name: .long, help: "Cache eviction policy: gdsf (size-aware; measured best, docs/cache.md), s3fifo, sieve or lru.")
    var cachePolicy: PolicyKind = .gdsf

    @Option(name: .long, help: "Most bundles with open connections at once (least recently used closes first).")
    var maxOpenBundles: Int = 64

    @Option(name: .long, help: "Seconds after which an unused bundle's connections close.")
    var bundleIdleTimeout: Double = 300

    @Flag(inversion: .prefixedNo, help: "Predict and preload the tiles clients will ask for next.")
    var prefetch = true

    @Option(
        name: .long,
        help: "Request header naming the client for prefetch (default: a paid tile's login session, else the remote address).")
    var prefetchClientHeader: String?

    @Option(
        name: .long,
        help:
            """
            Bearer token of the /admin routes, at least 24 characters; prefer env TRAILMAP_ADMIN_TOKEN (a command line is visible to other \
            local users). Without one the routes are off.
            """
    )
    var adminToken: String?

    @Option(name: .long, help: "Share of the memory limit at which pressure is 'warning'.")
    var pressureWarning: Double = 0.8

    @Option(name: .long, help: "Share of the memory limit at which pressure is 'critical'.")
    var pressureCritical: Double = 0.9

    @Option(name: .long, help: "Share of the budget the cache shrinks to under pressure.")
    var pressureShrink: Double = 0.5

    @Option(name: .long, help: "cgroup v2 folder to read memory from (default: this process's own cgroup).")
    var cgroup: String?

    @OptionGroup(title: "Store") var store: StoreOptions

    @OptionGroup var global: GlobalOptions

    func validate() throws {
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: tiles, isDirectory: &isDir), isDir.boolValue else {
            throw CommandFailure("--tiles \(tiles) is not a folder")
        }
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0...65535") }
        if let publicURL, PublicOrigin.normalized(publicURL) == nil {
            throw ValidationError(
                "--public-url must be an http or https origin such as https://maps.example.com (an optional path, no query or fragment)")
        }
        for name in publicTilesets
        where name.isEmpty || name.hasPrefix(".") || name.utf8.count > 255
            || !name.unicodeScalars.allSatisfy({
                $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "-_.".unicodeScalars.contains($0))
            })
        {
            throw ValidationError(
                """
                --public-tilesets: '\(name)' is not a tileset name (a bundle's file name without extension: letters, digits, '-', '_' and \
                '.')
                """
            )
        }
        if let baseTileset, baseTileset.isEmpty || baseTileset.hasPrefix(".") || baseTileset.utf8.count > 255 || baseTileset.contains("/") {
            throw ValidationError(
                "--base-tileset: '\(baseTileset.prefix(100))' is not a tileset name (a bundle's file name without extension)")
        }
        guard (0...23).contains(previewZooms) else { throw ValidationError("--preview-zooms must be 0...23") }
        guard grantLifetime.isFinite, (0...3600).contains(grantLifetime) else {
            throw ValidationError("--grant-lifetime must be 0...3600 seconds")
        }
        guard (1...1_000_000).contains(maxConnections) else { throw ValidationError("--max-connections must be 1...1000000") }
        if let tileLoops, !(0...256).contains(tileLoops) { throw ValidationError("--tile-loops must be 0...256") }
        guard reloadInterval > 0, reloadInterval <= 3600 else { throw ValidationError("--reload-interval must be in (0, 3600] seconds") }
        guard requestTimeout > 0, requestTimeout <= 3600 else { throw ValidationError("--request-timeout must be in (0, 3600] seconds") }
        guard idleTimeout > 0, idleTimeout <= 86_400 else { throw ValidationError("--idle-timeout must be in (0, 86400] seconds") }
        if let token = adminToken ?? ProcessInfo.processInfo.environment["TRAILMAP_ADMIN_TOKEN"], token.count < 24 {
            throw ValidationError("the admin token must have at least 24 characters (it is the only thing guarding /admin)")
        }
        guard cacheBudget.bytes >= 4 << 20 else { throw ValidationError("--cache-budget must be at least 4MB") }
        guard maxOpenBundles >= 1 else { throw ValidationError("--max-open-bundles must be at least 1") }
        guard bundleIdleTimeout > 0 else { throw ValidationError("--bundle-idle-timeout must be positive") }
        guard 0 < pressureWarning, pressureWarning <= pressureCritical, pressureCritical <= 1 else {
            throw ValidationError("pressure thresholds must satisfy 0 < --pressure-warning <= --pressure-critical <= 1")
        }
        guard (0...1).contains(pressureShrink) else { throw ValidationError("--pressure-shrink must be between 0 and 1") }
    }

    func run() async throws {
        OneMallocArena.reexecIfNeeded()
        let logger = global.logger("trailmap.serve")
        let registry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
        var config = ServerConfiguration(tilesDirectory: tiles)
        config.host = host
        config.port = port
        config.publicURL = publicURL.flatMap(PublicOrigin.normalized)
        config.maxConnections = maxConnections
        config.tileLoops = tileLoops ?? ServerConfiguration.defaultTileLoops
        config.emptyTiles = emptyTiles
        config.leafletDirectory = leafletDir
        if !config.leafletInstalled {
            logger.warning(
                """
                \(leafletDir) holds no leaflet.js, so the viewer and the store page cannot draw maps: install Debian's libjs-leaflet \
                or give its folder with --leaflet-dir
                """)
        }
        config.baseTileset = baseTileset
        config.previewZooms = previewZooms
        config.grantLifetime = .milliseconds(Int64((grantLifetime * 1000).rounded()))
        config.reloadInterval = .milliseconds(Int(reloadInterval * 1000))
        config.requestTimeout = .milliseconds(Int(requestTimeout * 1000))
        config.idleTimeout = .milliseconds(Int(idleTimeout * 1000))
        config.cache.budget = cacheBudget.bytes
        config.sendfileBudget = sendfileBudget?.bytes ?? ServerConfiguration.defaultSendfileBudget(cacheBudget: cacheBudget.bytes)
        config.cache.policy = cachePolicy
        config.cache.maxOpenBundles = maxOpenBundles
        config.cache.bundleIdleTimeout = .milliseconds(Int(bundleIdleTimeout * 1000))
        config.cache.prefetch = prefetch
        config.cache.clientHeader = prefetchClientHeader
        config.cache.pressure = PressureSettings(cgroupDirectory: cgroup ?? MemoryReading.ownCgroup())
        config.cache.pressure.warningUsage = pressureWarning
        config.cache.pressure.criticalUsage = pressureCritical
        config.cache.pressure.warningFraction = pressureShrink
        config.adminToken = adminToken ?? ProcessInfo.processInfo.environment["TRAILMAP_ADMIN_TOKEN"]
        if adminToken != nil {
            logger.warning("--admin-token is visible to every local user in the process list; pass it as TRAILMAP_ADMIN_TOKEN instead")
        }
        let quiet = global.quiet
        var storeSettings = try await store.settings(logger: logger)
        storeSettings?.publicTilesets = Set(publicTilesets)
        storeSettings?.patches = PatchStore(root: patches ?? PatchStoreLocation.defaultRoot(tiles: tiles))
        let app = TileServer.makeApplication(
            config: config, metrics: ServerMetrics(registry: registry), logger: logger,
            store: storeSettings
        ) { bound in
            guard !quiet else { return }
            let shown = host == "0.0.0.0" ? "127.0.0.1" : host
            FileHandle.standardOutput.write(Data("TrailMap is serving \(tiles) at http://\(shown):\(bound)/ (Ctrl-C to stop)\n".utf8))
        }
        do {
            try await app.runService()
        } catch let error as IOError where error.errnoCode == EADDRINUSE {
            throw CommandFailure(
                "Cannot serve at \(host):\(port): the address is in use (another server is listening there). "
                    + "Stop it, or choose another --port or --host.")
        }
    }
}
