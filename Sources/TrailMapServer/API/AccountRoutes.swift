import Catalog
import Foundation
import Hummingbird
import Logging
import TrailMapAPI

/// `/accounts`, `/sessions`, `/devices` and installs.
extension StoreAPI {
    /// Registers an account; the password is hashed on the password-hashing pool, off the
    /// shared concurrency threads, throttled per client address.
    func register(_ request: Request, from address: String?) async throws -> Response {
        let c = try await body(TrailMapAPI.Credentials.self, request)
        let catalog = catalog
        let a = try await settings.passwordHashing.run { () throws(CatalogError) in
            try catalog.register(email: c.email, password: c.password, address: address)
        }
        logger.info("account registered: \(a.id)")
        return JSONReply.make(
            AccountCreated(accountId: a.id, email: a.email, appAccountToken: a.appAccountToken), status: .created,
            request: request, cacheControl: "no-store")
    }

    /// Logs in: a throttled email or address is answered 429 at once, before any hashing; the
    /// password check runs on the password-hashing pool (503 + Retry-After when it is full).
    func login(_ request: Request, from address: String?) async throws -> Response {
        let c = try await body(TrailMapAPI.Credentials.self, request)
        if let wait = await catalog.loginWait(email: c.email, address: address) { throw CatalogError.tooManyAttempts(retryAfter: wait) }
        let catalog = catalog
        let s = try await settings.passwordHashing.run { () throws(CatalogError) in
            try catalog.login(email: c.email, password: c.password, address: address)
        }
        return JSONReply.make(
            TrailMapAPI.Session(
                token: s.token, expiresAt: JSONReply.time(s.expiresAt), accountId: s.account.id,
                appAccountToken: s.account.appAccountToken),
            request: request, cacheControl: "no-store")
    }

    func logout(_ request: Request) async throws -> Response {
        _ = try await account(request)
        if let token = Self.bearer(request) { try await catalog.logout(token: token) }
        return Self.empty()
    }

    func addDevice(_ request: Request) async throws -> Response {
        let a = try await account(request)
        let b = try await body(DeviceRequest.self, request)
        let d = try await catalog.addDevice(account: a, name: b.name ?? "")
        return JSONReply.make(
            DeviceRegistration(deviceId: d.id, name: d.name), status: .created, request: request, cacheControl: "no-store")
    }

    func install(_ request: Request, device: Substring, product: Substring) async throws -> Response {
        let a = try await account(request)
        let id = try Self.productID(product)
        let b = try await body(InstallRequest.self, request)
        try await catalog.setInstalled(productID: id, version: b.version, deviceID: String(device.prefix(64)), account: a)
        return JSONReply.make(InstallResult(productId: id, version: b.version), request: request, cacheControl: "no-store")
    }

    /// The products installed on any of the account's devices.
    func accountInstalls(_ request: Request) async throws -> Response {
        let a = try await account(request)
        return JSONReply.make(
            AccountInstalls(productIds: try await catalog.installedProducts(account: a)), request: request,
            cacheControl: "no-store")
    }

    func uninstall(_ request: Request, device: Substring, product: Substring) async throws -> Response {
        let a = try await account(request)
        try await catalog.setUninstalled(productID: try Self.productID(product), deviceID: String(device.prefix(64)), account: a)
        return Self.empty()
    }
}
