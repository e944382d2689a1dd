import Foundation
import Synchronization
import TileStore

/// Opens bundles lazily (an MBTiles bundle's SQLite connections, a PMTiles archive's reader: any
/// `TileSource`) and keeps the number of open bundles bounded: a bundle opens on its first read,
/// the least recently used idle one closes when too many are open, and bundles idle for
/// `idleTimeout` close on `closeIdle()`. Each open bundle reserves `bundleCost` bytes of the
/// cache's budget, so its memory counts against it.
public final class BundleManager: Sendable {
    /// How many bundles may be open at once (after fitting their reservations into the budget).
    public let maxOpen: Int
    public let idleTimeout: Duration
    /// Bytes reserved in the cache per open bundle (connections, page caches, statements; a
    /// PMTiles reader's root directory and leaf cache).
    public let bundleCost: Int
    private let cache: TileCache?
    private let state = Mutex<State>(State())

    struct Open {
        var source: any TileSource
        var lastUse: ContinuousClock.Instant
        var users: Int
    }

    struct State {
        var open: [UInt32: Open] = [:]
        var nextID: UInt32 = 1
        var opens = 0
        var closes: [EvictionReason: Int] = [:]
    }

    /// - Parameters:
    ///   - maxOpen: the most bundles open at once; lowered so their reservations take at most
    ///     half of the cache's budget.
    ///   - cache: the cache whose budget open bundles count against, if any.
    public init(maxOpen: Int = 64, idleTimeout: Duration = .seconds(300), bundleCost: Int = 2 << 20, cache: TileCache? = nil) {
        self.idleTimeout = idleTimeout
        self.bundleCost = max(0, bundleCost)
        self.cache = cache
        var limit = max(1, maxOpen)
        if let cache, bundleCost > 0 { limit = max(1, min(limit, cache.budget / 2 / bundleCost)) }
        self.maxOpen = limit
    }

    /// A handle on a tileset file of `kind`, not opened yet. Each handle has its own generation id.
    public func register(path: String, kind: TileSourceKind) -> LazyBundle {
        let id = state.withLock { s in
            defer { s.nextID &+= 1 }
            return s.nextID
        }
        return LazyBundle(id: id, path: path, kind: kind, manager: self)
    }

    /// A handle on an MBTiles bundle, not opened yet.
    public func register(path: String, layout: BundleLayout) -> LazyBundle {
        register(path: path, kind: .mbtiles(layout))
    }

    /// Closes a bundle for good (replaced or removed) and drops its cached tiles.
    /// Its open source stays with the handle, outside the budget, for requests that still hold
    /// the handle (they finish on the file they started on); it goes when the handle goes.
    public func unregister(_ bundle: LazyBundle) {
        let source = state.withLock { s in s.open.removeValue(forKey: bundle.id)?.source }
        bundle.retire(source)
        if source != nil { cache?.release(bundleCost) }
        cache?.removeAll(bundle: bundle.id, reason: .idle)
    }

    /// Runs `body` with the bundle's source, opening it first if needed.
    func withSource<R>(_ bundle: LazyBundle, _ body: (any TileSource) throws -> R) throws -> R {
        let now = ContinuousClock.now
        var source = state.withLock { s -> (any TileSource)? in
            guard var o = s.open[bundle.id] else { return nil }
            o.users += 1
            o.lastUse = now
            s.open[bundle.id] = o
            return o.source
        }
        if source == nil { source = try open(bundle) }
        defer {
            state.withLock { s in
                s.open[bundle.id]?.users -= 1
                s.open[bundle.id]?.lastUse = .now
            }
        }
        guard let source else { throw TileCacheError.budgetTooSmall(budget: cache?.budget ?? 0, bundleCost: bundleCost) }
        return try body(source)
    }

    /// Opens outside the lock (it is file I/O); a racing opener's source wins, ours is dropped.
    /// Idle bundles over `maxOpen` close before the reservation is taken, so switching between
    /// bundles does not briefly reserve two bundles' memory (which evicted every cached tile of
    /// a small budget). When the budget holds no more reservations because the open bundles are
    /// all busy, it waits for one to finish (reads take milliseconds) for up to `openWait`
    /// instead of failing the request.
    private func open(_ bundle: LazyBundle) throws -> any TileSource {
        let fresh = try bundle.kind.open(path: bundle.path)
        let deadline = ContinuousClock.now + Self.openWait
        while true {
            var released = 0
            let existing = state.withLock { s -> (any TileSource)? in
                if var o = s.open[bundle.id] {
                    o.users += 1
                    s.open[bundle.id] = o
                    return o.source
                }
                released = Self.closeIdleOverLimit(&s, limit: maxOpen - 1)
                return nil
            }
            if released > 0 { cache?.release(released * bundleCost) }
            if let existing { return existing }
            let reserved = cache == nil || bundleCost == 0 || cache?.reserve(bundleCost) == true
            if reserved {
                let raced = state.withLock { s -> (any TileSource)? in
                    if var o = s.open[bundle.id] {
                        o.users += 1
                        s.open[bundle.id] = o
                        return o.source
                    }
                    s.open[bundle.id] = Open(source: fresh, lastUse: .now, users: 1)
                    s.opens += 1
                    return nil
                }
                guard let raced else { return fresh }
                if cache != nil, bundleCost > 0 { cache?.release(bundleCost) }
                return raced
            }
            guard ContinuousClock.now < deadline else {
                throw TileCacheError.budgetTooSmall(budget: cache?.budget ?? 0, bundleCost: bundleCost)
            }
            Thread.sleep(forTimeInterval: 0.002)
        }
    }

    /// How long an open waits for a busy bundle to become idle when the budget is full.
    static let openWait: Duration = .seconds(2)

    /// Closes the least recently used idle bundles until at most `limit` are open; returns how many closed.
    private static func closeIdleOverLimit(_ s: inout State, limit: Int) -> Int {
        var closed = 0
        while s.open.count > max(0, limit) {
            guard let lru = s.open.filter({ $0.value.users == 0 }).min(by: { $0.value.lastUse < $1.value.lastUse }) else { break }
            s.open[lru.key] = nil
            s.closes[.capacity, default: 0] += 1
            closed += 1
        }
        return closed
    }

    /// Closes bundles unused for `idleTimeout` (or every unused one with `all`); returns how many.
    @discardableResult
    public func closeIdle(all: Bool = false, reason: EvictionReason = .idle, now: ContinuousClock.Instant = .now) -> Int {
        let closed = state.withLock { s -> Int in
            let victims = s.open.filter { $0.value.users == 0 && (all || now - $0.value.lastUse >= idleTimeout) }.map(\.key)
            for id in victims { s.open[id] = nil }
            s.closes[reason, default: 0] += victims.count
            return victims.count
        }
        if closed > 0 { cache?.release(closed * bundleCost) }
        return closed
    }

    /// Bundles open now.
    public var openCount: Int { state.withLock { $0.open.count } }

    /// Whether a bundle is open now.
    public func isOpen(_ bundle: LazyBundle) -> Bool { state.withLock { $0.open[bundle.id] != nil } }

    /// Opens so far, and closes by reason.
    public var counts: (opens: Int, closes: [EvictionReason: Int]) { state.withLock { ($0.opens, $0.closes) } }
}

/// A tileset file whose source opens on first use (see `BundleManager`).
public final class LazyBundle: Sendable {
    /// Generation id, also the `bundle` of its tiles' `TileKey`s.
    public let id: UInt32
    public let path: String
    /// What kind of file it is (how it opens).
    public let kind: TileSourceKind
    private let manager: BundleManager
    /// Set once unregistered: the source it had open then, if any.
    private let retired = Mutex<(done: Bool, source: (any TileSource)?)>((false, nil))

    init(id: UInt32, path: String, kind: TileSourceKind, manager: BundleManager) {
        self.id = id
        self.path = path
        self.kind = kind
        self.manager = manager
    }

    /// Runs `body` with the bundle's open source, opening it if it is closed.
    public func withSource<R>(_ body: (any TileSource) throws -> R) throws -> R {
        let r = retired.withLock { $0 }
        guard r.done else { return try manager.withSource(self, body) }
        // Unregistered: read without the manager (a late request on a replaced or removed file).
        return try body(r.source ?? kind.open(path: path))
    }

    func retire(_ source: (any TileSource)?) {
        retired.withLock { $0 = (true, source) }
    }
}
