import TileGeometry

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
    /// The viewport when the burst began.
    var previous: TileBox?
    /// How many of the session's requests fell in the previous step's viewport (asked for again)
    /// or outside it, a new session starting from what sessions did lately.
    var repeating: RepeatHabit
    /// Whether the session asks for its whole viewport again at each step (a viewer without
    /// its own cache): its predictions then cover the whole next viewport, not only the ring.
    /// Only requests of a tile other than the one before count as evidence: a client asking for
    /// one tile again and again is not drawing a viewport.
    var repeats: Bool { repeating.repeats }
    /// The tile asked for last.
    var lastKey: TileKey
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
    /// The share of the session's recent requests that were jumps (a new place at the same zoom,
    /// a zoom not about the viewport or of more than one level, another bundle), decayed at each
    /// request. A viewer jumps now and then; a client that is not one viewer (a crawler, a load
    /// generator, many users behind one address) jumps at most of its requests.
    var jumpShare = 0.0
    /// Whether the session jumps too often to be one viewer: no predictions are worked out for
    /// it (nor scored) until it settles.
    var scattered: Bool { jumpShare > Self.scatteredShare }
    /// How often the session zooms in and out per step.
    var zooms: ZoomHabit
    /// Whether the request observed last began a burst (a step).
    var stepped = false
    /// The chances given to the tiles of the session's next step (a session that asks for its
    /// viewport again, with `PrefetchPredictor.chanceLifetime`).
    var chances = StepChances()

    /// What one request predicts: the tiles, most likely first, and the next zoom levels' tiles
    /// under the viewport predicted next (`Prediction.zoomTiles`). An array literal is tiles only.
    struct Step: ExpressibleByArrayLiteral {
        var tiles: [TileID]
        var zoomTiles: [TileID] = []

        init(tiles: [TileID], zoomTiles: [TileID] = []) {
            self.tiles = tiles
            self.zoomTiles = zoomTiles
        }

        init(arrayLiteral tiles: TileID...) { self.tiles = tiles }
    }

    init(
        key: TileKey, now: UInt64, typical: (width: Int, height: Int) = (0, 0), zooming: ZoomHabit = ZoomHabit(),
        repeating: RepeatHabit = RepeatHabit()
    ) {
        zooms = zooming.prior
        self.repeating = repeating.prior
        lastKey = key
        width = typical.width
        height = typical.height
        bundle = key.bundle
        z = key.tile.z
        burst = TileBox(x0: key.tile.x, y0: key.tile.y, x1: key.tile.x, y1: key.tile.y)
        burstZ = key.tile.z
        lastTime = now
    }

    /// Follows the session through one request; returns what it predicts.
    mutating func observe(_ key: TileKey, now: UInt64, gap: UInt64, popularity: PlaceCounts, paths: TrailPaths? = nil) -> Step {
        let t = key.tile
        if pending.remove(key) { used += 1 }
        jumpShare -= jumpShare * Self.jumpDecay
        let newBurst = now &- lastTime > gap || t.z != burstZ || key.bundle != bundle
        lastTime = now
        stepped = newBurst
        if newBurst {
            endBurst()
            zooms.countStep()
        }
        if key.bundle != bundle {
            self = Track(key: key, now: now, typical: (width, height)).keeping(self)
            jumpShare += Self.jumpDecay
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
            repeating.count(again: p.contains(t.x, t.y))
        }
        if t.z != z { return Step(tiles: zoomed(to: t)) }
        if !seeded, width > 0, burst.width >= width, burst.height >= height {
            // A whole viewport drawn: its place and size are known before the burst ends.
            seeded = true
            viewport = TileBox(x0: burst.x0, y0: burst.y0, x1: burst.x0 + width - 1, y1: burst.y0 + height - 1)
            if !hasMoved, !scattered { return Step(tiles: seed(popularity: popularity)) }
            return []
        }
        guard var v = viewport else { return [] }
        guard !v.contains(t.x, t.y) else { return [] }
        let dx = t.x < v.x0 ? t.x - v.x0 : (t.x > v.x1 ? t.x - v.x1 : 0)
        let dy = t.y < v.y0 ? t.y - v.y0 : (t.y > v.y1 ? t.y - v.y1 : 0)
        if abs(dx) > v.width || abs(dy) > v.height {
            // A jump: a new place, nothing known about where it goes.
            jumpShare += Self.jumpDecay
            viewport = TileBox(centre: t.x, t.y, w: width, h: height)
            moveX = 0; moveY = 0; lastMoveX = 0; lastMoveY = 0
            hasMoved = false
            seeded = false
            return []
        }
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
            if sx != 0 || sy != 0 { return next(v, v.shifted(sx, sy)) }
        }
        return next(v, v.shifted(px, py))
    }

    /// The tiles of the next viewport `n` not in the current one `v`, nearest its centre first;
    /// for a session that asks for its whole viewport again, then the rest of `n` too (those it
    /// holds are not loaded). With them, for a session that gets predictions, the next zoom
    /// levels' tiles under `n`.
    private func next(_ v: TileBox, _ n: TileBox) -> Step {
        guard !scattered else { return [] }
        let ring = n.tiles(notIn: v, z: z)
        guard repeats else { return Step(tiles: ring, zoomTiles: active ? zoomTiles(under: n) : []) }
        return Step(tiles: ring + n.tiles(notIn: nil, z: z).filter { v.contains($0.x, $0.y) })
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
        t.jumpShare = old.jumpShare
        t.zooms = old.zooms
        t.repeating = old.repeating
        t.chances = old.chances
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
        z = t.z
        hasMoved = !jumped
        if !jumped, old != nil { zooms.countZoom(in: dz > 0) }
        if jumped { seeded = false }
        if jumped || abs(dz) > 1 { jumpShare += Self.jumpDecay }
        moveX = 0; moveY = 0; lastMoveX = 0; lastMoveY = 0
        guard width > 0, !jumped else {
            viewport = nil
            return []
        }
        let v = TileBox(centre: t.x, t.y, w: width, h: height)
        viewport = v
        guard abs(dz) == 1, !scattered else { return [] }
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
    /// The weight of one request in `jumpShare` (the share decays by it at each request).
    static var jumpDecay: Double { 1.0 / 32 }
    /// Above this share of jumps among recent requests a session is `scattered`.
    static var scatteredShare: Double { 0.4 }
}

private func clamp(_ v: Int, _ limit: Int) -> Int { max(-limit, min(limit, v)) }
