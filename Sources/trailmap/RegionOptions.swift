import ArgumentParser
import Foundation
import RegionManager

/// Options shared by `trailmap account` and `trailmap regions`: server, state folder, tiles folder.
struct RegionOptions: ParsableArguments {
    @Option(name: .long, help: "TrailMap server (default: the one you logged in to, else http://127.0.0.1:8080).")
    var server: String?

    @Option(
        name: .long,
        help:
            """
            State folder for the token, device id and installed-region registry (default: $XDG_STATE_HOME/trailmap or \
            ~/.local/state/trailmap).
            """
    )
    var stateDir: String?

    @Option(name: .long, help: "Folder the region bundles are installed into.")
    var tiles: String = "Tiles"

    @Option(name: .long, help: "Most bytes installed regions may take together, e.g. 2GB.")
    var storageBudget: ByteSize?

    @Option(name: .long, help: ArgumentHelp("Bytes per ranged download request.", visibility: .hidden))
    var chunkSize: ByteSize = ByteSize(bytes: 1 << 20)

    @Option(name: .long, help: ArgumentHelp("Attempts per request on network errors and 5xx answers.", visibility: .hidden))
    var attempts: Int = 4

    @Flag(
        name: .customLong("insecure-http"),
        help:
            """
            Allow a plain http:// server on another machine: your password, session token and maps then cross the network unencrypted. (A \
            server on this machine, e.g. http://127.0.0.1, needs no flag.)
            """
    )
    var insecureHTTP = false

    func validate() throws {
        if let server { _ = try Self.parseServer(server) }
        guard chunkSize.bytes > 0 else { throw ValidationError("--chunk-size must be positive") }
        guard (1...20).contains(attempts) else { throw ValidationError("--attempts must be 1...20") }
    }

    static func parseServer(_ text: String) throws -> URL {
        guard let url = URL(string: text), let scheme = url.scheme, ["http", "https"].contains(scheme), url.host != nil else {
            throw ValidationError("--server \(text) is not an http(s) URL like http://127.0.0.1:8080")
        }
        return url
    }

    func state() throws -> LocalState {
        try LocalState(directory: stateDir ?? LocalState.defaultDirectory())
    }

    /// `--server`, else the saved account's server, else the local default.
    func serverURL(_ state: LocalState) throws -> URL {
        if let server { return try Self.parseServer(server) }
        if let saved = try state.loadAccount()?.server, let url = URL(string: saved) { return url }
        return URL(string: "http://127.0.0.1:8080") ?? URL(fileURLWithPath: "/")
    }

    var http: RetryingHTTPClient { RetryingHTTPClient(retry: RetryPolicy(attempts: attempts), allowsInsecureHTTP: insecureHTTP) }

    func manager() throws -> RegionManager {
        let state = try state()
        let installer = Installer(tilesDirectory: tiles, storageBudget: storageBudget.map { Int64($0.bytes) })
        return try RegionManager(
            state: state, server: try serverURL(state), installer: installer, http: http,
            chunkSize: chunkSize.bytes)
    }
}
