import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import ServiceLifecycle
import TileCache

/// Builds the tile server application.
public enum TileServer {
    /// The application serving `config.tilesDirectory`; the folder is scanned once now and then
    /// every `config.reloadInterval`. `onRunning` gets the bound TCP port (useful with port 0)
    /// once requests to it are answered: the tile loops' port when `config.tileLoops` > 0 (they
    /// start once Hummingbird listens on its Unix socket), else Hummingbird's.
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
        let port = PortOwner(config: config, responder: responder, logger: logger, onRunning: onRunning)
        return Application(
            responder: responder,
            server: port.server,
            configuration: .init(address: port.address, serverName: "trailmap", backlog: config.backlog),
            services: services + port.services,
            onServerRunning: port.onServerRunning,
            logger: logger
        )
    }
}

/// Who owns the TCP port: the one difference between the two ways `TileServer` runs.
/// Hummingbird (tile loops off), or the tile loops (`RawTileServer`), with Hummingbird on a
/// private Unix socket getting the connections they hand on. Either way `onRunning` gets the
/// TCP port once it is bound.
private struct PortOwner {
    let server: HTTPServerBuilder
    let address: BindAddress
    /// Services besides Hummingbird's server.
    let services: [any Service]
    let onServerRunning: @Sendable (any Channel) async -> Void

    init(
        config: ServerConfiguration, responder: TileResponder, logger: Logger, onRunning: @escaping @Sendable (Int) async -> Void
    ) {
        guard config.tileLoops > 0 else {
            server = .tiles(responder)
            address = .hostname(config.host, port: config.port)
            services = []
            onServerRunning = { channel in await onRunning(channel.localAddress?.port ?? config.port) }
            return
        }
        let limit = ConnectionLimit(max: config.maxConnections)
        let raw = RawTileServer(responder: responder, limit: limit, logger: logger)
        raw.prepareSocketFolder()
        server = .tiles(responder, limit: limit, built: { raw.childBuilt($0) })
        address = .unixDomainSocket(path: raw.hummingbirdSocket)
        services = [
            RawTileServer.Loops(
                server: raw, host: config.host, port: config.port, backlog: config.backlog, threads: config.tileLoops,
                onRunning: onRunning)
        ]
        onServerRunning = { _ in raw.hummingbirdStarted() }
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
