import Foundation
import TileCache

/// How the tile server runs.
public struct ServerConfiguration: Sendable {
    /// What to answer for a tile inside a tileset's range that the bundle lacks.
    public enum EmptyTiles: String, Sendable, CaseIterable {
        /// 404 with a JSON error.
        case notFound = "404"
        /// A fully transparent PNG of the tileset's tile size.
        case transparent
    }

    public var tilesDirectory: String
    public var host: String = "127.0.0.1"
    public var port: Int = 8080
    /// The origin clients reach the server at (`https://maps.example.com`, no trailing slash),
    /// written into TileJSON, WMTS capabilities and tile-token URLs. nil: those URLs are relative
    /// to the server (WMTS, whose clients need absolute URLs, uses the listen address). The
    /// request's Host header is never echoed, so a cache that ignores Host cannot be poisoned.
    public var publicURL: String?
    public var emptyTiles: EmptyTiles = .notFound
    /// Folder holding Debian's libjs-leaflet (`leaflet.js`, `leaflet.css`, `images/`).
    public var leafletDirectory: String = "/usr/share/javascript/leaflet"
    /// Whether `leafletDirectory` holds Leaflet's script (read from the file system at each call).
    public var leafletInstalled: Bool { AssetStore.holdsLeaflet(leafletDirectory) }
    /// How often the tiles folder is rescanned for added, removed and replaced bundles.
    public var reloadInterval: Duration = .seconds(1)
    /// Listen queue length: bursts of new connections wait here instead of being dropped
    /// (256, Hummingbird's default, overflowed with 1,000 clients connecting at once).
    public var backlog: Int = 4096
    /// Most connections open at once; one past it is answered 503 and closed when accepted.
    public var maxConnections: Int = 10_000
    /// `Cache-Control` max-age of tiles, in seconds.
    public var tileMaxAge: Int = 3600
    /// The tile cache: byte budget, policy, bundles, memory pressure, prefetch.
    public var cache = CacheConfiguration()
    /// Time from a request's first byte to its last; a slower request's connection is closed.
    public var requestTimeout: Duration = .seconds(30)
    /// A connection with nothing read or written for this long is closed.
    public var idleTimeout: Duration = .seconds(60)
    /// Bearer token of the `/admin/` routes; nil turns them off (404).
    public var adminToken: String?
    /// How many of a paid tileset's lowest zoom levels anyone may read, as its preview (the store's
    /// picture of what is for sale); never its top zoom. 0 (the library's default): no preview;
    /// `trailmap serve` opens `PreviewZooms.defaultLevels` unless told otherwise.
    public var previewZooms: Int = 0
    /// How long a paid tile's credential, once the catalog accepted it, opens that product's tiles
    /// without reading the catalog again (`TileGrants`): what a refund or logout made through
    /// another replica may take to reach this one. Zero (the library's default) keeps none;
    /// `trailmap serve` keeps them for `defaultGrantLifetime`.
    public var grantLifetime: Duration = .zero

    /// The grant lifetime `trailmap serve` uses by default.
    public static let defaultGrantLifetime: Duration = .seconds(2)
    /// The free tileset drawn under every map of the pages; nil: the free one with the lowest minzoom.
    public var baseTileset: String?
    /// Threads of `RawTileServer`, the tile socket layer in front of Hummingbird (plain epoll:
    /// free tiles answered there, every other connection handed to Hummingbird). 0 (the library's
    /// default): Hummingbird owns the port and `TileWire` answers tiles in its pipeline;
    /// `trailmap serve` runs `defaultTileLoops` unless told otherwise.
    public var tileLoops: Int = 0

    /// Bytes the tile loops may hold as sealed memory-file copies of large tiles asked for again,
    /// which they send with `sendfile` (`TileFiles`; shared evenly among the loops). They are shared
    /// memory beside the cache's budget, each keeping its cached tile alive while it lives. 0 (the
    /// library's default): none; `trailmap serve` keeps `defaultSendfileBudget(cacheBudget:)`.
    public var sendfileBudget: Int = 0

    /// The `sendfileBudget` `trailmap serve` keeps by default: a sixteenth of the cache's budget,
    /// at most 64 MB.
    public static func defaultSendfileBudget(cacheBudget: Int) -> Int { min(cacheBudget / 16, 64 << 20) }

    /// The tile loops `trailmap serve` runs by default: one per processor this process may use.
    public static var defaultTileLoops: Int { max(1, ProcessInfo.processInfo.activeProcessorCount) }

    public init(tilesDirectory: String) {
        self.tilesDirectory = tilesDirectory
    }
}
