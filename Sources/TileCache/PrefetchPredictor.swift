import Dispatch
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
/// still worked out and scored, and resume once they would be used again).
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
    /// At most this many tiles a session left behind are handed out per request
    /// (`Prediction.released`); 0: none are, and a repeating session's tile is always expected.
    public let releasesPerRequest: Int
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
    }

    /// - Parameters:
    ///   - places: a cache whose counts of requests to read as popular places (used only when it
    ///     counts requests, `TileCache.countsRequests`); nil to count observed requests here.
    ///   - releasesPerRequest: the most tiles left behind by a session that asks for its viewport
    ///     again that one request hands out as no longer expected (the rest wait for its next
    ///     requests); 0 for none, the tile asked for then always being expected again.
    public init(
        maxClients: Int = 10_000, burstGap: UInt64 = 150, minUsedShare: Double = 0.15, places: TileCache? = nil,
        releasesPerRequest: Int = 2
    ) {
        self.maxClients = max(1, maxClients)
        self.burstGap = burstGap
        self.minUsedShare = minUsedShare
        self.places = places?.countsRequests == true ? places : nil
        self.releasesPerRequest = max(0, releasesPerRequest)
    }

    /// Milliseconds on a monotonic clock, the default `now` of `observe`.
    public static func milliseconds() -> UInt64 { DispatchTime.now().uptimeNanoseconds / 1_000_000 }

    /// What a request predicts.
    public struct Prediction: Sendable {
        /// The tiles predicted to follow, most likely first (possibly none).
        public var tiles: [TileKey]
        /// Whether the session asks for its whole viewport again at each step (a viewer without
        /// its own cache): the predicted tiles it holds already are expected to be read again.
        public var repeatsViewport: Bool
        /// For a session that asks for its viewport again: whether the tile it asked for lies in
        /// the viewport predicted for its next step (true while no next step is predicted).
        public var keyAhead = true
        /// Tiles a session that asks for its viewport again is no longer expected to ask for at
        /// its next step (its viewport moved or zoomed away from them), at most
        /// `releasesPerRequest` of them (those left wait for the session's next requests);
        /// possibly none.
        public var released: [TileKey] = []
        /// Tiles of the next zoom levels under the viewport, for a session that zooms often
        /// (`ZoomHabit.share` of its steps or more), likelier zoom first: loaded after `tiles`,
        /// never expected, and not scored (a zoom comes at a few steps in ten, a pan's ring at
        /// almost every step); possibly none.
        public var zoomTiles: [TileKey] = []

        public init(
            tiles: [TileKey], repeatsViewport: Bool, keyAhead: Bool = true, released: [TileKey] = [], zoomTiles: [TileKey] = []
        ) {
            self.tiles = tiles
            self.repeatsViewport = repeatsViewport
            self.keyAhead = keyAhead
            self.released = released
            self.zoomTiles = zoomTiles
        }

        /// The tiles expected after a request of `key`: the predictions, and for a session that
        /// asks for its viewport again, first the tile it asked for when it lies in the viewport
        /// predicted next (it comes again at the next step unless the session zooms or leaves).
        public func expected(after key: TileKey) -> [TileKey] {
            repeatsViewport && keyAhead ? [key] + tiles : tiles
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
            if s.clients.count >= maxClients, s.clients[client] == nil { Self.forgetOldest(&s) }
            let typical = s.typical
            // The track is changed where it is stored (one hash of the client; a copy would
            // duplicate its pending set whenever predictions are issued).
            return Self.follow(
                &s.clients[
                    client,
                    default: Track(key: key, now: now, typical: typical, releasing: releasesPerRequest > 0, zooming: s.zooming)],
                key: key, now: now, tick: s.tick, gap: burstGap, minUsedShare: minUsedShare,
                popularity: PlaceCounts(own: s.popularity, cache: places),
                paths: s.paths.isEmpty ? nil : s.paths[key.bundle], typical: &s.typical, zooming: &s.zooming,
                releases: releasesPerRequest)
        }
    }

    private static func follow(
        _ track: inout Track, key: TileKey, now: UInt64, tick: Int, gap: UInt64, minUsedShare: Double,
        popularity: PlaceCounts, paths: TrailPaths?, typical: inout (width: Int, height: Int), zooming: inout ZoomHabit,
        releases: Int
    ) -> Prediction {
        let predicted = track.observe(key, now: now, gap: gap, popularity: popularity, paths: paths)
        if track.width > 0 { typical = (track.width, track.height) }
        zooming.learn(from: track.zooms)
        track.tick = tick
        let repeats = track.repeats
        var released = [TileKey]()
        if !track.releases.isEmpty { track.takeReleases(releases, into: &released) }
        let tiles = track.issue(predicted, minUsedShare: minUsedShare)
        let bundle = track.bundle
        let zoomTiles = track.active ? track.zoomAhead.map { TileKey(bundle: bundle, tile: $0) } : []
        track.zoomAhead = []
        return Prediction(
            tiles: tiles, repeatsViewport: repeats, keyAhead: releases == 0 || !repeats || track.isAhead(key), released: released,
            zoomTiles: zoomTiles)
    }

    /// Sets (or with nil, forgets) the trails of a bundle: a session panning along one of them is
    /// predicted along the trail's course instead of straight ahead.
    public func setTrailPaths(_ paths: TrailPaths?, bundle: UInt32) {
        state.withLock { $0.paths[bundle] = paths }
    }

    /// Clients tracked now.
    public var clientCount: Int { state.withLock { $0.clients.count } }

    /// A session's predictions asked for later and predictions made (decayed: recent ones weigh
    /// most), and whether it gets predictions now; nil for an unknown client.
    public func usefulness(client: String) -> (used: Double, issued: Double, active: Bool)? {
        state.withLock { s in s.clients[client].map { (used: $0.used, issued: $0.issued, active: $0.active) } }
    }

    private static func forgetOldest(_ s: inout State) {
        // Forget the oldest eighth in one pass, so this stays cheap on average: the tick of the
        // n/8-th oldest by selection (O(n)), not by sorting every tick.
        var ticks = s.clients.values.map(\.tick)
        let cut = selectRank(s.clients.count / 8, in: &ticks)
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

/// One session as the predictor follows it.
struct Track {
    var bundle: UInt32
    var z: Int
    /// The viewport as followed (nil until one burst has shown its size).
    var viewport: TileBox?
    /// Learned viewport size in tiles (0 until a burst ends).
    var width = 0
    var height = 0
    var burst: TileBox
    var burstZ: Int
    /// The viewport when the burst began, and how many of the session's requests fell in the
    /// previous step's viewport (asked for again) or outside it (decayed counts).
    var previous: TileBox?
    var repeated = 0.0
    var fresh = 0.0
    /// Whether the session asks for its whole viewport again at each step (a viewer without
    /// its own cache): its predictions then cover the whole next viewport, not only the ring.
    /// Only requests of a tile other than the one before count as evidence: a client asking for
    /// one tile again and again is not drawing a viewport.
    var repeats: Bool { repeated + fresh >= 8 && repeated > fresh }
    /// The tile asked for last.
    var lastKey: TileKey
    /// The viewport predicted for the next step (at zoom `z`), nil when none is.
    var ahead: TileBox?
    /// Whether tiles left behind are queued (`releases`), for a session that asks for its
    /// viewport again.
    var releasing: Bool
    /// Tiles of the viewport left behind by the session's moves, zooms or jumps, not yet handed out.
    var releases = ReleaseQueue()
    var lastTime: UInt64
    /// The viewport's move during this burst, and during the previous one.
    var moveX = 0, moveY = 0
    var lastMoveX = 0, lastMoveY = 0
    /// Whether the session has moved (panned or zoomed) since it started or jumped.
    var hasMoved = false
    /// Whether popular places were consulted since the session started or jumped.
    var seeded = false
    var tick = 0
    /// Recent predictions not yet asked for.
    var pending = RecentKeys(capacity: 512)
    var used = 0.0
    var issued = 0.0
    var active = true
    /// How often the session zooms in and out per step.
    var zooms: ZoomHabit
    /// The next zoom levels' tiles under the viewport the last step predicted
    /// (`Prediction.zoomTiles`).
    var zoomAhead: [TileID] = []

    init(
        key: TileKey, now: UInt64, typical: (width: Int, height: Int) = (0, 0), releasing: Bool = true,
        zooming: ZoomHabit = ZoomHabit()
    ) {
        zooms = zooming.prior
        lastKey = key
        self.releasing = releasing
        width = typical.width
        height = typical.height
        bundle = key.bundle
        z = key.tile.z
        burst = TileBox(x0: key.tile.x, y0: key.tile.y, x1: key.tile.x, y1: key.tile.y)
        burstZ = key.tile.z
        lastTime = now
    }

    /// Follows the session through one request; returns predictions, most likely first.
    mutating func observe(_ key: TileKey, now: UInt64, gap: UInt64, popularity: PlaceCounts, paths: TrailPaths? = nil) -> [TileID] {
        let t = key.tile
        if pending.remove(key) { used += 1 }
        let newBurst = now &- lastTime > gap || t.z != burstZ || key.bundle != bundle
        lastTime = now
        if newBurst {
            endBurst()
            zooms.countStep()
        }
        if key.bundle != bundle {
            release(viewport, notIn: nil)
            self = Track(key: key, now: now, typical: (width, height), releasing: releasing).keeping(self)
            return []
        }
        if newBurst {
            burst = TileBox(x0: t.x, y0: t.y, x1: t.x, y1: t.y)
            burstZ = t.z
            previous = t.z == z ? viewport : nil
        } else {
            burst.include(t.x, t.y)
        }
        let again = key == lastKey
        lastKey = key
        if let p = previous, t.z == z, !again {
            if p.contains(t.x, t.y) { repeated += 1 } else { fresh += 1 }
            if repeated + fresh > 64 {
                repeated /= 2
                fresh /= 2
            }
        }
        if t.z != z { return zoomed(to: t) }
        if !seeded, width > 0, burst.width >= width, burst.height >= height {
            // A whole viewport drawn: its place and size are known before the burst ends.
            seeded = true
            viewport = TileBox(x0: burst.x0, y0: burst.y0, x1: burst.x0 + width - 1, y1: burst.y0 + height - 1)
            if !hasMoved { return seed(popularity: popularity) }
            return []
        }
        guard var v = viewport else { return [] }
        guard !v.contains(t.x, t.y) else { return [] }
        let dx = t.x < v.x0 ? t.x - v.x0 : (t.x > v.x1 ? t.x - v.x1 : 0)
        let dy = t.y < v.y0 ? t.y - v.y0 : (t.y > v.y1 ? t.y - v.y1 : 0)
        if abs(dx) > v.width || abs(dy) > v.height {
            // A jump: a new place, nothing known about where it goes.
            release(v, notIn: nil)
            ahead = nil
            viewport = TileBox(centre: t.x, t.y, w: width, h: height)
            moveX = 0; moveY = 0; lastMoveX = 0; lastMoveY = 0
            hasMoved = false
            seeded = false
            return []
        }
        let old = v
        v = v.shifted(dx, dy)
        viewport = v
        moveX += dx
        moveY += dy
        hasMoved = true
        // Momentum: the next step repeats this one's move, plus the change since the last one.
        let ax = moveX != 0 && lastMoveX != 0 && moveX.signum() == lastMoveX.signum() ? moveX - lastMoveX : 0
        let ay = moveY != 0 && lastMoveY != 0 && moveY.signum() == lastMoveY.signum() ? moveY - lastMoveY : 0
        let px = clamp(moveX + ax, v.width), py = clamp(moveY + ay, v.height)
        // Along a trail under the viewport: the step follows the trail's course.
        if let paths,
            let shift = paths.follow(
                centre: SIMD2(v.cx, v.cy), move: SIMD2(Double(px), Double(py)), z: z,
                reach: Double(max(v.width, v.height)) / 2 + 0.5)
        {
            let sx = clamp(Int(shift.x.rounded()), v.width), sy = clamp(Int(shift.y.rounded()), v.height)
            if sx != 0 || sy != 0 { return next(old, v, v.shifted(sx, sy)) }
        }
        return next(old, v, v.shifted(px, py))
    }

    /// Whether a key lies in the viewport predicted for the next step (true when none is).
    func isAhead(_ key: TileKey) -> Bool {
        guard let ahead else { return true }
        return key.bundle == bundle && key.tile.z == z && ahead.contains(key.tile.x, key.tile.y)
    }

    /// Notes the tiles of `box` (at zoom `z`) outside `kept` as left behind, for a session that
    /// asks for its viewport again (in O(1): they are handed out later, a few per request).
    private mutating func release(_ box: TileBox?, notIn kept: TileBox?) {
        guard releasing, repeats, let box else { return }
        releases.add(bundle: bundle, z: z, box: box, notIn: kept)
    }

    /// Hands out at most `limit` tiles left behind, passing over those in the viewport predicted
    /// next (the session came back to them).
    mutating func takeReleases(_ limit: Int, into out: inout [TileKey]) {
        let ahead = ahead, bundle = bundle, z = z
        releases.take(limit, into: &out) { b, t in
            guard let ahead, b == bundle, t.z == z else { return false }
            return ahead.contains(t.x, t.y)
        }
    }

    /// The tiles of the next viewport `n` not in the current one `v`, nearest its centre first;
    /// for a session that asks for its whole viewport again, then the rest of `n` too (and the
    /// tiles of the viewport before the move, `old`, outside `n` are left behind).
    private mutating func next(_ old: TileBox, _ v: TileBox, _ n: TileBox) -> [TileID] {
        if !repeats, active { zoomAhead = zoomTiles(under: n) }
        let ring = n.tiles(notIn: v, z: z)
        guard repeats else { return ring }
        release(old, notIn: n)
        ahead = n
        return ring + n.tiles(notIn: nil, z: z).filter { v.contains($0.x, $0.y) }
    }

    /// The tiles of the next zoom levels under viewport `n`, in each direction the session
    /// zooms in often enough (`ZoomHabit.share` of its steps, a new session starting from what
    /// sessions did lately), the likelier first: going out, the parents under the viewport (a
    /// zoom out keeps them in view whatever point it centres on); going in, the children about
    /// the viewport's centre, as many as the viewport holds (a zoom in about its centre shows
    /// them). A viewer without its own cache gets none: its next viewport is already held for
    /// it, and loading two zoom levels more crowded those out.
    private func zoomTiles(under n: TileBox) -> [TileID] {
        var out: [TileID] = []
        let zoomsIn = zooms.zoomsIn, zoomsOut = zooms.zoomsOut
        if zooms.often(zoomsOut), z > 0 {
            out += TileBox(x0: n.x0 >> 1, y0: n.y0 >> 1, x1: n.x1 >> 1, y1: n.y1 >> 1).tiles(notIn: nil, z: z - 1)
        }
        if zooms.often(zoomsIn), z < TileID.maxZoom {
            // The box of the viewport's size about its centre at the next zoom.
            let x0 = Int((2 * n.cx - Double(n.width) / 2).rounded(.down)), y0 = Int((2 * n.cy - Double(n.height) / 2).rounded(.down))
            let children = TileBox(x0: x0, y0: y0, x1: x0 + n.width - 1, y1: y0 + n.height - 1).tiles(notIn: nil, z: z + 1)
            if zoomsIn > zoomsOut { out = children + out } else { out += children }
        }
        return out
    }

    /// Keeps what a session learned about its viewer when it moves to another bundle.
    func keeping(_ old: Track) -> Track {
        var t = self
        t.width = old.width
        t.height = old.height
        t.pending = old.pending
        t.used = old.used
        t.issued = old.issued
        t.active = old.active
        t.zooms = old.zooms
        t.repeated = old.repeated
        t.fresh = old.fresh
        t.releases = old.releases
        return t
    }

    /// Ends a burst: learns the viewport's size from it and, when it drew a whole viewport,
    /// takes it as the viewport.
    private mutating func endBurst() {
        guard burstZ == z else { return }
        if !seeded || (burst.width >= width && burst.height >= height) {
            seeded = true
            width = min(16, burst.width)
            height = min(16, burst.height)
            viewport = TileBox(x0: burst.x0, y0: burst.y0, x1: burst.x0 + width - 1, y1: burst.y0 + height - 1)
        }
        lastMoveX = moveX
        lastMoveY = moveY
        moveX = 0
        moveY = 0
    }

    /// A zoom step: the viewport re-centres on the first tile asked for at the new zoom (viewers
    /// draw from the centre out); predicts the next zoom's viewport in the same direction.
    private mutating func zoomed(to t: TileID) -> [TileID] {
        let dz = t.z - z
        // A zoom whose centre is not under the viewport (one tile of slack) is a jump.
        let old = viewport
        let jumped =
            old.map { v -> Bool in
                let x = dz > 0 ? t.x >> dz : t.x << -dz, y = dz > 0 ? t.y >> dz : t.y << -dz
                return !TileBox(x0: v.x0 - 1, y0: v.y0 - 1, x1: v.x1 + 1, y1: v.y1 + 1).contains(x, y)
            } ?? false
        release(old, notIn: nil)
        ahead = nil
        z = t.z
        hasMoved = !jumped
        if !jumped, old != nil { zooms.countZoom(in: dz > 0) }
        if jumped { seeded = false }
        moveX = 0; moveY = 0; lastMoveX = 0; lastMoveY = 0
        guard width > 0, !jumped else {
            viewport = nil
            return []
        }
        let v = TileBox(centre: t.x, t.y, w: width, h: height)
        viewport = v
        guard abs(dz) == 1 else { return [] }
        let next = z + dz
        guard next >= 0, next <= TileID.maxZoom else { return [] }
        // The next zoom's viewport around the same point, centre first.
        let cx = dz > 0 ? t.x * 2 : t.x >> 1, cy = dz > 0 ? t.y * 2 : t.y >> 1
        return TileBox(centre: cx, cy, w: width, h: height).tiles(notIn: nil, z: next)
    }

    /// Seeds for a session that has a viewport but has not moved: the ring beyond the side of
    /// the viewport with the most requests of all sessions nearby.
    func seed(popularity: PlaceCounts) -> [TileID] {
        guard let v = viewport else { return [] }
        let sides = [(1, 0), (-1, 0), (0, 1), (0, -1)]
        // The neighbourhood at the centre of the next viewport on each side.
        let centres = sides.map { sx, sy in
            let next = v.shifted(sx * v.width, sy * v.height)
            return (x: Int(next.cx.rounded(.down)), y: Int(next.cy.rounded(.down)))
        }
        var best: (Double, Int, Int)?
        for ((sx, sy), score) in zip(sides, popularity.counts(bundle: bundle, z: z, tiles: centres))
        where score > (best?.0 ?? 0.5) {
            best = (score, sx, sy)
        }
        guard let (_, sx, sy) = best else { return [] }
        return v.shifted(sx, sy).tiles(notIn: v, z: z)
    }

    /// Scores a session's predictions and lets them through while enough recent ones were used.
    /// While the session gets none, only the `quietScoring` most likely of a step's predictions
    /// are scored: a client that is not one viewer (many behind one address, or a crawler) can
    /// make hundreds a request, and scoring them all cost more than the request's answer.
    mutating func issue(_ predicted: [TileID], minUsedShare: Double) -> [TileKey] {
        var keys = [TileKey]()
        for tile in predicted.prefix(active ? predicted.count : Self.quietScoring) {
            let key = TileKey(bundle: bundle, tile: tile)
            if pending.insert(key) { keys.append(key) }
        }
        guard !keys.isEmpty else { return [] }
        issued += Double(keys.count)
        if issued > 128 {
            issued /= 2
            used /= 2
        }
        if issued >= 24 {
            let share = used / issued
            if share < minUsedShare { active = false } else if share >= 1.5 * minUsedShare { active = true }
        }
        return active ? keys : []
    }
}

extension Track {
    /// The most predictions of one step scored while a session gets none.
    static var quietScoring: Int { 64 }
}

/// How often a session (or all of them) zooms in and out: decayed counts of steps and of the
/// steps that zoomed one way without jumping.
struct ZoomHabit {
    var steps = 0.0
    var zoomsIn = 0.0
    var zoomsOut = 0.0

    /// The share of steps that zoom one way for that way's next zoom level to be predicted.
    static var share: Double { 0.1 }
    /// Steps after which a session's counts are halved.
    static var memory: Double { 64 }
    /// The steps a new session's prior weighs.
    static var priorSteps: Double { 8 }
    /// Requests over which the habit of all sessions follows theirs (an exponential average).
    static var populationRequests: Double { 1024 }

    mutating func countStep() {
        steps += 1
        if steps > Self.memory {
            steps /= 2
            zoomsIn /= 2
            zoomsOut /= 2
        }
    }

    mutating func countZoom(in: Bool) {
        if `in` { zoomsIn += 1 } else { zoomsOut += 1 }
    }

    /// Whether `count` zooms are a large enough share of the steps.
    func often(_ count: Double) -> Bool { steps > 0 && count >= Self.share * steps }

    /// A new session's counts: `priorSteps` steps zooming as these counts' shares.
    var prior: ZoomHabit {
        guard steps > 0 else { return ZoomHabit() }
        let scale = Self.priorSteps / steps
        return ZoomHabit(steps: Self.priorSteps, zoomsIn: zoomsIn * scale, zoomsOut: zoomsOut * scale)
    }

    /// Moves the shares of all sessions (these counts, over `priorSteps` steps) towards one
    /// session's, once it has a prior's worth of steps.
    mutating func learn(from session: ZoomHabit) {
        guard session.steps >= Self.priorSteps else { return }
        let rate = 1 / Self.populationRequests
        steps = Self.priorSteps
        zoomsIn += (session.zoomsIn / session.steps * Self.priorSteps - zoomsIn) * rate
        zoomsOut += (session.zoomsOut / session.steps * Self.priorSteps - zoomsOut) * rate
    }
}

private func clamp(_ v: Int, _ limit: Int) -> Int { max(-limit, min(limit, v)) }
