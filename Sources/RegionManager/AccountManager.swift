import Foundation
import TrailMapAPI

/// `trailmap account ...`: register, log in (registering this device once), log out.
public struct AccountManager: Sendable {
    public let state: LocalState
    public let server: URL
    public let http: RetryingHTTPClient

    public init(state: LocalState, server: URL, http: RetryingHTTPClient = RetryingHTTPClient()) {
        self.state = state
        self.server = server
        self.http = http
    }

    /// Creates an account, then logs in with it.
    public func register(email: String, password: String, deviceName: String) async throws -> AccountState {
        _ = try await StoreClient(server: server, http: http).register(email: email, password: password)
        return try await login(email: email, password: password, deviceName: deviceName)
    }

    /// Opens a session and keeps its token; registers this device unless it already has an id there.
    public func login(email: String, password: String, deviceName: String) async throws -> AccountState {
        let session = try await StoreClient(server: server, http: http).login(email: email, password: password)
        let serverText = server.absoluteString
        var account = (try state.loadAccount()) ?? AccountState(server: serverText)
        account.server = serverText
        account.email = email
        account.token = session.token
        account.tokenExpiresAt = session.expiresAt
        account.accountId = session.accountId
        account.appAccountToken = session.appAccountToken
        try state.saveAccount(account)
        if account.currentDeviceId == nil {
            let device = try await StoreClient(server: server, token: session.token, http: http).registerDevice(name: deviceName)
            account.deviceId = device.deviceId
            account.deviceServer = serverText
            account.deviceAccountId = session.accountId
            try state.saveAccount(account)
        }
        return account
    }

    /// Ends the session on the server (when reachable) and forgets the token; the device id stays.
    /// - Returns: a warning when the server could not be told.
    @discardableResult
    public func logout() async throws -> String? {
        guard var account = try state.loadAccount(), let token = account.token else { return nil }
        var warning: String?
        do {
            try await StoreClient(server: URL(string: account.server) ?? server, token: token, http: http).logout()
        } catch RegionManagerError.notLoggedIn {
            // Already expired: nothing to end.
        } catch {
            warning = "The server was not told (\(error)); the token was forgotten here anyway."
        }
        account.token = nil
        account.tokenExpiresAt = nil
        try state.saveAccount(account)
        return warning
    }
}
