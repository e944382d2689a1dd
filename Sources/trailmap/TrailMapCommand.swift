import ArgumentParser
import Essentials

@main
struct TrailMapCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trailmap",
        abstract: "Builds, inspects and serves offline trail-map region bundles (MBTiles).",
        version: TrailMapVersion.number,
        subcommands: [
            BuildCommand.self, ServeCommand.self, BundleCommand.self, CatalogCommand.self, StoreCommand.self,
            AccountCommand.self, RegionsCommand.self, TrailsCommand.self
        ]
    )

    /// As ArgumentParser's own, but a device-side error is reported through `TerminalText`
    /// (control characters a server put in it removed, flags named), and a build's, the sandbox
    /// store's and an export folder's errors in the CLI's words (`BuildWording`, `StoreWording`).
    static func main() async {
        do {
            var command = try parseAsRoot(NegativeNumberArguments.protect(Array(CommandLine.arguments.dropFirst())))
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            exit(withError: TerminalText.reported(StoreWording.reported(BuildWording.reported(error))))
        }
    }
}

/// `trailmap bundle ...`: work on existing bundles.
struct BundleCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bundle",
        abstract: "Inspect, verify, cut and export region bundles.",
        subcommands: [InspectCommand.self, VerifyCommand.self, ExtractCommand.self, ExportCommand.self, MergeCommand.self]
    )
}
