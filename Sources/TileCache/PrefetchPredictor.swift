import NIOCore
import Synchronization
import TileGeometry

/// Predicts the next tiles a client will ask for, per session (a client key: remote address or
/// a header), from the tiles it asked for.
///
/// Requests of a session less than `burstGap` apart form one burst (one viewport being drawn).
/// The predictor learns the viewport's size in tiles from the largest bursts and follows the
/// viewport: a request outside it moves it the least that takes the tile in. From each burst's
/// move it keeps a velocity and an acceleration (tiles per step), and predicts the ring of tiles
/// the viewport moves into at the next step, nearest the predicted centre first. A zoom step
/// predicts the next zoom's viewport in the same direction (after a zoom in, the children under
/// the viewport's centre), centre first. Until a session has moved, popular places seed it: the
/// ring on the side of its viewport whose next viewport drew the most requests across sessions
/// (a decayed count per 4x4-tile neighbourhood) is predicted. Each session's predictions are tracked: when fewer than
/// `minUsedShare` of its recent ones were asked for, it stops getting predictions (they are
/// still worked out and scored, and resume once they would be used again). A session most of
/// whose recent requests were jumps (`Track.scatteredShare`) is not one viewer, whatever its share
/// (a load generator over a small map hits its predictions by chance): none are worked out for
/// it until it settles.
/// A session that asks for its whole viewport again at each step (a viewer without a cache of
/// its own) gets chances instead of the ring (`StepChances`, with `chanceLifetime`): at each
/// step, each tile of its next step's possible viewports the chance that the session asks for
/// it, which the cache sums over sessions and keeps and loads tiles by (`Prediction.chances`).
/// At most `maxClients` sessions are tracked, the longest silent forgotten first.
///
/// Given a cache that counts requests (`TileCache.countsRequests`), the predictor reads popular
/// places from the cache's counts (each request is counted once, by the cache); otherwise it
/// counts the requests it observes itself.
public final class PrefetchPredictor: Sendable {
    public let maxClients: Int
    /// Requests of one session at most this many milliseconds apart belong to one viewport.
    public let burstGap: UInt64
    /// Below this share of used predictions (over recent ones) a session gets none.
    public let minUsedShare: Double
    /// The cache whose counts of requests per neighbourhood this predictor reads (nil: its own).
    public let places: TileCache?
    /// For a session that asks for its viewport again, the chances its step gives the tiles of
    /// its next step end after this many milliseconds without a step (nil: no chances are given,
    /// and such a session's predictions are the ring ahead and the rest of its next viewport).
    public let chanceLifetime: UInt64?
    private let state = Mutex<State>(State())

    struct State {
        var clients: [String: Track] = [:]
        /// Requests per neighbourhood, when not read from a cache.
        var popularity = Popularity()
        /// Trails per bundle, which sessions moving along them follow.
        var paths: [UInt32: TrailPaths] = [:]
        var tick = 0
        /// The viewport size the last session learned, a new session's first guess.
        var typical = (width: 0, height: 0)
        /// How often sessions zoom in and out per step lately (a new session's prior).
        var zooming = ZoomHabit()
        /// How often sessions ask for their viewport again lately (a new session's prior).
        var repeating = RepeatHabit()
        /// What the chances of sessions that ask for their viewport again are worked out from.
        var chances = ChanceState()
    }

    /// How often the steps of sessions that ask for their viewport again pan, and keep their
    /// heading; and the steps that gave chances, oldest first, to end those of sessions gone silent.
    struct ChanceState {
        var pans = PanHabit()
        var steps = CircularBuffer<(client: String, time: UInt64)>()
    }

    /// - Parameters:
    ///   - places: a cache whose counts of requests to read as popular places (used only when it
    ///     counts requests, `TileCache.countsRequests`); nil to count observed requests here.
    ///   - chanceLifetime: see `chanceLifetime`.
    public init(
        maxClients: Int = 10_000, burstGap: UInt64 = PrefetchPredictor.defaultBurstGap, minUsedShare: Double = 0.04,
        places: TileCache? = nil,
        chanceLifetime: UInt64? = 1_000
    ) {
        self.chanceLifetime = chanceLifetime
        self.maxClients = max(1, maxClients)
        self.burstGap = burstGap
        self.minUsedShare = minUsedShare
        self.places = places?.countsRequests == true ? places : nil
    }

    /// The default `burstGap`: a viewer draws its viewport's tiles closer together than this.
    public static var defaultBurstGap: UInt64 { 150 }

    /// Milliseconds on a monotonic clock (`NIODeadline`'s, which a server's loops read already),
    /// the default `now` of `observe`.
    public static func milliseconds() -> UInt64 { NIODeadline.now().uptimeNanoseconds / 1_000_000 }

    /// What a request predicts.
    public struct Prediction: Sendable {
        /// The tiles predicted to follow, most likely first (possibly none).
        public var tiles: [TileKey]
        /// Tiles of the next zoom levels under the viewport, for a session that zooms often
        /// (`ZoomHabit.share` of its steps or more), likelier zoom first: loaded after `tiles`,
        /// and not scored (a zoom comes at a few steps in ten, a pan's ring at
        /// almost every step); possibly none.
        public var zoomTiles: [TileKey] = []
        /// How the chance changed that a session asks for each key at its next step (summed
        /// over sessions by the cache): a session that asks for its viewport again gives each
        /// tile of its next step's possible viewports a chance at each step, and takes it back
        /// at its next step or when it goes silent (possibly another session's).
        public var chances: [(key: TileKey, change: Double)] = []

        public init(tiles: [TileKey], zoomTiles: [TileKey] = [], chances: [(key: TileKey, change: Double)] = []) {
            self.tiles = tiles
            self.zoomTiles = zoomTiles
            self.chances = chances
        }
    }

    /// Records a request at `now` (milliseconds) and returns the tiles predicted to follow, most
    /// likely first (possibly none).
    public func observe(client: String, key: TileKey, now: UInt64 = PrefetchPredictor.milliseconds()) -> [TileKey] {
        predict(client: client, key: key, now: now).tiles
    }

    /// Records a request at `now` (milliseconds) and returns what it predicts.
    public func predict(client: String, key: TileKey, now: UInt64 = PrefetchPredictor.milliseconds()) -> Prediction {
        let places = places
        return state.withLock { s in
            s.tick += 1
            if places == nil { s.popularity.record(key, tick: s.tick) }
            var changes = [(key: TileKey, change: Double)]()
            if s.clients.count >= maxClients, s.clients[client] == nil { Self.forgetOldest(&s, changes: &changes) }
            if let lifetime = chanceLifetime { Self.endSilent(&s, now: now, lifetime: lifetime, changes: &changes) }
            let typical = s.typical
            // The track is changed where it is stored (one hash of the client; a copy would
            // duplicate its pending set whenever predictions are issued).
            return Self.follow(
                &s.clients[
                    client,
                    default: Track(
                        key: key, now: now, typical: typical, zooming: s.zooming, repeating: s.repeating)],
                client: client, key: key, now: now, tick: s.tick, gap: burstGap, minUsedShare: minUsedShare,
                popularity: PlaceCounts(own: s.popularity, cache: places),
                paths: s.paths.isEmpty ? nil : s.paths[key.bundle], typical: &s.typical, zooming: &s.zooming,
                repeating: &s.repeating, chancing: chanceLifetime != nil, chances: &s.chances,
                changes: &changes)
        }
    }

    /// Ends the chances of sessions without a step for `lifetime` milliseconds.
    private static func endSilent(_ s: inout State, now: UInt64, lifetime: UInt64, changes: inout [(key: TileKey, change: Double)]) {
        while let first = s.chances.steps.first, first.time &+ lifetime < now {
            s.chances.steps.removeFirst()
            guard let track = s.clients[first.client], track.chances.centre != nil, track.chances.stepTime == first.time else { continue }
            s.clients[first.client]!.chances.end(changes: &changes)
        }
    }

    private static func follow(
        _ track: inout Track, client: String, key: TileKey, now: UInt64, tick: Int, gap: UInt64, minUsedShare: Double,
        popularity: PlaceCounts, paths: TrailPaths?, typical: inout (width: Int, height: Int), zooming: inout ZoomHabit,
        repeating: inout RepeatHabit, chancing: Bool, chances: inout ChanceState,
        changes: inout [(key: TileKey, change: Double)]
    ) -> Prediction {
        let step = track.observe(key, now: now, gap: gap, popularity: popularity, paths: paths)
        if track.width > 0 { typical = (track.width, track.height) }
        zooming.learn(from: track.zooms)
        repeating.learn(from: track.repeating)
        track.tick = tick
        let repeats = track.repeats
        if chancing, repeats, !track.scattered {
            // Chances: at each step, those of the next step's tiles, which are handed out
            // likeliest first.
            var tiles = [TileKey]()
            if track.stepped, track.width > 0 {
                let ordered = track.chances.step(
                    centre: key, now: now, width: track.width, height: track.height, habit: &chances.pans, changes: &changes)
                chances.steps.append((client, now))
                // Scored once each (a tile still pending is not counted again), but all handed out:
                // a tile the cache did not take at one step may be worth taking at the next.
                _ = track.issue(ordered.map(\.tile), minUsedShare: minUsedShare)
                if track.active { tiles = ordered }
            }
            return Prediction(tiles: tiles, chances: changes)
        }
        if chancing, track.chances.centre != nil { track.chances.end(changes: &changes) }
        let tiles = track.issue(step.tiles, minUsedShare: minUsedShare)
        let bundle = track.bundle
        let zoomTiles = track.active ? step.zoomTiles.map { TileKey(bundle: bundle, tile: $0) } : []
        return Prediction(tiles: tiles, zoomTiles: zoomTiles, chances: changes)
    }

    /// Sets (or with nil, forgets) the trails of a bundle: a session panning along one of them is
    /// predicted along the trail's course instead of straight ahead.
    public func setTrailPaths(_ paths: TrailPaths?, bundle: UInt32) {
        state.withLock { $0.paths[bundle] = paths }
    }

    /// Clients tracked now.
    public var clientCount: Int { state.withLock { $0.clients.count } }

    /// How many sessions are tracked, how many of them get predictions now (their predictions
    /// are used, and they are not scattered), and how many ask for their viewport again.
    public struct SessionCounts: Sendable, Equatable, Encodable {
        public var tracked = 0
        public var predicted = 0
        public var repeating = 0

        public init(tracked: Int = 0, predicted: Int = 0, repeating: Int = 0) {
            self.tracked = tracked
            self.predicted = predicted
            self.repeating = repeating
        }
    }

    /// The sessions now, for the metrics (one pass over the tracked sessions).
    public var sessions: SessionCounts {
        state.withLock { s in
            var counts = SessionCounts(tracked: s.clients.count)
            for track in s.clients.values {
                if track.active, !track.scattered { counts.predicted += 1 }
                if track.repeats { counts.repeating += 1 }
            }
            return counts
        }
    }

    /// A session's predictions asked for later and predictions made (decayed: recent ones weigh
    /// most), whether it gets predictions now, whether it jumps too often to be one viewer (none
    /// are then worked out for it), and whether it asks for its viewport again at each step; nil
    /// for an unknown client.
    public func usefulness(client: String) -> (used: Double, issued: Double, active: Bool, scattered: Bool, repeats: Bool)? {
        state.withLock { s in
            s.clients[client].map { (used: $0.used, issued: $0.issued, active: $0.active, scattered: $0.scattered, repeats: $0.repeats) }
        }
    }

    private static func forgetOldest(_ s: inout State, changes: inout [(key: TileKey, change: Double)]) {
        // Forget the oldest eighth in one pass, so this stays cheap on average: the tick of the
        // n/8-th oldest by selection (O(n)), not by sorting every tick.
        var ticks = s.clients.values.map(\.tick)
        let cut = selectRank(s.clients.count / 8, in: &ticks)
        for (client, track) in s.clients where track.tick <= cut && track.chances.centre != nil {
            s.clients[client]!.chances.end(changes: &changes)
        }
        s.clients = s.clients.filter { $0.value.tick > cut }
    }
}

/// Where a predictor reads popular places: the cache's counts when it shares them, else its own.
struct PlaceCounts {
    var own: Popularity
    var cache: TileCache?

    /// The decayed requests of all sessions in the neighbourhoods of tiles at zoom z of a bundle,
    /// in the order given. Asked only when a session is seeded (its first whole viewport), with
    /// the cache's lock taken once (the cache never takes the predictor's).
    func counts(bundle: UInt32, z: Int, tiles: [(x: Int, y: Int)]) -> [Double] {
        if let cache { return cache.popularity(bundle: bundle, z: z, tiles: tiles) }
        return tiles.map { own.count(bundle: bundle, z: z, x: $0.x, y: $0.y) }
    }
}
