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
        return Application(
            responder: responder,
            server: .tiles(responder),
            configuration: .init(address: .hostname(config.host, port: config.port), serverName: "trailmap", backlog: config.backlog),
            services: [ReloadService(registry: registry, interval: config.reloadInterval) as any Service]
                + (responder.store.map { [AreaSweepService(areas: $0.areas) as any Service] } ?? []),
            onServerRunning: { channel in await onRunning(channel.localAddress?.port ?? config.port) },
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
