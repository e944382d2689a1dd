import ArgumentParser
import Catalog
import Foundation

/// `trailmap catalog revoke-tile-tokens`: replaces every tile-token key (after a leak).
struct RevokeTileTokensCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "revoke-tile-tokens",
        abstract: "Replace every tile-token key: all tile URLs handed out so far stop working.",
        discussion: """
            Tile tokens (?token= on paid tile URLs) are signed with keys kept in the catalog; a new key \
            signs every day and replaced keys are deleted once their tokens have expired. Run this when a \
            key may have leaked: servers on this catalog refuse the old tokens within \
            \(Int(TileTokens.refreshInterval)) seconds, and apps ask for new ones.
            """)

    @Option(name: .long, help: "The catalog database.") var catalog: String = CatalogCommand.defaultDatabase
    @OptionGroup var global: GlobalOptions

    func run() throws {
        guard FileManager.default.fileExists(atPath: catalog) else {
            throw ValidationError("no catalog at \(catalog): run `trailmap catalog publish` first")
        }
        let key = try CatalogDatabase(path: catalog, logger: global.logger("trailmap.catalog")).revokeTileTokenKeys()
        guard !global.quiet else { return }
        print("tile-token keys replaced (new key \(key.id)): tile tokens issued before now stop working within \(Int(TileTokens.refreshInterval)) s")
    }
}
