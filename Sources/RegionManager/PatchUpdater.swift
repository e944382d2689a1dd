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
    func updateByPatches(_ productId: String, local: InstalledRegion,
                         progress: @Sendable (DownloadProgress) -> Void) async throws -> (InstalledRegion, PatchUpdate)? {
        let update = try await client.productUpdate(productId, from: local.version)
        guard !update.patches.isEmpty, update.patchSize < update.fullSize, let expected = update.contentHash else { return nil }
        guard let token = client.token else { throw RegionManagerError.notLoggedIn(server: client.server.absoluteString) }
        try installer.prepare()
        var files = [String]()
        var downloaded: Int64 = 0
        for link in update.patches {
            guard let url = client.resolve(link.url) else {
                throw RegionManagerError.invalidResponse("a patch URL on another server: \(link.url.prefix(100))")
            }
            let partial = PartialDownload(productId: "\(productId).patch-\(link.fromVersion)-\(link.toVersion)",
                                          directory: installer.tilesDirectory)
            downloaded += link.size - partial.resumableBytes(sha256: link.sha256, size: link.size)
            let lock = try partial.lock()
            defer { lock.unlock() }
            try await downloader.download(Downloader.Job(url: url, token: token, productId: productId, sha256: link.sha256,
                                                         size: link.size, partial: partial), progress: progress)
            let actual = try FileDigest.sha256(path: partial.path)
            guard actual == link.sha256.lowercased() else {
                partial.remove()
                throw RegionManagerError.checksumMismatch(productId: productId, expected: link.sha256, actual: actual)
            }
            files.append(partial.path)
        }
        let output = (installer.tilesDirectory as NSString).appendingPathComponent(".\(productId).patched")
        do {
            try PatchApplier.apply(files, to: local.file, output: output, expected: expected)
        } catch {
            throw RegionManagerError.patch(productId, error.description)
        }
        try DurableFile.move(output, to: local.file)
        for f in files {
            try? FileManager.default.removeItem(atPath: f)
            try? FileManager.default.removeItem(atPath: f + ".json")
        }
        let size = (try? FileManager.default.attributesOfItem(atPath: local.file)[.size] as? NSNumber)?.int64Value ?? update.fullSize
        var region = local
        region.version = update.toVersion
        region.sha256 = update.sha256.lowercased()
        region.size = size
        region.installedAt = Date()
        region.contentHash = expected
        return (region, PatchUpdate(fromVersion: local.version, toVersion: update.toVersion, patches: update.patches.count,
                                    downloadedBytes: downloaded, fullSize: update.fullSize))
    }
}
