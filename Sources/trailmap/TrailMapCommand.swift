import ArgumentParser

@main
struct TrailMapCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trailmap",
        abstract: "Builds, inspects and serves offline trail-map region bundles (MBTiles).",
        version: "0.1.0",
        subcommands: [BuildCommand.self, ServeCommand.self, BundleCommand.self, CatalogCommand.self, StoreCommand.self,
                      AccountCommand.self, RegionsCommand.self, TrailsCommand.self]
    )
}

/// `trailmap bundle ...`: work on existing bundles.
struct BundleCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bundle",
        abstract: "Inspect, verify, cut and export region bundles.",
        subcommands: [InspectCommand.self, VerifyCommand.self, ExtractCommand.self, ExportCommand.self, MergeCommand.self]
    )
}
