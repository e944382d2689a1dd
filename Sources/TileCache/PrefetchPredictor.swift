import Synchronization
import TileGeometry

/// Predicts the next tiles a client will ask for from the tiles it asked for: neighbours ahead in
/// the direction it pans (ahead of a running average of its positions, so the order in which a
/// viewer fetches one viewport does not matter), the four children when it zooms in and the
/// parent when it zooms out. Clients are keyed by a string (remote address or a header); at most
/// `maxClients` are tracked, the longest silent forgotten first.
public final class PrefetchPredictor: Sendable {
    public let maxClients: Int
    private let state = Mutex<State>(State())

    struct Track {
        var bundle: UInt32
        var z: Int
        var cx: Double
        var cy: Double
        var tick: Int
    }

    struct State {
        var clients: [String: Track] = [:]
        var tick = 0
    }

    public init(maxClients: Int = 10_000) {
        self.maxClients = max(1, maxClients)
    }

    /// Records a request and returns the tiles predicted to follow (possibly none).
    public func observe(client: String, key: TileKey) -> [TileKey] {
        state.withLock { s in
            s.tick += 1
            let t = key.tile
            let x = Double(t.x), y = Double(t.y)
            guard var track = s.clients[client], track.bundle == key.bundle else {
                Self.remember(&s, client, Track(bundle: key.bundle, z: t.z, cx: x, cy: y, tick: s.tick), max: maxClients)
                return []
            }
            var out = [TileKey]()
            if t.z == track.z {
                let dx = x - track.cx, dy = y - track.cy
                let sx = abs(dx) >= 0.75 ? (dx > 0 ? 1 : -1) : 0
                let sy = abs(dy) >= 0.75 ? (dy > 0 ? 1 : -1) : 0
                if sx != 0 || sy != 0, let n = TileID(z: t.z, x: t.x + sx, y: t.y + sy) {
                    out.append(TileKey(bundle: key.bundle, tile: n))
                }
                track.cx = 0.8 * track.cx + 0.2 * x
                track.cy = 0.8 * track.cy + 0.2 * y
            } else {
                if t.z > track.z {
                    out = t.children.map { TileKey(bundle: key.bundle, tile: $0) }
                } else if let p = t.parent {
                    out = [TileKey(bundle: key.bundle, tile: p)]
                }
                track.z = t.z
                track.cx = x
                track.cy = y
            }
            track.tick = s.tick
            s.clients[client] = track
            return out
        }
    }

    /// Clients tracked now.
    public var clientCount: Int { state.withLock { $0.clients.count } }

    private static func remember(_ s: inout State, _ client: String, _ track: Track, max: Int) {
        if s.clients[client] == nil, s.clients.count >= max {
            // Forget the oldest eighth in one pass, so this stays cheap on average.
            let cut = s.clients.values.map(\.tick).sorted()[s.clients.count / 8]
            s.clients = s.clients.filter { $0.value.tick > cut }
        }
        s.clients[client] = track
    }
}
