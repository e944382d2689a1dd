/// Where memory pressure is read from and what each level does.
public struct PressureSettings: Sendable, Equatable {
    /// The cgroup v2 folder (`memory.current`, `memory.max`/`memory.high`, `memory.events`,
    /// `memory.pressure`); nil reads no cgroup.
    public var cgroupDirectory: String?
    /// The PSI file used when the cgroup has none.
    public var pressureFile: String? = "/proc/pressure/memory"
    /// `memory.current / limit` at which the level becomes warning (0.8) and critical (0.9).
    public var warningUsage = 0.8
    public var criticalUsage = 0.9
    /// PSI `some avg10` (percent of time stalled) for warning, `full avg10` for critical.
    public var warningPSI = 10.0
    public var criticalPSI = 10.0
    /// Share of the budget the cache keeps at warning (and after a critical purge).
    public var warningFraction = 0.5
    /// How often the files are read.
    public var interval: Duration = .seconds(2)

    public init(cgroupDirectory: String? = MemoryReading.ownCgroup()) {
        self.cgroupDirectory = cgroupDirectory
    }
}
