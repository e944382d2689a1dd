import ArgumentParser
import Catalog
import Foundation

/// `trailmap catalog revoke-tile-tokens`: replaces every tile-token key (after a leak).
struct RevokeTileTokensCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "revoke-tile-tokens",
        abstract: "Replace every tile-token key: all tile URLs handed out so far stop working.",
        discussion: """
            Tile tokens (?token= on paid tile URLs) are signed with keys kept in the catalog; a new key \
            signs every day and replaced keys are deleted once their tokens have expired. Run this when a \
            key may have leaked: servers on this catalog refuse the old tokens within \
            \(Int(TileTokens.refreshInterval)) seconds, and apps ask for new ones.
            """)

    @Option(name: .long, help: "The catalog: \(CatalogLocation.help).") var catalog: String = CatalogCommand.defaultDatabase
    @OptionGroup var global: GlobalOptions
    @Flag(name: .long, help: "Print JSON.") var json = false

    func validate() throws { _ = try CatalogLocation(catalog) }

    func run() async throws {
        let location = try CatalogLocation(catalog)
        guard location.exists else {
            throw CommandFailure("no catalog at \(location): run `trailmap catalog publish` first")
        }
        let db = try await location.open(logger: global.logger("trailmap.catalog"))
        defer { CatalogLocation.close(db) }
        let key = try await db.revokeTileTokenKeys(now: Date())
        if json {
            return try JSONOutput.print(
                CommandReports.Revoke(
                    catalog: "\(location)", newKeyId: key.id,
                    oldTokensStopWithinSeconds: Int(TileTokens.refreshInterval)))
        }
        guard !global.quiet else { return }
        print(
            """
            tile-token keys replaced (new key \(key.id)): tile tokens issued before now stop working within \
            \(Int(TileTokens.refreshInterval)) s
            """
        )
    }
}
