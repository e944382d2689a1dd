import Foundation

/// Checks room before a download and installs a verified download atomically into the tiles folder.
public struct Installer: Sendable {
    /// Free bytes on the file system holding a path.
    public typealias FreeSpace = @Sendable (String) throws -> Int64

    public let tilesDirectory: String
    /// Most bytes installed regions may take together; nil for no limit.
    public let storageBudget: Int64?
    private let freeSpace: FreeSpace

    public init(tilesDirectory: String, storageBudget: Int64? = nil, freeSpace: @escaping FreeSpace = Installer.systemFreeSpace) {
        self.tilesDirectory = tilesDirectory
        self.storageBudget = storageBudget
        self.freeSpace = freeSpace
    }

    /// Free bytes for the current user on the file system of `path` (statfs through FileManager).
    public static let systemFreeSpace: FreeSpace = { path in
        let attributes = try FileManager.default.attributesOfFileSystem(forPath: path)
        return (attributes[.systemFreeSize] as? NSNumber)?.int64Value ?? Int64.max
    }

    /// Creates the tiles folder if needed.
    public func prepare() throws {
        do {
            try FileManager.default.createDirectory(atPath: tilesDirectory, withIntermediateDirectories: true)
        } catch {
            throw RegionManagerError.fileSystem(
                path: tilesDirectory, reason: "cannot create the tiles folder (\(error.localizedDescription))")
        }
    }

    /// Refuses before any byte is downloaded when the file would not fit the budget or the disk.
    /// - Parameters:
    ///   - size: the bundle's size.
    ///   - alreadyDownloaded: bytes of it already in the partial file.
    ///   - usedByOthers: bytes of the installed regions that stay installed (not the one replaced).
    public func checkRoom(size: Int64, alreadyDownloaded: Int64, usedByOthers: Int64) throws {
        if let budget = storageBudget, usedByOthers + size > budget {
            throw RegionManagerError.overBudget(needed: size, used: usedByOthers, budget: budget)
        }
        let remaining = max(0, size - alreadyDownloaded)
        let free: Int64
        do { free = try freeSpace(tilesDirectory) } catch {
            throw RegionManagerError.fileSystem(path: tilesDirectory, reason: "cannot read free space (\(error))")
        }
        if remaining > free {
            throw RegionManagerError.insufficientDisk(needed: remaining, available: free, path: tilesDirectory)
        }
    }

    /// Most bytes a new file for a region may take now: what the storage budget leaves beside the
    /// other regions (`usedByOthers`), and the free disk.
    public func room(usedByOthers: Int64) throws -> Int64 {
        let free: Int64
        do { free = try freeSpace(tilesDirectory) } catch {
            throw RegionManagerError.fileSystem(path: tilesDirectory, reason: "cannot read free space (\(error))")
        }
        guard let budget = storageBudget else { return max(0, free) }
        return max(0, min(free, budget - usedByOthers))
    }

    /// Verifies the partial file's size and SHA-256, then renames it over `Tiles/fileName` (fsynced).
    /// A file that fails verification is deleted with its sidecar and nothing else changes.
    /// - Returns: the installed file's path.
    @discardableResult
    public func install(
        _ partial: PartialDownload, productId: String, sha256: String, size: Int64,
        fileName: String
    ) throws -> String {
        let have = partial.bytesOnDisk
        let actual = try FileDigest.sha256(path: partial.path)
        guard have == size, actual == sha256.lowercased() else {
            partial.remove()
            throw RegionManagerError.checksumMismatch(
                productId: productId, expected: sha256.lowercased(),
                actual: have == size ? actual : "\(actual) over \(have) of \(size) bytes")
        }
        let destination = (tilesDirectory as NSString).appendingPathComponent(fileName)
        try DurableFile.move(partial.path, to: destination)
        try? FileManager.default.removeItem(atPath: partial.sidecarPath)
        return destination
    }
}
