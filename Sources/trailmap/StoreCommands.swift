import ArgumentParser
import Catalog
import StoreVerification
import Foundation

/// `trailmap store ...`: the App Store side of purchases.
struct StoreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "store",
        abstract: "App Store signed transactions: a local sandbox store for development and tests.",
        subcommands: [StoreSandboxCommand.self]
    )
}

/// `trailmap store sandbox ...`.
struct StoreSandboxCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sandbox",
        abstract: "A local store that signs transactions like the App Store (as StoreKit testing does).",
        subcommands: [StoreSandboxInitCommand.self]
    )
}

/// `trailmap store sandbox init DIR`.
struct StoreSandboxInitCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init",
        abstract: "Create a sandbox store: root CA, intermediate, signing leaf and key, and store.json.")

    @Argument(help: "The folder to create the store in (created if missing).") var directory: String
    @Option(name: .long, help: "The app bundle id written into signed transactions.") var bundleId = "com.trailmap.app"
    @Flag(name: .long, help: "Replace an existing store (transactions it signed stop verifying).") var force = false
    @Flag(name: .long, help: "Print JSON.") var json = false

    func run() throws {
        let store: SandboxStore
        do {
            store = try SandboxStore.initialize(directory: directory, bundleId: bundleId, force: force)
        } catch {
            throw CommandFailure(description: StoreWording.message(error))
        }
        let dir = URL(fileURLWithPath: directory)
        if json {
            let files = [
                "root": "root.pem", "intermediate": "intermediate.pem", "leaf": "leaf.pem", "leafKey": "leaf-key.pem",
                "configuration": "store.json"
            ]
            return try JSONOutput.print(
                CommandReports.SandboxInit(
                    directory: dir.path, bundleId: store.bundleId, environment: store.environment.rawValue,
                    files: files.mapValues { dir.appendingPathComponent($0).path }))
        }
        print("Sandbox store for \(store.bundleId) (environment \(store.environment.rawValue)) in \(dir.path):")
        for (name, what) in [
            ("root.pem", "root CA certificate (trust this one)"),
            ("intermediate.pem", "intermediate CA certificate"),
            ("leaf.pem", "signing certificate"),
            ("leaf-key.pem", "signing private key (mode 0600)"),
            ("store.json", "configuration")
        ] {
            print("  \(dir.appendingPathComponent(name).path)  \(what)")
        }
        print("Start the server with --store-sandbox \(directory) to sign test purchases with it.")
    }
}
