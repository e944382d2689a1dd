/// What `account.json` keeps: the server, the session and this device's id there.
public struct AccountState: Codable, Sendable, Equatable {
    /// Server root URL the session belongs to.
    public var server: String
    public var email: String?
    public var token: String?
    public var tokenExpiresAt: String?
    public var accountId: String?
    public var appAccountToken: String?
    /// Device id registered on `deviceServer`.
    public var deviceId: String?
    public var deviceServer: String?
    /// Account the device id was registered for.
    public var deviceAccountId: String?

    public init(server: String) { self.server = server }

    /// The device id, when it was registered on this server for this account.
    public var currentDeviceId: String? {
        deviceServer == server && deviceAccountId == accountId ? deviceId : nil
    }
}
