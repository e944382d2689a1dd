import Essentials
import Foundation

/// One stored patch, as the server offers it.
public struct StoredPatch: Sendable, Equatable, Codable {
    public var fromVersion: Int
    public var toVersion: Int
    /// Bytes of the patch file and its SHA-256 (its ETag).
    public var size: Int64
    public var sha256: String
    public var fromContent: String
    public var toContent: String
    /// SHA-256 of the bundle file of `toVersion` the patch was made against.
    public var toBundleSHA256: String
}

/// The server's patches, in a folder (default `TILES/.trailmap-patches`, beside the bundles every
/// server reads): per product, the index of each recent version (`v<N>.index`) and the patches
/// between them (`<from>-<to>.patch` with a `.json` description). Made by `trailmap catalog
/// publish` when a product gets a new version; read by every server.
public struct PatchStore: Sendable {
    public let root: String
    /// Versions whose index is kept (patches are made from each to a new version).
    public let keepVersions: Int

    public init(root: String, keepVersions: Int = 3) {
        self.root = root
        self.keepVersions = max(1, keepVersions)
    }

    /// The folder of a product (its id made safe for a file name).
    public func folder(_ productId: String) -> String {
        let safe = productId.unicodeScalars.map { c -> String in
            (c.isASCII && (CharacterSet.alphanumerics.contains(c) || "._-".unicodeScalars.contains(c)))
                ? String(c) : String(format: "%%%02X", c.value)
        }.joined()
        return (root as NSString).appendingPathComponent(safe)
    }

    public func patchPath(_ productId: String, from: Int, to: Int) -> String {
        (folder(productId) as NSString).appendingPathComponent("\(from)-\(to).patch")
    }

    func indexPath(_ productId: String, version: Int) -> String {
        (folder(productId) as NSString).appendingPathComponent("v\(version).index")
    }

    /// What `record` did.
    public struct Recorded: Sendable {
        public var contentHash: String
        public var made: [StoredPatch]
    }

    /// After a publish: indexes `bundle` as `version` of `productId` (unless that index exists with
    /// the same SHA-256), makes a patch to it from every earlier version still indexed, and drops
    /// indexes older than the last `keepVersions` versions and patches starting before them.
    /// Records of one product take turns (a lock file in its folder, across processes); files a
    /// crashed record left half-written are removed first.
    @discardableResult
    public func record(productId: String, version: Int, bundle: String, sha256: String) throws(PatchError) -> Recorded {
        let dir = folder(productId)
        do { try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true) } catch {
            throw .file(path: dir, reason: "\(error)")
        }
        let lockPath = (dir as NSString).appendingPathComponent(".lock")
        let lock: FileLock
        do { lock = try FileLock(path: lockPath, wait: true) } catch { throw .file(path: lockPath, reason: "\(error)") }
        defer { lock.release() }
        for name in (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? [] where name.contains(NewSQLiteFile.temporaryMarker) {
            try? FileManager.default.removeItem(atPath: (dir as NSString).appendingPathComponent(name))
        }
        let index = indexPath(productId, version: version)
        var content: String
        if let info = try? VersionIndex.info(index), info["sha256"] == sha256, let c = info["content"] {
            content = c
        } else {
            content = try VersionIndex.create(bundle: bundle, version: version, sha256: sha256, at: index)
        }
        var made = [StoredPatch]()
        for old in indexedVersions(productId) where old < version {
            let path = patchPath(productId, from: old, to: version)
            if let existing = description(path), existing.toBundleSHA256 == sha256 { continue }
            try PatchFile.make(from: indexPath(productId, version: old), to: bundle, newIndex: index, at: path)
            let header = try PatchFile.header(path)
            let digest: (size: Int64, hex: String)
            do { digest = try FileSHA256.digest(path: path) } catch { throw .file(path: path, reason: "\(error)") }
            let stored = StoredPatch(
                fromVersion: old, toVersion: version, size: digest.size, sha256: digest.hex,
                fromContent: header.fromContent, toContent: header.toContent, toBundleSHA256: sha256)
            do {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys]
                try AtomicFile.write(try encoder.encode(stored), to: path + ".json", mode: 0o644)
            } catch { throw .file(path: path + ".json", reason: "\(error)") }
            made.append(stored)
        }
        prune(productId, latest: version)
        return Recorded(contentHash: content, made: made)
    }

    /// Versions with an index, ascending.
    func indexedVersions(_ productId: String) -> [Int] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder(productId))) ?? []
        return names.compactMap { n in n.hasPrefix("v") && n.hasSuffix(".index") ? Int(n.dropFirst().dropLast(6)) : nil }.sorted()
    }

    /// Every stored patch of a product whose description reads.
    public func patches(_ productId: String) -> [StoredPatch] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder(productId))) ?? []
        return names.filter { $0.hasSuffix(".patch.json") }
            .compactMap { description((folder(productId) as NSString).appendingPathComponent(String($0.dropLast(5)))) }
    }

    private func description(_ patchPath: String) -> StoredPatch? {
        guard let data = FileManager.default.contents(atPath: patchPath + ".json") else { return nil }
        return try? JSONDecoder().decode(StoredPatch.self, from: data)
    }

    /// The published content hash of `version` (its bundle's SHA-256 `sha256`), when indexed.
    public func contentHash(_ productId: String, version: Int, sha256: String) -> String? {
        guard let info = try? VersionIndex.info(indexPath(productId, version: version)), info["sha256"] == sha256 else { return nil }
        return info["content"]
    }

    /// The cheapest chain of patches from `from` to `to` (whose bundle has SHA-256 `sha256`), or
    /// empty when there is none or it would not be smaller than `fullSize`.
    public func plan(_ productId: String, from: Int, to: Int, sha256: String, fullSize: Int64) -> [StoredPatch] {
        guard from < to else { return [] }
        let all = patches(productId).filter { $0.fromVersion >= from && $0.toVersion <= to && $0.fromVersion < $0.toVersion }
        // Versions only go up: the cheapest path by dynamic programming over versions in order.
        var best: [Int: (cost: Int64, chain: [StoredPatch])] = [from: (0, [])]
        for v in (from...to) {
            guard let here = best[v] else { continue }
            for p in all where p.fromVersion == v {
                // A patch into the target must be made against the bundle published now.
                if p.toVersion == to && p.toBundleSHA256 != sha256 { continue }
                if p.toVersion != to, let next = all.first(where: { $0.fromVersion == p.toVersion }), next.fromContent != p.toContent {
                    continue
                }
                let cost = here.cost + p.size
                if best[p.toVersion].map({ cost < $0.cost }) ?? true { best[p.toVersion] = (cost, here.chain + [p]) }
            }
        }
        guard let found = best[to], found.cost < fullSize else { return [] }
        return found.chain
    }

    private func prune(_ productId: String, latest: Int) {
        let oldest = latest - keepVersions + 1
        for v in indexedVersions(productId) where v < oldest {
            try? FileManager.default.removeItem(atPath: indexPath(productId, version: v))
        }
        for p in patches(productId) where p.fromVersion < oldest - keepVersions {
            let path = patchPath(productId, from: p.fromVersion, to: p.toVersion)
            try? FileManager.default.removeItem(atPath: path)
            try? FileManager.default.removeItem(atPath: path + ".json")
        }
    }
}
