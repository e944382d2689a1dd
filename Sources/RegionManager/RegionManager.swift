import Essentials
import Foundation
import TrailMapAPI

/// The device side of the store, as the app does it: browse, buy, download, keep, uninstall,
/// reinstall for free, restore, update. Combines the server's catalog with the local registry.
public struct RegionManager: Sendable {
    public let state: LocalState
    public let client: StoreClient
    public let installer: Installer
    public let downloader: Downloader
    /// The saved account (token and device id), if logged in once.
    public let account: AccountState?

    public init(
        state: LocalState, server: URL, installer: Installer, http: RetryingHTTPClient = RetryingHTTPClient(),
        chunkSize: Int = 1 << 20
    ) throws {
        self.state = state
        let account = try state.loadAccount()
        let sameServer = account?.server == server.absoluteString
        self.account = sameServer ? account : nil
        client = StoreClient(server: server, token: sameServer ? account?.token : nil, http: http)
        self.installer = installer
        downloader = Downloader(http: http, chunkSize: chunkSize)
    }

    var deviceId: String? { account?.currentDeviceId }

    // MARK: browse

    /// Products (optionally under a category path), statuses merged with what is installed here.
    public func list(category: String? = nil) async throws -> [Product] {
        let listing = try await client.catalog(deviceId: deviceId)
        let registry = try state.loadRegistry()
        return listing.products
            .filter { p in category.map { p.category == $0 || p.category.hasPrefix($0 + "/") } ?? true }
            .map { merge($0, registry) }
    }

    /// One product with its detail fields.
    public func show(_ productId: String) async throws -> ProductDetail {
        var detail = try await client.product(productId, deviceId: deviceId)
        detail.summary = merge(detail.summary, try state.loadRegistry())
        return detail
    }

    /// Products whose coverage holds the point.
    public func near(latitude: Double, longitude: Double) async throws -> [Product] {
        try await list().filter { $0.covers(latitude: latitude, longitude: longitude) }
    }

    /// The status this device sees: the local registry decides installed / update available.
    func merge(_ product: Product, _ registry: [String: InstalledRegion]) -> Product {
        var p = product
        if p.status == .revoked { return p }
        if let local = registry[p.productId], FileManager.default.fileExists(atPath: local.file) {
            p.installedVersion = local.version
            p.status = local.version < p.version ? .updateAvailable : .installed
        } else if p.status == .installed || p.status == .updateAvailable {
            p.installedVersion = nil
            p.status = p.free ? .free : .purchased
        }
        return p
    }

    // MARK: buy

    /// Buys through the sandbox store unless the product is free or already owned.
    public func buy(_ productId: String) async throws -> BuyOutcome {
        let product = try await show(productId)
        try refuseAreaPurchase(product)
        switch product.status {
        case .free: return .free(product)
        case .purchased, .installed, .updateAvailable:
            return .alreadyOwned(product, message: "You already own \(product.title); downloading it again is free.")
        case .unavailable: throw RegionManagerError.unavailable(productId)
        case .forSale, .revoked: break
        }
        let signed = try await client.sandboxTransaction(productId: productId)
        let result = try await client.purchase(signedTransaction: signed)
        if result.alreadyOwned {
            return .alreadyOwned(product, message: result.message ?? "You already own this region; downloading it again is free.")
        }
        return .purchased(product, result)
    }

    /// Sandbox only: has the sandbox store sign a `REFUND` (or `REVOKE`, `REFUND_REVERSED`) notification for the
    /// account's purchase of the product and posts it to `/store/notifications`, as Apple would.
    /// - Returns: the original transaction id it was about.
    @discardableResult
    public func sandboxNotify(_ productId: String, type: String = "REFUND") async throws -> String {
        let owned = try await client.entitlements().first { $0.productId == productId }
        guard let transaction = owned?.originalTransactionId else { throw RegionManagerError.notEntitled(productId) }
        let payload = try await client.sandboxNotification(type: type, transactionId: transaction)
        try await client.postNotification(signedPayload: payload)
        return transaction
    }

    // MARK: install

    /// Downloads (resuming an interrupted download), verifies and installs a region, then tells the server.
    public func install(_ productId: String, progress: @Sendable (DownloadProgress) -> Void = { _ in }) async throws -> InstallOutcome {
        let product = try await show(productId)
        try refuseAreaProduct(product)
        switch product.status {
        case .revoked: throw RegionManagerError.revoked(productId)
        case .forSale: throw RegionManagerError.notEntitled(productId)
        default: break
        }
        guard let token = client.token else { throw RegionManagerError.notLoggedIn(server: client.server.absoluteString) }
        let registry = try state.loadRegistry()
        let existing = registry[productId]
        if let existing, existing.version == product.version, existing.sha256 == product.sha256,
            FileManager.default.fileExists(atPath: existing.file)
        {
            let warning = await tellServerInstalled(productId, version: existing.version)
            return InstallOutcome(region: existing, alreadyInstalled: true, resumedFrom: 0, previousVersion: nil, warning: warning)
        }
        let partial = PartialDownload(productId: productId, directory: installer.tilesDirectory)
        try installer.prepare()
        let resumable = partial.resumableBytes(sha256: product.sha256, size: product.size)
        let usedByOthers = registry.values.filter { $0.productId != productId }.reduce(Int64(0)) { $0 + $1.size }
        try installer.checkRoom(size: product.size, alreadyDownloaded: resumable, usedByOthers: usedByOthers)
        let lock = try partial.lock()
        defer { lock.release() } // done or failed, the lock file goes (a failed download's partial stays to resume)
        let job = Downloader.Job(
            url: client.downloadURL(productId, advertised: product.downloadURL), token: token,
            productId: productId, sha256: product.sha256, size: product.size, partial: partial)
        try await downloader.download(job, progress: progress)
        let path = try installer.install(
            partial, productId: productId, sha256: product.sha256, size: product.size,
            fileName: product.bundleFileName)
        if let existing, existing.file != path { try? FileManager.default.removeItem(atPath: existing.file) }
        var region = InstalledRegion(
            productId: productId, title: product.title, version: product.version,
            sha256: product.sha256.lowercased(), size: product.size, file: path, installedAt: Date())
        region.kind = product.kind
        try state.updateRegistry { $0[productId] = region }
        let warning = await tellServerInstalled(productId, version: product.version)
        return InstallOutcome(
            region: region, alreadyInstalled: false, resumedFrom: resumable,
            previousVersion: existing?.version, warning: warning)
    }

    func tellServerInstalled(_ productId: String, version: Int) async -> String? {
        guard let deviceId else { return "This device has no id on the server; log in again to register it." }
        do {
            try await client.reportInstall(deviceId: deviceId, productId: productId, version: version)
            return nil
        } catch {
            return "The server was not told about the install: \(error)"
        }
    }

    // MARK: uninstall

    /// Deletes the bundle (and any partial download); the purchase stays, so reinstalling is free.
    /// Refused with `downloadInProgress` while another process downloads the region.
    public func uninstall(_ productId: String) async throws -> UninstallOutcome {
        let partial = PartialDownload(productId: productId, directory: installer.tilesDirectory)
        let lock = FileManager.default.fileExists(atPath: installer.tilesDirectory) ? try partial.lock() : nil
        defer { lock?.release() }
        guard let region = try state.loadRegistry()[productId] else {
            let had = partial.bytesOnDisk
            partial.remove()
            guard had > 0 else { throw RegionManagerError.notInstalled(productId) }
            return UninstallOutcome(productId: productId, freedBytes: had, warning: nil)
        }
        let onDisk = ((try? FileManager.default.attributesOfItem(atPath: region.file))?[.size] as? NSNumber)?.int64Value ?? 0
        if FileManager.default.fileExists(atPath: region.file) {
            do { try FileManager.default.removeItem(atPath: region.file) } catch {
                throw RegionManagerError.fileSystem(path: region.file, reason: "cannot delete (\(error.localizedDescription))")
            }
        }
        partial.remove()
        try state.updateRegistry { $0[productId] = nil }
        var warning: String?
        if let deviceId, client.token != nil {
            do { try await client.removeInstall(deviceId: deviceId, productId: productId) } catch {
                warning = "The server was not told about the uninstall: \(error)"
            }
        }
        return UninstallOutcome(productId: productId, freedBytes: onDisk, warning: warning)
    }

    // MARK: restore, status, update

    /// Installs every region the account owns, and every free region installed on another of its
    /// devices, that is not installed here (a new device).
    public func restore(progress: @Sendable (String, DownloadProgress) -> Void = { _, _ in }) async throws -> [RestoreItem] {
        let entitlements = try await client.entitlements()
        var items: [RestoreItem] = []
        for e in entitlements {
            guard e.isActive else {
                items.append(RestoreItem(productId: e.productId, result: "revoked", message: e.revokedReason))
                continue
            }
            if let item = try await restoreOne(e.productId, progress: progress) { items.append(item) }
        }
        for id in try await freeInstalls(excluding: Set(entitlements.map(\.productId))) {
            if let item = try await restoreOne(id, progress: progress) { items.append(item) }
        }
        return items
    }

    /// One region of a restore, or nil for an area product (restored by its area's id).
    private func restoreOne(_ productId: String, progress: @Sendable (String, DownloadProgress) -> Void) async throws -> RestoreItem? {
        do {
            let outcome = try await install(productId) { progress(productId, $0) }
            return RestoreItem(
                productId: productId, result: outcome.alreadyInstalled ? "already_installed" : "installed",
                message: outcome.warning)
        } catch let error as RegionManagerError {
            if case .notLoggedIn = error { throw error }
            if case .areaProduct = error { return nil } // an area product's purchase is its area, restored by the area's id
            return RestoreItem(productId: productId, result: "failed", message: error.description)
        }
    }

    /// The free regions of the catalog installed on any of the account's devices, but for `owned`
    /// (a server from before `GET /installs` knows none).
    private func freeInstalls(excluding owned: Set<String>) async throws -> [String] {
        let installed: [String]
        do { installed = try await client.accountInstalls() } catch let RegionManagerError.rejected(status, _, _) where status == 404 {
            return []
        }
        let wanted = Set(installed).subtracting(owned)
        guard !wanted.isEmpty else { return [] }
        return try await client.catalog(deviceId: deviceId).products
            .filter { wanted.contains($0.productId) && $0.free && $0.kind == .region }
            .map(\.productId).sorted()
    }

    /// Installed regions with their status on the server (when it answers) and the storage used.
    public func status() async throws -> StatusReport {
        let registry = try state.loadRegistry()
        var latest: [String: Product] = [:]
        var offline: String?
        do {
            for p in try await client.catalog(deviceId: deviceId).products { latest[p.productId] = p }
        } catch let error as RegionManagerError {
            offline = error.description
        }
        var entries = registry.values.sorted { $0.productId < $1.productId }.map { region -> StatusEntry in
            let present = FileManager.default.fileExists(atPath: region.file)
            var status = ProductStatus.installed
            if let p = latest[region.productId] {
                status = p.status == .revoked ? .revoked : (p.version > region.version ? .updateAvailable : .installed)
            }
            var entry = StatusEntry(region: region, status: status, latestVersion: latest[region.productId]?.version, filePresent: present)
            entry.kind = region.kind ?? latest[region.productId]?.kind ?? .region
            return entry
        }
        for i in entries.indices where entries[i].status == .updateAvailable {
            let region = entries[i].region
            if let u = try? await client.productUpdate(region.productId, from: region.version) {
                entries[i].updateByPatch = !u.patches.isEmpty && u.patchSize < u.fullSize && u.contentHash != nil
                entries[i].updateBytes = entries[i].updateByPatch ? u.patchSize : u.fullSize
            }
        }
        return StatusReport(
            regions: entries, usedBytes: registry.values.reduce(0) { $0 + $1.size },
            storageBudget: installer.storageBudget, offlineReason: offline)
    }

    /// Installs the newer version of one region, or of every installed region that has one.
    public func update(
        _ productId: String? = nil,
        progress: @Sendable (String, DownloadProgress) -> Void = { _, _ in }
    ) async throws -> [InstallOutcome] {
        let registry = try state.loadRegistry()
        if let productId, registry[productId] == nil { throw RegionManagerError.notInstalled(productId) }
        let products = try await client.catalog(deviceId: deviceId).products
        var outcomes: [InstallOutcome] = []
        for p in products {
            guard let local = registry[p.productId], productId == nil || productId == p.productId else { continue }
            guard p.version > local.version || p.sha256.lowercased() != local.sha256 else { continue }
            if p.status == .revoked { throw RegionManagerError.revoked(p.productId) }
            // Patches when the server offers a chain smaller than the bundle; on any failure the
            // installed file is untouched and the whole bundle is downloaded instead.
            var fallback: String?
            if p.version > local.version, FileManager.default.fileExists(atPath: local.file) {
                do {
                    if let (region, patch) = try await updateByPatches(p.productId, local: local, progress: { progress(p.productId, $0) }) {
                        try state.updateRegistry { $0[p.productId] = region }
                        let warning = await tellServerInstalled(p.productId, version: region.version)
                        outcomes.append(
                            InstallOutcome(
                                region: region, alreadyInstalled: false, resumedFrom: 0,
                                previousVersion: local.version, warning: warning, patch: patch))
                        continue
                    }
                } catch let error as RegionManagerError {
                    switch error {
                    case .notLoggedIn, .revoked, .notEntitled, .downloadInProgress: throw error
                    default: fallback = error.description
                    }
                }
            }
            var outcome = try await install(p.productId) { progress(p.productId, $0) }
            outcome.patchFallback = fallback
            outcomes.append(outcome)
        }
        return outcomes
    }
}
