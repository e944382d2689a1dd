import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import TileCache

/// Builds the tile server application.
public enum TileServer {
    /// The application serving `config.tilesDirectory`; the folder is scanned once now and then
    /// every `config.reloadInterval`. `onRunning` gets the bound port (useful with port 0).
    public static func makeApplication(
        config: ServerConfiguration,
        metrics: ServerMetrics = ServerMetrics(),
        logger: Logger = Logger(label: "trailmap.serve"),
        store: StoreSettings? = nil,
        onRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) -> Application<TileResponder> {
        let registry = TilesetRegistry(directory: config.tilesDirectory, logger: logger, cache: CacheSystem(config.cache))
        registry.refresh()
        let responder = TileResponder(registry: registry, config: config, metrics: metrics, logger: logger, store: store)
        let services: [any Service] =
            [ReloadService(registry: registry, interval: config.reloadInterval) as any Service]
            + (responder.store.map { [AreaSweepService(areas: $0.areas) as any Service] } ?? [])
        guard config.tileLoops > 0 else {
            return Application(
                responder: responder,
                server: .tiles(responder),
                configuration: .init(address: .hostname(config.host, port: config.port), serverName: "trailmap", backlog: config.backlog),
                services: services,
                onServerRunning: { channel in await onRunning(channel.localAddress?.port ?? config.port) },
                logger: logger
            )
        }
        // The tile loops own the port; Hummingbird listens on a private Unix socket and gets the
        // connections the loops hand on.
        let limit = ConnectionLimit(max: config.maxConnections)
        let raw = RawTileServer(responder: responder, limit: limit, logger: logger)
        raw.prepareSocketFolder()
        let loops = RawTileServer.Loops(
            server: raw, host: config.host, port: config.port, backlog: config.backlog,
            threads: config.tileLoops, onRunning: onRunning)
        return Application(
            responder: responder,
            server: .tiles(responder, limit: limit, built: { raw.childBuilt($0) }),
            configuration: .init(address: .unixDomainSocket(path: raw.hummingbirdSocket), serverName: "trailmap", backlog: config.backlog),
            services: services + [loops],
            onServerRunning: { _ in raw.hummingbirdStarted() },
            logger: logger
        )
    }
}

/// Rescans the tiles folder periodically until shutdown.
struct ReloadService: Service {
    let registry: TilesetRegistry
    let interval: Duration

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do { try await Task.sleep(for: interval) } catch { return }
                registry.refresh()
            }
        }
    }
}
