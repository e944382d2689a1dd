import Synchronization

/// Turns memory readings into pressure levels and applies them: at warning the cache shrinks to
/// `warningFraction` of its budget; at critical it drops every entry and idle bundles close.
/// An operator can force a level (`force`); the level in effect is the higher of the forced and
/// the measured one, and forcing `normal` lifts the override.
public final class MemoryPressureMonitor: Sendable {
    public let settings: PressureSettings
    private let cache: TileCache
    private let bundles: BundleManager?
    private let state = Mutex<State>(State())

    struct State {
        var measured = MemoryPressureLevel.normal
        var forced: MemoryPressureLevel?
        var applied = MemoryPressureLevel.normal
        var lastEvents: [String: Int]?
        var last = MemoryReading()
    }

    public init(settings: PressureSettings, cache: TileCache, bundles: BundleManager?) {
        self.settings = settings
        self.cache = cache
        self.bundles = bundles
    }

    /// The level a reading shows, given the previous `memory.events` counters.
    public static func level(of r: MemoryReading, previousEvents: [String: Int]?, settings: PressureSettings) -> MemoryPressureLevel {
        var level = MemoryPressureLevel.normal
        if let usage = r.usage {
            if usage >= settings.criticalUsage { level = .critical } else if usage >= settings.warningUsage { level = .warning }
        }
        if let prev = previousEvents {
            func grew(_ k: String) -> Bool { (r.events[k] ?? 0) > (prev[k] ?? 0) }
            if grew("oom") || grew("oom_kill") || grew("max") { level = max(level, .critical) }
            if grew("high") { level = max(level, .warning) }
        }
        if let some = r.someAvg10, some >= settings.warningPSI { level = max(level, .warning) }
        if let full = r.fullAvg10, full >= settings.criticalPSI { level = max(level, .critical) }
        return level
    }

    /// Reads the files once and applies the resulting level; returns the level in effect.
    @discardableResult
    public func poll() -> MemoryPressureLevel {
        let reading = MemoryReading.read(cgroup: settings.cgroupDirectory, pressureFile: settings.pressureFile)
        let measured = state.withLock { s in
            let l = Self.level(of: reading, previousEvents: s.lastEvents, settings: settings)
            s.lastEvents = reading.events
            s.last = reading
            s.measured = l
            return l
        }
        _ = measured
        return apply()
    }

    /// Forces a level (the admin endpoint); `normal` lifts a forced level. Returns the level in effect.
    @discardableResult
    public func force(_ level: MemoryPressureLevel) -> MemoryPressureLevel {
        state.withLock { $0.forced = level == .normal ? nil : level }
        return apply(repeatCritical: level == .critical)
    }

    /// The level in effect, the measured one and the last reading.
    public var status: (level: MemoryPressureLevel, measured: MemoryPressureLevel, forced: MemoryPressureLevel?, reading: MemoryReading) {
        state.withLock { ($0.applied, $0.measured, $0.forced, $0.last) }
    }

    private func apply(repeatCritical: Bool = false) -> MemoryPressureLevel {
        let (level, previous) = state.withLock { s -> (MemoryPressureLevel, MemoryPressureLevel) in
            let l = max(s.measured, s.forced ?? .normal)
            defer { s.applied = l }
            return (l, s.applied)
        }
        switch level {
        case .normal:
            if previous != .normal { cache.setFraction(1) }
        case .warning:
            cache.setFraction(settings.warningFraction)
        case .critical:
            cache.setFraction(settings.warningFraction)
            if previous != .critical || repeatCritical { cache.removeAll(reason: .pressure) }
            bundles?.closeIdle(all: true, reason: .pressure)
        }
        return level
    }
}
