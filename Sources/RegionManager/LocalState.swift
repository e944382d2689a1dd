import Essentials
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The state folder: `account.json` (server, token, device id) and `registry.json` (installed regions).
/// The folder is 0700 and its files 0600; every write is atomic.
public struct LocalState: Sendable {
    public let directory: String

    /// Opens (creating if needed) the state folder and tightens its permissions.
    public init(directory: String) throws {
        self.directory = directory
        var isDir: ObjCBool = false
        if FileManager.default.fileExists(atPath: directory, isDirectory: &isDir) {
            guard isDir.boolValue else { throw RegionManagerError.stateFolder(path: directory, reason: "it is a file") }
        } else {
            do {
                try FileManager.default.createDirectory(
                    atPath: directory, withIntermediateDirectories: true,
                    attributes: [.posixPermissions: 0o700])
            } catch {
                throw RegionManagerError.stateFolder(path: directory, reason: "cannot create it (\(error.localizedDescription))")
            }
            // Only a folder made here is narrowed to its owner (the umask may have widened it);
            // an existing one (say `--state-dir ~`) keeps its mode: the files in it are 0600.
            guard chmod(directory, 0o700) == 0 else {
                throw RegionManagerError.stateFolder(path: directory, reason: String(cString: strerror(errno)))
            }
        }
    }

    /// `$XDG_STATE_HOME/trailmap`, else `~/.local/state/trailmap`.
    public static func defaultDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let xdg = environment["XDG_STATE_HOME"], xdg.hasPrefix("/") {
            return (xdg as NSString).appendingPathComponent("trailmap")
        }
        let home = environment["HOME"] ?? NSHomeDirectory()
        return (home as NSString).appendingPathComponent(".local/state/trailmap")
    }

    public var accountPath: String { (directory as NSString).appendingPathComponent("account.json") }
    public var registryPath: String { (directory as NSString).appendingPathComponent("registry.json") }

    public func loadAccount() throws -> AccountState? { try load(AccountState.self, from: accountPath) }

    public func saveAccount(_ account: AccountState) throws { try save(account, to: accountPath) }

    /// Installed regions by product id (empty when there is no registry yet).
    public func loadRegistry() throws -> [String: InstalledRegion] {
        let list = try load([InstalledRegion].self, from: registryPath) ?? []
        return Dictionary(list.map { ($0.productId, $0) }, uniquingKeysWith: { _, last in last })
    }

    public func saveRegistry(_ registry: [String: InstalledRegion]) throws {
        try save(registry.values.sorted { $0.productId < $1.productId }, to: registryPath)
    }

    /// Reads, changes and writes the registry.
    /// Processes take turns (a lock on `registry.lock`, deleted as it is released), so concurrent
    /// installs lose no entry and no lock file stays behind.
    public func updateRegistry(_ change: (inout [String: InstalledRegion]) throws -> Void) throws {
        let lock = try FileLock(
            path: (directory as NSString).appendingPathComponent("registry.lock"), wait: true,
            busy: .stateFolder(path: directory, reason: "registry locked"))
        defer { lock.release() }
        var registry = try loadRegistry()
        try change(&registry)
        try saveRegistry(registry)
    }

    private func load<T: Decodable>(_ type: T.Type, from path: String) throws -> T? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        do {
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .iso8601
            return try decoder.decode(T.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
        } catch {
            throw RegionManagerError.stateFolder(path: path, reason: "unreadable (\(error)); move it away to start afresh")
        }
    }

    private func save<T: Encodable>(_ value: T, to path: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        do {
            try DurableFile.write(try encoder.encode(value), to: path, mode: 0o600)
        } catch {
            throw RegionManagerError.stateFolder(path: path, reason: "cannot write (\(error))")
        }
    }
}
