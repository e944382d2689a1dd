import ArgumentParser
import Foundation
import RegionManager

/// `trailmap account ...`: the account and this device on a TrailMap server.
struct AccountCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "account",
        abstract: "Register, log in to and log out of a TrailMap server.",
        subcommands: [AccountRegisterCommand.self, AccountLoginCommand.self, AccountLogoutCommand.self]
    )
}

/// Email, password and device name, for register and login.
struct CredentialOptions: ParsableArguments {
    @Option(name: .long, help: "Account email.") var email: String
    @Option(name: .long, help: "Password (else $TRAILMAP_PASSWORD, else asked on the terminal).") var password: String?
    @Option(name: .long, help: "Name of this device on the server (default: the host name).") var deviceName: String?

    func resolvedPassword() throws -> String {
        if let password { return password }
        if let env = ProcessInfo.processInfo.environment["TRAILMAP_PASSWORD"], !env.isEmpty { return env }
        guard isatty(STDIN_FILENO) == 1, let typed = getpass("Password: ") else {
            throw ValidationError("Give a password with --password or $TRAILMAP_PASSWORD.")
        }
        return String(cString: typed)
    }

    var device: String { deviceName ?? ProcessInfo.processInfo.hostName }
}

struct AccountRegisterCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "register", abstract: "Create an account, log in and register this device.")
    @OptionGroup var credentials: CredentialOptions
    @Flag(name: .long, help: "Print JSON.") var json = false
    @OptionGroup var options: RegionOptions

    func run() async throws {
        let state = try options.state()
        let accounts = AccountManager(state: state, server: try options.serverURL(state), http: options.http)
        let account = try await accounts.register(
            email: credentials.email, password: try credentials.resolvedPassword(),
            deviceName: credentials.device)
        if json {
            return try JSONOutput.print(
                CommandReports.Account(
                    result: "registered", server: account.server, email: credentials.email,
                    deviceId: account.deviceId, warning: nil))
        }
        TerminalText.print("Registered and logged in as \(credentials.email) on \(account.server) (device \(account.deviceId ?? "?")).")
    }
}

struct AccountLoginCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "login", abstract: "Log in; registers this device the first time.")
    @OptionGroup var credentials: CredentialOptions
    @Flag(name: .long, help: "Print JSON.") var json = false
    @OptionGroup var options: RegionOptions

    func run() async throws {
        let state = try options.state()
        let accounts = AccountManager(state: state, server: try options.serverURL(state), http: options.http)
        let account = try await accounts.login(
            email: credentials.email, password: try credentials.resolvedPassword(),
            deviceName: credentials.device)
        if json {
            return try JSONOutput.print(
                CommandReports.Account(
                    result: "logged_in", server: account.server, email: credentials.email,
                    deviceId: account.deviceId, warning: nil))
        }
        TerminalText.print("Logged in as \(credentials.email) on \(account.server) (device \(account.deviceId ?? "?")).")
    }
}

struct AccountLogoutCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "logout", abstract: "End the session and forget the token.")
    @Flag(name: .long, help: "Print JSON.") var json = false
    @OptionGroup var options: RegionOptions

    func run() async throws {
        let state = try options.state()
        let server = try options.serverURL(state)
        let accounts = AccountManager(state: state, server: server, http: options.http)
        let warning = try await accounts.logout()
        if json {
            return try JSONOutput.print(
                CommandReports.Account(
                    result: "logged_out", server: server.absoluteString, email: nil, deviceId: nil,
                    warning: warning))
        }
        if let warning { FileHandle.standardError.write(Data((TerminalText.clean(warning) + "\n").utf8)) }
        TerminalText.print("Logged out. Installed regions stay usable offline.")
    }
}
