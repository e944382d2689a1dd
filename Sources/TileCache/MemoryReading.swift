import Foundation

/// One reading of the process's memory from its cgroup (v2) and PSI files. Fields are nil where
/// the file is absent or says nothing (`max`).
public struct MemoryReading: Sendable, Equatable {
    /// `memory.current`, bytes.
    public var current: Int?
    /// `memory.max`, or `memory.high` when `max` is unlimited, bytes.
    public var limit: Int?
    /// `memory.events` counters (`high`, `max`, `oom`, `oom_kill`).
    public var events: [String: Int] = [:]
    /// PSI `some avg10` and `full avg10`, percent.
    public var someAvg10: Double?
    public var fullAvg10: Double?

    public init() {}

    /// `current / limit`, when both are known.
    public var usage: Double? {
        guard let current, let limit, limit > 0 else { return nil }
        return Double(current) / Double(limit)
    }

    /// Reads `directory` (a cgroup v2 folder) and `pressureFile` (PSI; the cgroup's own
    /// `memory.pressure` is preferred when present).
    public static func read(cgroup directory: String?, pressureFile: String?) -> MemoryReading {
        var r = MemoryReading()
        var psi = pressureFile
        if let directory {
            func file(_ name: String) -> String? {
                try? String(contentsOfFile: (directory as NSString).appendingPathComponent(name), encoding: .utf8)
            }
            r.current = file("memory.current").flatMap(number)
            r.limit = file("memory.max").flatMap(number) ?? file("memory.high").flatMap(number)
            if let events = file("memory.events") { r.events = pairs(events) }
            let own = (directory as NSString).appendingPathComponent("memory.pressure")
            if FileManager.default.isReadableFile(atPath: own) { psi = own }
        }
        if let psi, let text = try? String(contentsOfFile: psi, encoding: .utf8) {
            for line in text.split(separator: "\n") {
                let fields = line.split(separator: " ")
                guard let kind = fields.first else { continue }
                let avg10 = fields.first { $0.hasPrefix("avg10=") }.flatMap { Double($0.dropFirst(6)) }
                if kind == "some" { r.someAvg10 = avg10 } else if kind == "full" { r.fullAvg10 = avg10 }
            }
        }
        return r
    }

    /// The cgroup v2 folder of this process (`0::/path` of /proc/self/cgroup under /sys/fs/cgroup), if any.
    public static func ownCgroup(mount: String = "/sys/fs/cgroup") -> String? {
        guard let text = try? String(contentsOfFile: "/proc/self/cgroup", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("0::") {
            let path = mount + line.dropFirst(3)
            if FileManager.default.fileExists(atPath: (path as NSString).appendingPathComponent("memory.current")) {
                return path
            }
        }
        return nil
    }

    static func number(_ text: String) -> Int? {
        let t = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return t == "max" ? nil : Int(t)
    }

    static func pairs(_ text: String) -> [String: Int] {
        var out = [String: Int]()
        for line in text.split(separator: "\n") {
            let f = line.split(separator: " ")
            if f.count == 2, let v = Int(f[1]) { out[String(f[0])] = v }
        }
        return out
    }
}
