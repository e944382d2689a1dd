import BundlePatch
import Catalog
import Foundation
import Hummingbird
import Logging
import TrailMapAPI

/// Region updates by patch (issue "Region updates by delta"): `GET /api/v1/updates/{productId}/{fromVersion}`
/// tells an entitled device how to get the published version from the one it has (the cheapest
/// chain of stored patches, when smaller than the bundle), and
/// `GET|HEAD /api/v1/downloads/{productId}/patches/{from}-{to}` serves a patch like a bundle.
/// Patches are made by `trailmap catalog publish` into the patch store (`StoreSettings.patches`).
extension StoreAPI {
    /// `GET /api/v1/updates/{productId}/{fromVersion}`
    func productUpdate(_ request: Request, product: Substring, from: Substring) async throws -> Response {
        let a = try await account(request)
        let id = try Self.productID(product)
        guard let fromVersion = Int(from), (1...Int(Int32.max)).contains(fromVersion) else {
            throw APIError.badRequest("fromVersion must be a published version number (1 or more), not \(from.prefix(32))")
        }
        let p = try await catalog.downloadable(productID: id, account: a)
        let store = settings.patches
        let plan = store?.plan(p.id, from: fromVersion, to: p.version, sha256: p.sha256, fullSize: p.size) ?? []
        let escaped = p.id.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? p.id
        let links = plan.map {
            PatchLink(
                fromVersion: $0.fromVersion, toVersion: $0.toVersion, size: $0.size, sha256: $0.sha256,
                url: "/api/v1/downloads/\(escaped)/patches/\($0.fromVersion)-\($0.toVersion)")
        }
        let update = ProductUpdate(
            productId: p.id, fromVersion: fromVersion, toVersion: p.version, fullSize: p.size, sha256: p.sha256,
            contentHash: store?.contentHash(p.id, version: p.version, sha256: p.sha256), patches: links)
        return JSONReply.make(update, request: request, cacheControl: "private, no-cache")
    }

    /// `GET|HEAD /api/v1/downloads/{productId}/patches/{from}-{to}`
    func patchDownload(_ request: Request, product: Substring, patch: Substring) async throws -> Response {
        let a = try await account(request)
        let p = try await catalog.downloadable(productID: try Self.productID(product), account: a)
        let parts = patch.split(separator: "-")
        guard parts.count == 2, let from = Int(parts[0]), let to = Int(parts[1]), let store = settings.patches,
            to <= p.version, let stored = store.patches(p.id).first(where: { $0.fromVersion == from && $0.toVersion == to })
        else {
            throw APIError.notFound(
                "no_such_patch",
                "no patch \(patch.prefix(32)) of \(p.id): ask GET /api/v1/updates/\(p.id)/{yourVersion} for the ones there are")
        }
        let path = store.patchPath(p.id, from: from, to: to)
        guard let file = await bundleIntegrity.openPublished(path: path, size: stored.size, sha256: stored.sha256) else {
            logger.error("patch \(p.id) \(from)-\(to): \(path) is missing or its bytes changed since it was made")
            throw APIError(
                .serviceUnavailable, code: "patch_unavailable",
                message: "the patch is missing or damaged on the server; download the whole bundle instead")
        }
        return try fileResponse(
            request, file, sha256: stored.sha256, filename: "\(p.tileset)-\(from)-\(to).patch",
            cacheControl: "private, no-cache")
    }
}
