import BundlePatch
import Essentials
import Foundation
import TrailMapAPI

/// Updates an installed region by the patches the server offers (issue "Region updates by
/// delta"): each patch is downloaded like a bundle (resumable, SHA-256 checked), the chain is
/// applied to a copy of the installed bundle, the copy's content must hash to the published
/// version's, and only then is it renamed over the installed file. Any failure leaves the
/// installed region as it was; the caller then downloads the whole bundle.
extension RegionManager {
    /// The update by patches, or nil when the server offers none smaller than the bundle.
    func updateByPatches(
        _ productId: String, local: InstalledRegion,
        progress: @Sendable (DownloadProgress) -> Void
    ) async throws -> (InstalledRegion, PatchUpdate)? {
        let update = try await client.productUpdate(productId, from: local.version)
        guard !update.patches.isEmpty, update.patchSize < update.fullSize, let expected = update.contentHash else { return nil }
        guard let token = client.token else { throw RegionManagerError.notLoggedIn(server: client.server.absoluteString) }
        try installer.prepare()
        // Room, before any byte: the patch files beside the installed bundle (budget and disk).
        let usedByOthers = try state.loadRegistry().values.filter { $0.productId != productId }.reduce(Int64(0)) { $0 + $1.size }
        let patchBytes = update.patches.reduce(Int64(0)) { $0 + $1.size }
        try installer.checkRoom(size: local.size + patchBytes, alreadyDownloaded: local.size, usedByOthers: usedByOthers)
        var partials = [PartialDownload]()
        // Each patch's lock is held to the end, so its files are deleted by their holder; letting go
        // deletes the lock files, done or failed.
        var locks = [FileLock]()
        defer { for lock in locks { lock.release() } }
        var downloaded: Int64 = 0
        for link in update.patches {
            guard let url = client.resolve(link.url) else {
                throw RegionManagerError.invalidResponse("a patch URL on another server: \(link.url.prefix(100))")
            }
            let partial = PartialDownload(
                productId: "\(productId).patch-\(link.fromVersion)-\(link.toVersion)",
                directory: installer.tilesDirectory)
            downloaded += link.size - partial.resumableBytes(sha256: link.sha256, size: link.size)
            locks.append(try partial.lock())
            try await downloader.download(
                Downloader.Job(
                    url: url, token: token, productId: productId, sha256: link.sha256,
                    size: link.size, partial: partial), progress: progress)
            let actual = try FileDigest.sha256(path: partial.path)
            guard actual == link.sha256.lowercased() else {
                partial.remove()
                throw RegionManagerError.checksumMismatch(productId: productId, expected: link.sha256, actual: actual)
            }
            partials.append(partial)
        }
        let files = partials.map(\.path)
        let output = (installer.tilesDirectory as NSString).appendingPathComponent(".\(PartialDownload.safe(productId)).patched")
        // The patched copy may take what the budget leaves beside the other regions and what the
        // disk holds; SQLite stops it there (a patch's own size bounds it far below, too).
        let room = try installer.room(usedByOthers: usedByOthers)
        do {
            try PatchApplier.apply(files, to: local.file, output: output, expected: expected, maxOutputBytes: room)
        } catch {
            // A patch refused or failed is not tried again: the caller downloads the whole bundle.
            for p in partials { p.remove() }
            throw RegionManagerError.patch(productId, error.description)
        }
        try DurableFile.move(output, to: local.file)
        for p in partials { p.remove() }
        let size = (try? FileManager.default.attributesOfItem(atPath: local.file)[.size] as? NSNumber)?.int64Value ?? update.fullSize
        var region = local
        region.version = update.toVersion
        region.sha256 = update.sha256.lowercased()
        region.size = size
        region.installedAt = Date()
        region.contentHash = expected
        return (
            region,
            PatchUpdate(
                fromVersion: local.version, toVersion: update.toVersion, patches: update.patches.count,
                downloadedBytes: downloaded, fullSize: update.fullSize)
        )
    }
}
